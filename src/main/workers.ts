import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../db/schema.js'
import { createHousekeeping } from '../jobs/housekeeping.js'
import { JobRegistry } from '../jobs/job-definition.js'
import { createJobRegistry } from '../jobs/registry.js'
import { Worker } from '../jobs/worker.js'
import type { ResolveHost } from '../lib/outbound-url.js'
import { createAcknowledgementInboxes, createAcknowledgementOverdueCheck, createAcknowledgementPickupCheck } from '../modules/acknowledgements/index.js'
import { DEFAULT_ACKNOWLEDGEMENT_DUE_HOURS } from '../modules/carriers/carriers.schema.js'
import { createCoveragePeriodExpiryCheck } from '../modules/coverage-periods/coverage-period-expiry.js'
import { DEFAULT_EVENT_LOG_RETENTION_DAYS } from '../modules/event-stream/event-stream.settings.js'
import { createWebhookDeliveryJob } from '../modules/watchers/webhook-delivery.job.js'
import type { WebhookSettings } from '../modules/watchers/webhook-settings.js'
import { createCarrierSide, type CarrierSideDeps } from './carrier-side.js'

export interface WorkersOptions {
  db: Db
  log: FastifyBaseLogger
  /** WORKER_CONCURRENCY, WORKER_POLL_MS, and WORKER_HEARTBEAT_MS and WORKER_DEAD_AFTER_MS (defaults 5 s, 30 s). */
  worker: { concurrency: number; pollMs: number; heartbeatMs?: number; deadAfterMs?: number }
  /** WORKER_STALE_AFTER_MS: a job running longer is presumed orphaned by a dead worker. */
  staleAfterMs: number
  webhooks: WebhookSettings
  resolveHost?: ResolveHost
  /** Housekeeping on the general worker's polls; on by default. */
  housekeeping?: boolean
  /** EVENT_LOG_RETENTION_DAYS: housekeeping deletes older events from the event log (7 by default). */
  eventLogRetentionDays?: number
  /** Plan-year expiry (coverage periods past their coverage_end_date) on the general worker's polls; on by default. */
  coveragePeriodExpiry?: boolean
  /** Acknowledgements picked up from the carriers' inbound locations (acknowledgement_inbound) on the general worker's polls; on by default. */
  acknowledgementPickup?: boolean
  /** 834 files without a 999 after their carrier's acknowledgement_due_hours marked overdue, on the general worker's polls; on by default. */
  acknowledgementOverdue?: boolean
  /** The clock the scheduled checks read (today's date for expiry, now for overdue acknowledgements); the system clock by default. */
  clock?: () => Date
  /** What the carrier jobs need (SSN keys to open SSNs for files, carriers, transports; a receiver of acknowledgements of the caller's). */
  carrierSide: Pick<CarrierSideDeps, 'ssn' | 'carriers' | 'settings' | 'acknowledgements'>
}

export interface Workers {
  readonly ids: readonly string[]
  start(): void
  /** Stops claiming and waits for the running jobs of both. */
  stop(): Promise<void>
  /** Runs both until nothing is due (tests). */
  drain(): Promise<void>
}

/**
 * The process's two workers over the one outbox: the general one (carrier files, sandbox carriers, and the scheduled
 * checks: housekeeping, plan-year expiry, acknowledgement pickup and overdue files), and one for webhook
 * deliveries with slots of their own (WEBHOOK_CONCURRENCY). A delivery mostly waits on a
 * receiver, up to WEBHOOK_TIMEOUT_MS when it hangs; in their own slots, hung receivers never
 * delay carrier files or other jobs, and the delivery claim (claimDueJobs) keeps them from
 * delaying other accounts' deliveries: round-robin across accounts and receivers, receivers not
 * known to answer capped at half the slots, receivers that keep failing backed off.
 * Each worker claims only the job names of its registry.
 */
export function createWorkers(options: WorkersOptions): Workers {
  const { db, log, staleAfterMs } = options
  const { heartbeatMs, deadAfterMs } = options.worker
  const liveness = { ...(heartbeatMs ? { heartbeatMs } : {}), ...(deadAfterMs ? { deadAfterMs } : {}) }
  // The scheduled checks, on the general worker's polls; each throttles itself and one failing
  // does not keep the others from running.
  const scheduled: [string, () => Promise<void>][] = []
  if (options.housekeeping !== false) scheduled.push(['housekeeping', createHousekeeping(db, { eventLogRetentionDays: options.eventLogRetentionDays ?? DEFAULT_EVENT_LOG_RETENTION_DAYS })])
  if (options.coveragePeriodExpiry !== false) {
    scheduled.push(['coverage period expiry', createCoveragePeriodExpiryCheck(db, { log, ...(options.clock ? { clock: options.clock } : {}) })])
  }
  const clock = options.clock ? { clock: options.clock } : {}
  const { carriers } = options.carrierSide
  // The carrier-side modules, whose jobs the general worker runs; their one receiver of
  // acknowledgements takes the inbound pickup's too.
  const carrierSide = createCarrierSide({ db, ...options.carrierSide, log, ...clock })
  const receiver = carrierSide.acknowledgements
  if (options.acknowledgementPickup !== false) {
    // Built at start, so a carrier's inbound settings that cannot work stop the start (ConfigError).
    const inboxes = createAcknowledgementInboxes(carriers.all, {
      outboundDirectory: options.carrierSide.settings.outboundDirectory,
      env: options.carrierSide.settings.secrets,
    })
    scheduled.push(['acknowledgement pickup', createAcknowledgementPickupCheck(receiver, inboxes, { log, ...clock })])
  }
  if (options.acknowledgementOverdue !== false) {
    const dueHours = carriers.all
      .filter((carrier) => carrier.distribution_format === 'edi')
      .map((carrier) => ({ carrierName: carrier.name, dueHours: carrier.acknowledgement_due_hours ?? DEFAULT_ACKNOWLEDGEMENT_DUE_HOURS }))
    scheduled.push(['acknowledgement overdue', createAcknowledgementOverdueCheck(db, { carriers: () => dueHours, log, ...clock })])
  }
  const onPoll = async () => {
    for (const [name, check] of scheduled) {
      try {
        await check()
      } catch (error) {
        log.error({ err: error, check: name }, 'scheduled check failed')
      }
    }
  }
  const general = new Worker({
    db,
    registry: createJobRegistry(carrierSide.modules.flatMap((module) => module.jobs)),
    log,
    concurrency: options.worker.concurrency,
    pollMs: options.worker.pollMs,
    staleAfterMs,
    ...liveness,
    ...(scheduled.length > 0 ? { onPoll } : {}),
  })
  const deliveryJob = createWebhookDeliveryJob({ settings: options.webhooks, ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}) })
  const deliveries = new Worker({
    db,
    registry: new JobRegistry([deliveryJob]),
    log: log.child({ component: 'webhooks' }),
    concurrency: options.webhooks.concurrency,
    pollMs: options.worker.pollMs,
    staleAfterMs,
    ...liveness,
  })
  const all = [general, deliveries]
  return {
    ids: all.map((worker) => worker.id),
    start: () => all.forEach((worker) => worker.start()),
    stop: async () => {
      await Promise.all(all.map((worker) => worker.stop()))
    },
    drain: async () => {
      await Promise.all(all.map((worker) => worker.drain()))
    },
  }
}
