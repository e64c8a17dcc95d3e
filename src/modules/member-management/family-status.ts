import { sql, type RawBuilder } from 'kysely'
import { executeNamed, NAMED_LIST_MAX } from '../../db/prepared.js'
import { arrayLiteral } from '../../db/array-literal.js'
import type { Executor, TransactionStatus } from '../../db/schema.js'
import { emitEvents, type DomainEvent } from '../events/events.js'

/** A family whose transactions changed, and the coverage period they concern (for watchers narrowed to one). */
export interface FamilyTouched {
  subscriberId: string
  coveragePeriodId: string
}

/**
 * Which families to refresh: a list, or every family with a transaction in one delivery (an
 * installation's 50,000), which stays in the database instead of travelling to this process.
 */
export type FamilySelection = readonly FamilyTouched[] | { fileDeliveryId: string }

const EVENT_TYPE = 'subscriber.status_changed'

/** Carrier member ids to write with the statuses (a census learns them for the same families). */
export interface LearntCarrierMemberId {
  memberId: string
  carrierMemberId: string
}

/**
 * Sets each family's status (subscriber and dependents) to the status of its latest transaction
 * and emits subscriber.status_changed for each subscriber whose status moved. Called in the
 * transaction that changed the transactions, so the status and the event commit with them.
 * Only the subscribers someone watches come back from the UPDATE (when nobody watches that
 * event, no row is sent back). Answers the number of events emitted.
 */
export async function refreshFamilyStatuses(tx: Executor, selection: FamilySelection, now: Date, options: { carrierMemberIds?: readonly LearntCarrierMemberId[] } = {}): Promise<number> {
  const learnt = options.carrierMemberIds ?? []
  let families: RawBuilder<unknown>
  if ('fileDeliveryId' in selection) {
    families = sql`SELECT DISTINCT subscriber_id, coverage_period_id FROM member_transactions WHERE file_delivery_id = ${selection.fileDeliveryId}`
  } else {
    const unique = new Map(selection.map((family) => [family.subscriberId, family.coveragePeriodId]))
    families = sql`SELECT * FROM unnest(${arrayLiteral([...unique.keys()])}::uuid[], ${arrayLiteral([...unique.values()])}::uuid[]) AS f(subscriber_id, coverage_period_id)`
    if (unique.size === 0 && learnt.length === 0) return 0
  }

  // One UPDATE of members for the statuses and the learnt carrier ids: each member row is
  // rewritten once, not once per change (a census settles and learns for the same 125,000).
  // A list of a batch's size (a census's 250 families) is repeated bulk work: a named statement. A
  // delivery's families, or a longer list, are planned for their size, not with a generic plan
  // made for another (executeNamed).
  const named = !('fileDeliveryId' in selection) && selection.length <= NAMED_LIST_MAX
  const changed = await executeNamed(tx, sql<{ id: string; account_id: string; group_id: string; coverage_period_id: string; previous: TransactionStatus; status: TransactionStatus }>`
    WITH families AS (${families}),
    latest AS (
      SELECT DISTINCT ON (t.subscriber_id) t.subscriber_id, t.status, f.coverage_period_id
        FROM member_transactions t JOIN families f ON f.subscriber_id = t.subscriber_id
       ORDER BY t.subscriber_id, t.created_at DESC, t.id DESC
    ),
    restatus AS (
      SELECT m.id, m.status AS previous, l.status, l.coverage_period_id FROM latest l JOIN members m ON m.id = l.subscriber_id WHERE m.status <> l.status
      UNION ALL
      SELECT d.id, d.status, l.status, l.coverage_period_id FROM latest l JOIN members d ON d.subscriber_id = l.subscriber_id WHERE d.status <> l.status
    ),
    learnt AS (SELECT * FROM unnest(${arrayLiteral(learnt.map((m) => m.memberId))}::uuid[], ${arrayLiteral(learnt.map((m) => m.carrierMemberId))}::text[]) AS x(id, carrier_member_id)),
    changes AS (
      SELECT coalesce(r.id, x.id) AS id, r.previous, r.status, r.coverage_period_id, x.carrier_member_id
        FROM restatus r FULL JOIN learnt x ON x.id = r.id
    ),
    updated AS (
      UPDATE members m SET status = coalesce(c.status, m.status), carrier_member_id = coalesce(c.carrier_member_id, m.carrier_member_id)
        FROM changes c
       WHERE m.id = c.id
      RETURNING m.id, m.kind, m.account_id, m.group_id, c.coverage_period_id, c.previous, m.status
    ),
    -- Only the subscribers someone watches (a watcher of their account, or any operator's) come
    -- back, to be told; checked here, not in a statement of its own (a census refreshes 200 batches).
    watching AS (
      SELECT DISTINCT w.account_id, a.kind FROM watchers w JOIN accounts a ON a.id = w.account_id
       WHERE w.status = 'active' AND w.deleted_at IS NULL AND ${EVENT_TYPE} = ANY(w.event_types)
    )
    SELECT u.id, u.account_id, u.group_id, u.coverage_period_id, u.previous, u.status FROM updated u
     WHERE u.kind = 'subscriber' AND u.previous IS NOT NULL
       AND EXISTS (SELECT 1 FROM watching w WHERE w.kind = 'service' OR w.account_id = u.account_id)`,
    named,
  )
  const events: DomainEvent[] = changed.rows.map((row) => ({
    type: EVENT_TYPE,
    accountId: row.account_id,
    coveragePeriodId: row.coverage_period_id,
    groupId: row.group_id,
    data: { subscriber_id: row.id, group_id: row.group_id, coverage_period_id: row.coverage_period_id, previous_status: row.previous, status: row.status },
  }))
  await emitEvents(tx, events, now)
  return changed.rows.length
}
