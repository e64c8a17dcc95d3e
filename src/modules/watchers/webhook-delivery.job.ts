import type { Static } from 'typebox'
import type { Db } from '../../db/schema.js'
import { Batcher } from '../../jobs/batcher.js'
import { defineJob, type JobCompletion, type JobContext, type JobDefinition } from '../../jobs/job-definition.js'
import { writeAttemptRecords } from '../../jobs/jobs.repo.js'
import { enqueueJob, type JobFairness } from '../../jobs/outbox.js'
import { destinationOf } from '../../lib/destination.js'
import { systemActor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import { systemResolveHost, type ResolveHost } from '../../lib/outbound-url.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { orderedPayload, WEBHOOK_DELIVERY_JOB } from '../events/events.js'
import { recordDestinationAnswered, recordDestinationFailure } from './destination-health.repo.js'
import * as repo from './watcher-deliveries.repo.js'
import { nextAttemptAt, verdictOf, type Verdict } from './webhook-delivery.rules.js'
import { createReceiverConnections, sendWebhook, type SendResult } from './webhook-sender.js'
import { signatureHeader } from './webhook-signature.js'
import type { WebhookSettings } from './webhook-settings.js'

export const WEBHOOK_USER_AGENT = 'Enrollsync-Webhooks/1.0'

type Payload = Static<typeof WEBHOOK_DELIVERY_JOB.payload>

/** Whom a delivery's job is for and where it goes, for the fair claim (claimDueJobs). */
export function deliveryFairness(target: { account_id: string; url: string }): JobFairness {
  return { key: target.account_id, destination: destinationOf(target.url) }
}

function secretsInUse(target: repo.DeliveryTarget, now: Date): string[] {
  const previous = target.previous_secret && target.previous_secret_expires_at && target.previous_secret_expires_at > now ? [target.previous_secret] : []
  return [target.secret, ...previous]
}

/** A pending delivery whose watcher was deleted or disabled since it was queued: failed unsent. */
async function failUnsent(db: Db, target: repo.DeliveryTarget, reason: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const current = await repo.lockDelivery(tx, target.id)
    if (current?.status !== 'pending') return
    await repo.updateDelivery(tx, target.id, { status: 'failed', last_error: reason, next_attempt_at: null, updated_at: new Date() })
  })
}

interface AttemptOutcome {
  payload: Payload
  target: repo.DeliveryTarget
  result: SendResult
  verdict: Verdict
  startedAt: Date
  /** The job's own record, written in the same transaction. */
  completion: JobCompletion
}

type Recorded = Verdict['kind'] | 'superseded'

/**
 * Records attempts and their consequences in one transaction, for as many attempts as finished
 * together (a Batcher gathers them): the attempt rows, the deliveries' state, the next attempts'
 * jobs (new jobs with their own run_at), the watchers disabled after a 410, and each attempt's own
 * job recorded as succeeded (one job, one attempt: the job succeeded once its outcome is stored).
 * A delivery already past the attempt (a twin run of the job recorded it) is left alone.
 */
async function recordOutcomes(db: Db, settings: WebhookSettings, outcomes: readonly AttemptOutcome[]): Promise<Recorded[]> {
  return db.transaction().execute(async (tx) => {
    const locked = await repo.lockDeliveries(tx, outcomes.map((outcome) => outcome.target.id))
    const current = new Map(locked.map((row) => [row.id, row]))
    const now = new Date()
    const attempts: repo.NewAttempt[] = []
    const updates: repo.DeliveryUpdate[] = []
    const results: Recorded[] = []
    for (const { payload, target, result, verdict, startedAt } of outcomes) {
      const delivery = current.get(target.id)
      if (!delivery || delivery.status !== 'pending' || delivery.attempts >= payload.attempt) {
        results.push('superseded')
        continue
      }
      attempts.push({
        id: uuidv7(),
        delivery_id: target.id,
        attempt: payload.attempt,
        started_at: startedAt,
        duration_ms: result.durationMs,
        status_code: result.statusCode,
        error: verdict.kind === 'succeeded' ? null : verdict.error,
        outcome: verdict.kind === 'succeeded' ? 'succeeded' : 'failed',
      })
      const next = verdict.kind === 'retryable' && !payload.manual ? nextAttemptAt(settings.retryScheduleSeconds, payload.attempt, now) : null
      const status = verdict.kind === 'succeeded' ? 'succeeded' : next ? 'pending' : 'failed'
      const error = verdict.kind === 'succeeded' ? null : verdict.error
      updates.push({ id: target.id, attempts: payload.attempt, status, last_status_code: result.statusCode, last_error: error, next_attempt_at: next })
      // A twin of this attempt later in the batch finds it made.
      current.set(target.id, { ...delivery, status, attempts: payload.attempt })
      if (next) await enqueueJob(tx, WEBHOOK_DELIVERY_JOB, { delivery_id: target.id, attempt: payload.attempt + 1 }, { runAt: next, fairness: deliveryFairness(target) })
      if (verdict.kind === 'gone') {
        const accountId = await repo.disableWatcher(tx, target.watcher_id, 'the receiver answered 410 Gone', now)
        if (accountId) await recordAuditEvent(tx, systemActor(accountId), { accountId, action: 'watcher.disabled', resourceType: 'watcher', resourceId: target.watcher_id })
      }
      results.push(next ? 'retryable' : verdict.kind)
    }
    await repo.insertAttempts(tx, attempts)
    await repo.updateDeliveries(tx, updates, now)
    await writeAttemptRecords(tx, outcomes.map((outcome) => outcome.completion.succeeded()))
    return results
  })
}

/**
 * The reads and writes of concurrent attempts, gathered (see Batcher): each attempt's delivery is
 * read with the others claimed with it, outcomes are recorded together, and answers from the same
 * receiver are reported once per batch. One set per database handle.
 */
