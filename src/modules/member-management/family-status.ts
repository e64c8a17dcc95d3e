import { sql } from 'kysely'
import type { Executor, TransactionStatus } from '../../db/schema.js'
import { emitEvents, type DomainEvent } from '../events/events.js'

/** A family whose transactions changed, and the coverage period they concern (for watchers narrowed to one). */
export interface FamilyTouched {
  subscriberId: string
  coveragePeriodId: string
}

/**
 * Sets each family's status (subscriber and dependents) to the status of its latest transaction
 * and emits subscriber.status_changed for each subscriber whose status moved. Called in the
 * transaction that changed the transactions, so the status and the event commit with them.
 */
export async function refreshFamilyStatuses(tx: Executor, families: readonly FamilyTouched[], now: Date): Promise<number> {
  if (families.length === 0) return 0
  const coveragePeriodOf = new Map(families.map((family) => [family.subscriberId, family.coveragePeriodId]))
  const ids = [...coveragePeriodOf.keys()]
  const changed = await sql<{ id: string; account_id: string; group_id: string; previous: TransactionStatus; status: TransactionStatus }>`
    UPDATE members m SET status = x.status
      FROM (
        SELECT DISTINCT ON (t.subscriber_id) t.subscriber_id, t.status, s.status AS previous
          FROM member_transactions t JOIN members s ON s.id = t.subscriber_id
         WHERE t.subscriber_id = ANY(${ids}::uuid[])
         ORDER BY t.subscriber_id, t.created_at DESC, t.id DESC
      ) x
     WHERE m.id = x.subscriber_id AND m.status <> x.status
    RETURNING m.id, m.account_id, m.group_id, x.previous, x.status`.execute(tx)
  if (changed.rows.length === 0) return 0
  await sql`
    UPDATE members d SET status = s.status
      FROM members s
     WHERE d.subscriber_id = s.id AND s.id = ANY(${changed.rows.map((row) => row.id)}::uuid[]) AND d.status <> s.status`.execute(tx)
  const events: DomainEvent[] = changed.rows.map((row) => ({
    type: 'subscriber.status_changed',
    accountId: row.account_id,
    coveragePeriodId: coveragePeriodOf.get(row.id) ?? null,
    groupId: row.group_id,
    data: { subscriber_id: row.id, group_id: row.group_id, coverage_period_id: coveragePeriodOf.get(row.id) ?? null, previous_status: row.previous, status: row.status },
  }))
  await emitEvents(tx, events, now)
  return changed.rows.length
}
