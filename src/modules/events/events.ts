import { sql } from 'kysely'
import { Type } from 'typebox'
import type { Executor } from '../../db/schema.js'
import { defineJobSpec } from '../../jobs/job-definition.js'
import { enqueueJob } from '../../jobs/outbox.js'
import { uuidv7 } from '../../lib/ids.js'

/** Every event a watcher can subscribe to (api-contract.md section 6). */
export const EVENT_TYPES = [
  'error.created',
  'error.resolved',
  'error.returned',
  'error.commented',
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
 * The job that sends one delivery. Its handler needs run-time configuration (timeouts, the
 * retry schedule, whether private addresses are allowed), so the watchers module builds it from
 * this spec; producers only need the spec to enqueue.
 */
export const WEBHOOK_DELIVERY_JOB = defineJobSpec({
  name: 'webhook.deliver',
  payload: Type.Object({ delivery_id: Type.String() }),
  // One job runs one attempt and schedules the next itself; this only covers a worker dying
  // mid-attempt (the job is then released and run again).
  maxAttempts: 5,
})

/** The body every watcher receives, in the Standard Webhooks shape (`type`, `timestamp`, `data`). */
export interface EventPayload {
  id: string
  type: EventType
  timestamp: string
  data: DomainEvent['data']
}

/**
 * Records the event for every active watcher of the account that subscribed to it, and queues
 * their deliveries. Call it with the transaction of the change: the deliveries then exist
 * exactly when the change commits, so no event is lost and none is sent for a rolled-back change.
 * Answers how many deliveries were queued.
 */
export async function emitEvent(tx: Executor, event: DomainEvent, now: Date = new Date()): Promise<number> {
  const watchers = await tx
    .selectFrom('watchers')
    .select('id')
    .where('account_id', '=', event.accountId)
    .where('status', '=', 'active')
    .where('deleted_at', 'is', null)
    .where(sql<boolean>`${event.type} = any(event_types)`)
    .where((eb) => eb.or([eb('coverage_period_id', 'is', null), eb('coverage_period_id', '=', event.coveragePeriodId)]))
    .where((eb) => eb.or([eb('group_id', 'is', null), eb('group_id', '=', event.groupId)]))
    .execute()
  if (watchers.length === 0) return 0

  const payload: EventPayload = { id: uuidv7(), type: event.type, timestamp: now.toISOString(), data: event.data }
  const deliveries = watchers.map((watcher) => ({
    id: uuidv7(),
    account_id: event.accountId,
    watcher_id: watcher.id,
    event_id: payload.id,
    event_type: event.type,
    payload: JSON.stringify(payload),
    next_attempt_at: now,
    last_status_code: null,
    last_error: null,
    delivered_at: null,
    created_at: now,
    updated_at: now,
  }))
  await tx.insertInto('watcher_deliveries').values(deliveries).execute()
  for (const delivery of deliveries) await enqueueJob(tx, WEBHOOK_DELIVERY_JOB, { delivery_id: delivery.id }, { runAt: now })
  return deliveries.length
}
