import type { Static } from 'typebox'
import type { Db } from '../../db/schema.js'
import { defineJob, type JobContext, type JobDefinition } from '../../jobs/job-definition.js'
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
import { sendWebhook, type SendResult } from './webhook-sender.js'
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
}

/**
 * Records the attempt and its consequences in one transaction: the attempt row, the delivery's
 * state, the next attempt's job (a new job with its own run_at) and, after a 410, the disabled
 * watcher. A delivery already past this attempt (a twin run of the job recorded it) is left alone.
 */
async function recordOutcome(db: Db, settings: WebhookSettings, { payload, target, result, verdict, startedAt }: AttemptOutcome): Promise<Verdict['kind'] | 'superseded'> {
  return db.transaction().execute(async (tx) => {
    const current = await repo.lockDelivery(tx, target.id)
    if (!current || current.status !== 'pending' || current.attempts >= payload.attempt) return 'superseded'
    const now = new Date()
    await repo.insertAttempt(tx, {
      id: uuidv7(),
      delivery_id: target.id,
      attempt: payload.attempt,
      started_at: startedAt,
      duration_ms: result.durationMs,
      status_code: result.statusCode,
      error: verdict.kind === 'succeeded' ? null : verdict.error,
      outcome: verdict.kind === 'succeeded' ? 'succeeded' : 'failed',
    })
    const common = { attempts: payload.attempt, last_status_code: result.statusCode, updated_at: now }
    if (verdict.kind === 'succeeded') {
      await repo.updateDelivery(tx, target.id, { ...common, status: 'succeeded', last_error: null, delivered_at: now, next_attempt_at: null })
      return verdict.kind
    }
    const next = verdict.kind === 'retryable' && !payload.manual ? nextAttemptAt(settings.retryScheduleSeconds, payload.attempt, now) : null
    await repo.updateDelivery(tx, target.id, { ...common, status: next ? 'pending' : 'failed', last_error: verdict.error, next_attempt_at: next })
    if (next) await enqueueJob(tx, WEBHOOK_DELIVERY_JOB, { delivery_id: target.id, attempt: payload.attempt + 1 }, { runAt: next, fairness: deliveryFairness(target) })
    if (verdict.kind === 'gone') {
      const accountId = await repo.disableWatcher(tx, target.watcher_id, 'the receiver answered 410 Gone', now)
      if (accountId) await recordAuditEvent(tx, systemActor(accountId), { accountId, action: 'watcher.disabled', resourceType: 'watcher', resourceId: target.watcher_id })
    }
    return next ? 'retryable' : verdict.kind
  })
}

/**
 * Tells the claim how the receiver's origin answered: any status clears it; no answer (connection
 * failure, timeout) counts towards backing it off for all its deliveries. A refused address says
 * nothing about the receiver. A failure to record is logged: the attempt itself is recorded.
 */
async function reportDestinationHealth(db: Db, settings: WebhookSettings, url: string, result: SendResult, log: JobContext['log']): Promise<void> {
  const destination = destinationOf(url)
  if (!destination || result.refused) return
  try {
    if (result.statusCode !== null) return await recordDestinationAnswered(db, destination)
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
  return defineJob({
    name: WEBHOOK_DELIVERY_JOB.name,
    payload: WEBHOOK_DELIVERY_JOB.payload,
    maxAttempts: WEBHOOK_DELIVERY_JOB.maxAttempts,
    async handle(payload: Payload, { db, log }: JobContext) {
      const target = await repo.deliveryTarget(db, payload.delivery_id)
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
        { timeoutMs: settings.timeoutMs, policy },
      )
      const verdict = verdictOf(result)
      const recorded = await recordOutcome(db, settings, { payload, target, result, verdict, startedAt })
      await reportDestinationHealth(db, settings, target.url, result, log)
      // Neither the URL (it may hold a token) nor any header is logged.
      log.info(
        { deliveryId: target.id, watcherId: target.watcher_id, attempt: payload.attempt, statusCode: result.statusCode, ms: result.durationMs, outcome: recorded },
        'webhook attempt',
      )
    },
  })
}