interface DeliveryBatches {
  targets: Batcher<string, repo.DeliveryTarget | undefined>
  outcomes: Batcher<AttemptOutcome, Recorded>
  answered: Batcher<string, void>
}

function createDeliveryBatches(db: Db, settings: WebhookSettings): DeliveryBatches {
  return {
    targets: new Batcher(
      async (ids) => {
        const found = await repo.deliveryTargets(db, ids)
        return ids.map((id) => found.get(id))
      },
      { maxBatch: 200, maxInFlight: 2 },
    ),
    outcomes: new Batcher((outcomes) => recordOutcomes(db, settings, outcomes), { maxBatch: 200, maxInFlight: 1 }),
    answered: new Batcher<string, void>(
      async (destinations) => {
        for (const destination of new Set(destinations)) await recordDestinationAnswered(db, destination)
        return destinations.map(() => undefined)
      },
      { maxBatch: 200, maxInFlight: 1 },
    ),
  }
}

/**
 * Tells the claim how the receiver's origin answered: any status clears it; no answer (connection
 * failure, timeout) counts towards backing it off for all its deliveries. A refused address says
 * nothing about the receiver. A failure to record is logged: the attempt itself is recorded.
 */
async function reportDestinationHealth(db: Db, batches: DeliveryBatches, settings: WebhookSettings, url: string, result: SendResult, log: JobContext['log']): Promise<void> {
  const destination = destinationOf(url)
  if (!destination || result.refused) return
  try {
    if (result.statusCode !== null) return await batches.answered.add(destination)
    const blockedUntil = await recordDestinationFailure(db, destination, result.error ?? 'no response', {
      threshold: settings.hostFailureThreshold,
      firstBlockSeconds: settings.hostBackoffSeconds,
    })
    // The origin only (never the URL's path or query, which may hold a token).
    if (blockedUntil) log.warn({ destination, blockedUntil }, 'webhook destination backed off')
  } catch (error) {
    log.error({ err: error }, 'could not record how a webhook destination answered')
  }
}

export interface WebhookDeliveryJobDeps {
  settings: WebhookSettings
  /** The system resolver unless given (tests point host names at their own receivers). */
  resolveHost?: ResolveHost
}

/**
 * The `webhook.deliver` handler: one job, one attempt. Sends the stored payload signed with the
 * watcher's secrets (Standard Webhooks headers) and records the outcome. No transaction is open
 * while the receiver is waited on. A worker dying mid-attempt leaves the job running; it is
 * released once the worker has been silent for WORKER_DEAD_AFTER_MS (WORKER_STALE_AFTER_MS for a
 * worker without a heartbeat) and sent again (at least once; the webhook-id lets the
 * receiver drop the copy).
 */
export function createWebhookDeliveryJob({ settings, resolveHost = systemResolveHost }: WebhookDeliveryJobDeps): JobDefinition<typeof WEBHOOK_DELIVERY_JOB.payload> {
  const policy = { allowPrivate: settings.allowPrivateUrls, allowLoopback: settings.allowLoopbackUrls, resolve: resolveHost }
  // Kept alive between deliveries: a connection per delivery cost the worker a connect and a close,
  // and the receiver about half its CPU per delivery (bench/RESULTS.md, issue 16). No more
  // connections to one receiver than there are slots.
  const connections = createReceiverConnections(settings.concurrency)
  const batchesByDb = new WeakMap<Db, DeliveryBatches>()
  const batchesOf = (db: Db): DeliveryBatches => {
    let batches = batchesByDb.get(db)
    if (!batches) batchesByDb.set(db, (batches = createDeliveryBatches(db, settings)))
    return batches
  }
  return defineJob({
    name: WEBHOOK_DELIVERY_JOB.name,
    payload: WEBHOOK_DELIVERY_JOB.payload,
    maxAttempts: WEBHOOK_DELIVERY_JOB.maxAttempts,
    async handle(payload: Payload, { db, log, completion }: JobContext) {
      const batches = batchesOf(db)
      const target = await batches.targets.add(payload.delivery_id)
      // Gone, finished, or this attempt already made: a duplicate or superseded job.
      if (!target || target.status !== 'pending' || target.attempts >= payload.attempt) return
      if (target.watcher_deleted_at) return failUnsent(db, target, 'not sent: the watcher was deleted')
      if (target.watcher_status !== 'active') return failUnsent(db, target, `not sent: the watcher is disabled (${target.disabled_reason ?? 'no reason given'})`)

      const startedAt = new Date()
      const timestamp = Math.floor(startedAt.getTime() / 1000)
      const body = JSON.stringify(orderedPayload(target.payload))
      const result = await sendWebhook(
        {
          url: target.url,
          body,
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': WEBHOOK_USER_AGENT,
            'webhook-id': target.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signatureHeader(secretsInUse(target, startedAt), target.id, timestamp, body),
          },
        },
        { timeoutMs: settings.timeoutMs, policy, connections },
      )
      const verdict = verdictOf(result)
      // The receiver's health and the attempt's outcome are independent writes: made side by side,
      // the slot is held one round trip less (reportDestinationHealth never throws).
      const health = reportDestinationHealth(db, batches, settings, target.url, result, log)
      const recorded = await batches.outcomes.add({ payload, target, result, verdict, startedAt, completion }).finally(() => health)
      completion.committed()
      // Neither the URL (it may hold a token) nor any header is logged.
      log.info(
        { deliveryId: target.id, watcherId: target.watcher_id, attempt: payload.attempt, statusCode: result.statusCode, ms: result.durationMs, outcome: recorded },
        'webhook attempt',
      )
    },
  })
}
