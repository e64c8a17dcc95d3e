import { sql } from 'kysely'
import { Type } from 'typebox'
import type { Executor } from '../../db/schema.js'
import { defineJobSpec } from '../../jobs/job-definition.js'
import { enqueueJobs, type JobFairness } from '../../jobs/outbox.js'
import { destinationOf } from '../../lib/destination.js'
import { uuidv7 } from '../../lib/ids.js'

/** Every event a watcher can subscribe to (api-contract.md section 6). */
export const EVENT_TYPES = [
  'error.created',
  'error.resolved',
  'error.returned',
  'error.commented',
  'error.assigned',
  'coverage_period.state_changed',
  'work_order.status_changed',
  'census_request.completed',
  'subscriber.status_changed',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

/**
 * Something that happened to an account's data. `data` carries ids, types, statuses and the
 * assignee only: never a name, SSN, birth date or any other personal value, because it leaves
 * the service in webhooks.
 */
export interface DomainEvent {
  type: EventType
  accountId: string
  /** Lets watchers narrowed to a coverage period or group receive only theirs. */
  coveragePeriodId: string | null
  groupId: string | null
  data: Record<string, string | number | boolean | null | readonly string[]>
}

/**
 * The job that sends one delivery attempt. Its handler needs run-time configuration (timeouts,
 * the retry schedule, whether private addresses are allowed), so the watchers module builds it
 * from this spec (webhook-delivery.job.ts); producers only need the spec to enqueue.
 * `attempt` is the attempt this job makes: a job finding the delivery past it (its attempt was
 * already recorded) does nothing, so a job run twice sends at most one extra copy. `manual` marks
 * an attempt asked for through POST /watcher_deliveries/{id}/retry: one attempt, no schedule.
 */
export const WEBHOOK_DELIVERY_JOB = defineJobSpec({
  name: 'webhook.deliver',
  payload: Type.Object(
    { delivery_id: Type.String(), attempt: Type.Integer({ minimum: 1 }), manual: Type.Optional(Type.Boolean()) },
    { additionalProperties: false },
  ),
  // One job runs one attempt and schedules the next itself; this only covers a worker dying
  // mid-attempt (the job is then released and run again).
  maxAttempts: 5,
})

/**
 * The body every watcher receives, in the Standard Webhooks shape (`type`, `timestamp`, `data`),
 * plus the event id (the same in every watcher's delivery) and the account the event concerns
 * (an operator's watchers receive the events of every account).
 */
export interface EventPayload {
  id: string
  type: EventType
  timestamp: string
  account_id: string
  data: DomainEvent['data']
}

/**
 * A stored payload with its keys in the documented order: jsonb keeps keys in an order of its own,
 * and the body sent (and shown by the API) should read `id, type, timestamp, account_id, data`.
 */
export function orderedPayload(stored: unknown): EventPayload {
  const { id, type, timestamp, account_id, data } = stored as EventPayload
  return { id, type, timestamp, account_id, data }
}

// Data keys that would name personal values; a caller using one is a bug, found by its tests.
const PERSONAL_KEY = /ssn|social_security|birth|first_name|middle_name|last_name|email|phone|address/i
// Values shaped like an SSN or a date (a birth date cannot be told apart from other dates).
const PERSONAL_VALUE = /^\s*(\d{3}-?\d{2}-?\d{4}|\d{4}-\d{2}-\d{2})\s*$/
export const REDACTED = '[redacted]'

/**
 * The event data as it may leave the service. Throws on a key naming a personal field (a
 * programming error); replaces SSN- and date-shaped strings with "[redacted]", because such a
 * value may come from a client (an identifier) and must neither leak nor fail the change.
 */
export function webhookSafeData(data: DomainEvent['data']): DomainEvent['data'] {
  const scrub = (value: string) => (PERSONAL_VALUE.test(value) ? REDACTED : value)
  const safe: DomainEvent['data'] = {}
  for (const [key, value] of Object.entries(data)) {
    if (PERSONAL_KEY.test(key)) throw new Error(`Event data must not carry personal fields (${key}); send ids and statuses only`)
    safe[key] = typeof value === 'string' ? scrub(value) : Array.isArray(value) ? value.map(scrub) : value
  }
  return safe
}

/**
 * Records the event in the event log (read by GET /events/stream) and for every active watcher
 * that subscribed to its type, and queues their deliveries. The watchers are the account's own and those of every operator (service) account,
 * which receive the events of all accounts; either kind narrowed to a coverage period or a group
 * receives only the events of that one. Call it with the transaction of the change: the
 * deliveries then exist exactly when the change commits, so no event is lost and none is sent
 * for a rolled-back change. Each delivery belongs to its watcher's account. Answers how many
 * deliveries were queued.
 */
export async function emitEvent(tx: Executor, event: DomainEvent, now: Date = new Date()): Promise<number> {
  return emitEvents(tx, [event], now)
}

const DELIVERY_INSERT_BATCH = 1000
// Seven parameters a row: 1000 rows stay far below PostgreSQL's 65,535 parameters a statement.
const EVENT_LOG_INSERT_BATCH = 1000

/**
 * emitEvent for many events at once (a reconciliation, an installation touching every family):
 * one query finds the watchers that may want any of them, and deliveries and their jobs go in
 * multi-row inserts.
 */
export async function emitEvents(tx: Executor, events: readonly DomainEvent[], now: Date = new Date()): Promise<number> {
  if (events.length === 0) return 0
  // Every event gets its payload (and id) here, once: the event log and each watcher's delivery
  // carry the same id, so a client reading both can tell the copies of one event apart.
  const payloads = events.map((event): EventPayload => ({
    id: uuidv7(),
    type: event.type,
    timestamp: now.toISOString(),
    account_id: event.accountId,
    data: webhookSafeData(event.data),
  }))
  const bodies = payloads.map((payload) => JSON.stringify(payload))
  await appendToEventLog(tx, events, payloads, bodies, now)
  const types = [...new Set(events.map((event) => event.type))]
  const accountIds = [...new Set(events.map((event) => event.accountId))]
  const watchers = await tx
    .selectFrom('watchers')
    .innerJoin('accounts', 'accounts.id', 'watchers.account_id')
    .select(['watchers.id', 'watchers.account_id', 'watchers.url', 'watchers.event_types', 'watchers.coverage_period_id', 'watchers.group_id', 'accounts.kind'])
    .where((eb) => eb.or([eb('watchers.account_id', 'in', accountIds), eb('accounts.kind', '=', 'service')]))
    .where('watchers.status', '=', 'active')
    .where('watchers.deleted_at', 'is', null)
    .where(sql<boolean>`watchers.event_types && ${types}::text[]`)
    .orderBy('watchers.id')
    .execute()
  if (watchers.length === 0) return 0

  const deliveries = []
  // Each delivery's job names its account and receiver, so the claim shares slots fairly (issue 15).
  const fairness = new Map<string, JobFairness>()
  for (const [index, event] of events.entries()) {
    const wanting = watchers.filter(
      (w) =>
        (w.account_id === event.accountId || w.kind === 'service') &&
        w.event_types.includes(event.type) &&
        (w.coverage_period_id === null || w.coverage_period_id === event.coveragePeriodId) &&
        (w.group_id === null || w.group_id === event.groupId),
    )
    if (wanting.length === 0) continue
    const payload = payloads[index]!
    const body = bodies[index]!
    for (const watcher of wanting) {
      const id = uuidv7()
      fairness.set(id, { key: watcher.account_id, destination: destinationOf(watcher.url) })
      deliveries.push({
        id,
        account_id: watcher.account_id,
        watcher_id: watcher.id,
        event_id: payload.id,
        event_type: event.type,
        payload: body,
        next_attempt_at: now,
        last_status_code: null,
        last_error: null,
        delivered_at: null,
        created_at: now,
        updated_at: now,
      })
    }
  }
  for (let start = 0; start < deliveries.length; start += DELIVERY_INSERT_BATCH) {
    await tx.insertInto('watcher_deliveries').values(deliveries.slice(start, start + DELIVERY_INSERT_BATCH)).execute()
  }
  await enqueueJobs(tx, WEBHOOK_DELIVERY_JOB, deliveries.map((delivery) => ({ delivery_id: delivery.id, attempt: 1 })), {
    runAt: now,
    fairness: (payload) => fairness.get(payload.delivery_id)!,
  })
  return deliveries.length
}

/**
 * Every event, wanted by a watcher or not, goes to the event log in the caller's transaction: it
 * appears to GET /events/stream exactly when the change commits. tx_id and seq take their defaults
 * (the transaction's id, the next number), which make the stream's cursor.
 */
async function appendToEventLog(
  tx: Executor,
  events: readonly DomainEvent[],
  payloads: readonly EventPayload[],
  bodies: readonly string[],
  now: Date,
): Promise<void> {
  const rows = events.map((event, index) => ({
    id: payloads[index]!.id,
    account_id: event.accountId,
    coverage_period_id: event.coveragePeriodId,
    group_id: event.groupId,
    type: event.type,
    payload: bodies[index]!,
    created_at: now,
  }))
  for (let start = 0; start < rows.length; start += EVENT_LOG_INSERT_BATCH) {
    await tx.insertInto('event_log').values(rows.slice(start, start + EVENT_LOG_INSERT_BATCH)).execute()
  }
}
