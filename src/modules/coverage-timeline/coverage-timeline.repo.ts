import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { prepare } from '../../db/prepared.js'
import { uuidv7 } from '../../lib/ids.js'
import { spanKey, type CoverageLevel, type LeveledSpan } from './coverage-timeline.model.js'

/** A stored span as read back. */
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

/**
 * GET /members/{id}/coverages as JSON text PostgreSQL builds in one prepared statement (the
 * member's scope check and its spans on the member's partial index), like subscriber-document.ts:
 * the read is on a client's hot path. Mirrors presentCoverage field for field; the route test
 * checks the answers against the response schema. `asOf` null: the whole history.
 */
const coveragesJson = (asOf: string) => sql<string>`json_build_object(
  'as_of', ${asOf}::text,
  'coverages', coalesce((
    select json_agg(json_build_object(
      'id', s.id, 'member_id', s.member_id, 'line', s.line, 'plan_id', s.plan_id, 'coverage_period_id', s.coverage_period_id,
      'start_date', s.start_date, 'end_date', s.end_date, 'status', s.status, 'volume', s.volume, 'coverage_level', s.coverage_level,
      'qualifying_life_event_id', s.qualifying_life_event_id) order by s.line, s.start_date)
      from coverage_spans s
     where s.member_id = m.id and s.voided_at is null
       and (${asOf}::date is null or (s.start_date <= ${asOf}::date and (s.end_date is null or s.end_date >= ${asOf}::date)))),
    '[]'::json))::text`

const coveragesInAccount = prepare<{ body: string }, [id: string, asOf: string | null, accountId: string]>(3, (db, [id, asOf, accountId]) =>
  db.selectFrom('members as m').select(coveragesJson(asOf!).as('body')).where('m.id', '=', id!).where('m.account_id', '=', accountId!),
)
const coveragesAnyAccount = prepare<{ body: string }, [id: string, asOf: string | null]>(2, (db, [id, asOf]) =>
  db.selectFrom('members as m').select(coveragesJson(asOf!).as('body')).where('m.id', '=', id!),
)

/** The answer as JSON text, or undefined when no such member is in scope. */
export async function memberCoveragesDocument(db: Executor, scope: string | null, memberId: string, asOf: string | null): Promise<string | undefined> {
  const rows = scope ? await coveragesInAccount(db, memberId, asOf, scope) : await coveragesAnyAccount(db, memberId, asOf)
  return rows[0]?.body
}
