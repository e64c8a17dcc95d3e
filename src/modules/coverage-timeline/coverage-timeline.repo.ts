import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { uuidv7 } from '../../lib/ids.js'
import { spanKey, type CoverageLevel, type LeveledSpan } from './coverage-timeline.model.js'

/** A stored span as the API answers it. */
export interface CoverageSpanRow {
  id: string
  member_id: string
  line: string
  plan_id: string
  coverage_period_id: string
  start_date: string
  end_date: string | null
  status: 'employer_sponsored' | 'cobra'
  volume: string | null
  coverage_level: string
  qualifying_life_event_id: string
}

const COLUMNS = sql`id, member_id, line, plan_id, coverage_period_id, to_char(start_date, 'YYYY-MM-DD') AS start_date,
  to_char(end_date, 'YYYY-MM-DD') AS end_date, status, volume::text AS volume, coverage_level, qualifying_life_event_id`

export function toSpan(row: CoverageSpanRow): LeveledSpan & { id: string } {
  return {
    id: row.id,
    memberId: row.member_id,
    line: row.line,
    planId: row.plan_id,
    coveragePeriodId: row.coverage_period_id,
    startDate: row.start_date,
    endDate: row.end_date,
    status: row.status,
    volume: row.volume === null ? null : Number(row.volume),
    coverageLevel: row.coverage_level as CoverageLevel,
    qualifyingLifeEventId: row.qualifying_life_event_id,
  }
}

/** The family's spans as they stand (not voided). */
export async function familySpans(db: Executor, subscriberId: string): Promise<(LeveledSpan & { id: string })[]> {
  const rows = await sql<CoverageSpanRow>`SELECT ${COLUMNS} FROM coverage_spans WHERE subscriber_id = ${subscriberId} AND voided_at IS NULL`.execute(db)
  return rows.rows.map(toSpan)
}

/**
 * A member's spans in force on `asOf` (one query on the member's partial index), or all of them
 * (`asOf` null), by line and start date.
 */
export async function memberSpans(db: Executor, memberId: string, asOf: string | null): Promise<CoverageSpanRow[]> {
  const rows = await sql<CoverageSpanRow>`
    SELECT ${COLUMNS} FROM coverage_spans
     WHERE member_id = ${memberId} AND voided_at IS NULL
       AND (${asOf}::date IS NULL OR (start_date <= ${asOf}::date AND (end_date IS NULL OR end_date >= ${asOf}::date)))
     ORDER BY line, start_date`.execute(db)
  return rows.rows
}

/**
 * Stores a family's new timeline: spans that still say the same stay as they are, the others are
 * voided by the event, and the new ones are inserted.
 */
export async function replaceFamilySpans(
  tx: Executor,
  target: { accountId: string; subscriberId: string; eventId: string; now: Date },
  before: readonly (LeveledSpan & { id: string })[],
  after: readonly LeveledSpan[],
): Promise<void> {
  const afterKeys = new Set(after.map(spanKey))
  const beforeKeys = new Set(before.map(spanKey))
  const voided = before.filter((span) => !afterKeys.has(spanKey(span))).map((span) => span.id)
  const inserted = after.filter((span) => !beforeKeys.has(spanKey(span)))
  if (voided.length > 0) {
    await tx
      .updateTable('coverage_spans')
      .set({ voided_at: target.now, voided_by_event_id: target.eventId })
      .where(sql<boolean>`id = any(${voided}::uuid[])`)
      .execute()
  }
  if (inserted.length > 0) {
    await tx
      .insertInto('coverage_spans')
      .values(
        inserted.map((span) => ({
          id: uuidv7(),
          account_id: target.accountId,
          subscriber_id: target.subscriberId,
          member_id: span.memberId,
          line: span.line,
          plan_id: span.planId,
          coverage_period_id: span.coveragePeriodId,
          start_date: span.startDate,
          end_date: span.endDate,
          status: span.status,
          volume: span.volume,
          coverage_level: span.coverageLevel,
          qualifying_life_event_id: span.qualifyingLifeEventId,
          created_at: target.now,
        })),
      )
      .execute()
  }
}
