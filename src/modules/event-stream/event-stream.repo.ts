import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import type { EventType } from '../events/events.js'
import type { EventCursor } from './event-cursor.js'

/** One row of the event log as a stream needs it: where it is, whom it concerns, what to send. */
export interface LoggedEvent {
  cursor: EventCursor
  accountId: string
  coveragePeriodId: string | null
  groupId: string | null
  type: EventType
  /** The webhook body's JSON text, sent as the SSE data as it is. */
  payload: string
}

/**
 * Which events a stream receives, the way watchers select theirs: one account's (a partner) or
 * every account's (an operator, accountId undefined), optionally narrowed by type, coverage period
 * and group.
 */
export interface EventFilter {
  accountId: string | undefined
  types: readonly EventType[] | undefined
  coveragePeriodId: string | undefined
  groupId: string | undefined
}

export const EVERY_EVENT: EventFilter = Object.freeze({ accountId: undefined, types: undefined, coveragePeriodId: undefined, groupId: undefined })

/**
 * The first `limit` events after `after` that the filter selects, in cursor order, of ended
 * transactions only: tx_id below the oldest transaction still running (pg_snapshot_xmin), so
 * nothing can commit later with a cursor before the last one read. An event of a transaction
 * still running waits for it to end, and so do the events committed after that transaction began.
 */
export async function readEventsAfter(db: Executor, after: EventCursor, filter: EventFilter, limit: number): Promise<LoggedEvent[]> {
  let query = db
    .selectFrom('event_log')
    .select(['tx_id', 'seq', 'account_id', 'coverage_period_id', 'group_id', 'type', sql<string>`payload::text`.as('payload')])
    .where(sql<boolean>`(tx_id, seq) > (${after.txId.toString()}::xid8, ${after.seq.toString()}::bigint)`)
    .where(sql<boolean>`tx_id < pg_snapshot_xmin(pg_current_snapshot())`)
  if (filter.accountId !== undefined) query = query.where('account_id', '=', filter.accountId)
  if (filter.types !== undefined) query = query.where('type', 'in', filter.types)
  if (filter.coveragePeriodId !== undefined) query = query.where('coverage_period_id', '=', filter.coveragePeriodId)
  if (filter.groupId !== undefined) query = query.where('group_id', '=', filter.groupId)
  const rows = await query.orderBy('tx_id').orderBy('seq').limit(limit).execute()
  return rows.map((row) => ({
    cursor: { txId: BigInt(row.tx_id), seq: BigInt(row.seq) },
    accountId: row.account_id,
    coveragePeriodId: row.coverage_period_id,
    groupId: row.group_id,
    // Only emitEvents writes the log, with an EventType.
    type: row.type as EventType,
    payload: row.payload,
  }))
}

/**
 * Where the log stands now: `start` is "only new events" (every event of a transaction that ended
 * before the oldest one still running lies before it), `next` the next transaction id, beyond
 * which no cursor this database handed out can lie.
 */
export async function readLogHorizon(db: Executor): Promise<{ start: EventCursor; next: bigint }> {
  const result = await sql<{ xmin: string; xmax: string }>`
    with now as (select pg_current_snapshot() as snapshot)
    select pg_snapshot_xmin(snapshot)::text as xmin, pg_snapshot_xmax(snapshot)::text as xmax from now`.execute(db)
  const row = result.rows[0]!
  return { start: { txId: BigInt(row.xmin), seq: 0n }, next: BigInt(row.xmax) }
}

/** Retention (housekeeping): events older than `olderThan` are deleted. Answers how many. */
export async function purgeEventLog(db: Executor, olderThan: Date): Promise<number> {
  const result = await db.deleteFrom('event_log').where('created_at', '<', olderThan).executeTakeFirst()
  return Number(result.numDeletedRows)
}
