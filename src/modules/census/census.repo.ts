import { sql, type Insertable } from 'kysely'
import { executeNamed } from '../../db/prepared.js'
import { arrayLiteral } from '../../db/array-literal.js'
import type { CensusRequestsTable, Executor } from '../../db/schema.js'

/**
 * The SQL of a census submission (census.service.ts): what it reads before reconciling, and what
 * it writes in its transaction (the census request and its subscribers, the carrier's member ids,
 * the settled transactions, the link from resolved errors). Every function takes the executor
 * first. Reads of census requests for the API are in census-read.repo.ts.
 */

/** Rows per statement of the batched writes. */
const BATCH = 1000

// ---- Read before the transaction ----

export async function findCoveragePeriod(db: Executor, coveragePeriodId: string) {
  return db.selectFrom('coverage_periods').selectAll().where('id', '=', coveragePeriodId).executeTakeFirst()
}

/** The coverage period's latest census request: a census posted again with its content changes nothing. */
export async function latestCensusRequest(db: Executor, coveragePeriodId: string) {
  return db
    .selectFrom('census_requests')
    .select(['id', 'content_sha256'])
    .where('coverage_period_id', '=', coveragePeriodId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
}

/** The coverage period's plans, by which a census names them (id or external identifier). */
export async function planReferences(db: Executor, coveragePeriodId: string) {
  return db.selectFrom('plans').select(['id', 'external_identifier']).where('coverage_period_id', '=', coveragePeriodId).execute()
}

// ---- Written in the submission's transaction ----

export async function insertCensusRequest(tx: Executor, row: Insertable<CensusRequestsTable>): Promise<void> {
  await tx.insertInto('census_requests').values(row).execute()
}

export interface CensusSubscriberValues {
  matched_subscriber_id: string | null
  /** The subscriber's JSON as JSON.stringify writes it: on one line (it escapes line breaks inside strings). */
  data: string
}

/**
 * The census's subscribers, positioned in census order. A batch is one statement whose data
 * travels as one text, one subscriber's JSON per line, split by the database and each line stored
 * as its text (json, not jsonb: migrations/0018; a VALUES list of thousands of parameters cost more
 * to build, bind and plan than the rows cost to store). Lines, not a JSON array: the database then
 * parses each subscriber once, to check it as json, instead of the whole array twice (once to check
 * it, once more to split it).
 */
export async function insertCensusSubscribers(tx: Executor, censusRequestId: string, rows: readonly CensusSubscriberValues[], firstPosition = 0): Promise<void> {
  for (let start = 0; start < rows.length; start += BATCH) {
    await executeNamed(tx, censusSubscribersInsert({ censusRequestId, rows: rows.slice(start, start + BATCH), firstPosition: firstPosition + start }))
  }
}

/** Census subscribers to store, the first of them at `firstPosition`. */
export interface CensusSubscriberBatch {
  censusRequestId: string
  rows: readonly CensusSubscriberValues[]
  firstPosition: number
}

function censusSubscribersInsert({ censusRequestId, rows, firstPosition }: CensusSubscriberBatch) {
  const matched = arrayLiteral(rows.map((row) => row.matched_subscriber_id))
  return sql`
      INSERT INTO census_subscribers (census_request_id, position, matched_subscriber_id, data)
      SELECT ${censusRequestId}::uuid, ${firstPosition}::integer + d.ordinality::integer - 1, m.matched_subscriber_id, d.data::json
        FROM string_to_table(${rows.map((row) => row.data).join('\n')}::text, E'\\n') WITH ORDINALITY AS d(data, ordinality)
        JOIN unnest(${matched}::uuid[]) WITH ORDINALITY AS m(matched_subscriber_id, ordinality) USING (ordinality)`
}

/** Open reconciliation errors about a member, with what they are about. */
export async function openReconciliationErrors(tx: Executor, coveragePeriodId: string) {
  return tx
    .selectFrom('errors')
    .select(['dedupe_key', 'member_id', 'discrepancy_parameter'])
    .where('coverage_period_id', '=', coveragePeriodId)
    .where('source', '=', 'reconciliation')
    .where('status', '<>', 'resolved')
    .where('dedupe_key', 'is not', null)
    .where('member_id', 'is not', null)
    .execute()
}

/** Links errors to the census request that resolved them. */
export async function linkErrorsToCensus(tx: Executor, errorIds: readonly string[], censusRequestId: string): Promise<void> {
  for (let start = 0; start < errorIds.length; start += BATCH) {
    await tx.updateTable('errors').set({ census_request_id: censusRequestId }).where('id', 'in', errorIds.slice(start, start + BATCH)).execute()
  }
}

export interface CensusCounts {
  subscriber_count: number
  member_count: number
  matched_count: number
  discrepancy_count: number
  errors_created: number
  errors_reopened: number
  errors_resolved: number
}

/** Census-wide problems (plans the census names that the coverage period lacks). */
export async function recordCensusProblems(tx: Executor, censusRequestId: string, problems: readonly string[]): Promise<void> {
  if (problems.length > 0) await tx.updateTable('census_requests').set({ errors: JSON.stringify(problems) }).where('id', '=', censusRequestId).execute()
}

export async function recordCensusCounts(tx: Executor, censusRequestId: string, counts: CensusCounts): Promise<void> {
  await tx.updateTable('census_requests').set(counts).where('id', '=', censusRequestId).execute()
}

/** What the matching rules read of these subscribers (census-matching.repo.ts), in the order given. */
export async function subscriberIdentities(tx: Executor, ids: readonly string[]) {
  if (ids.length === 0) return []
  const rows = await executeNamed(tx, sql<{ id: string; carrier_member_id: string | null; ssn_hash: string | null; first_name: string; last_name: string; birth_date: string | null }>`
    SELECT id, carrier_member_id, ssn_hash, first_name, last_name, to_char(birth_date, 'YYYY-MM-DD') AS birth_date
      FROM members WHERE id = ANY(${arrayLiteral(ids)}::uuid[])`)
  const byId = new Map(rows.rows.map((row) => [row.id, row]))
  return ids.flatMap((id) => byId.get(id) ?? [])
}

export interface SettledTransaction {
  id: string
  subscriber_id: string
  status: 'synced' | 'errors'
  created_at: Date
}

function settleStatement(coveragePeriodId: string, subscriberIds: readonly string[], withErrors: readonly string[], now: Date) {
  return sql<SettledTransaction>`
    UPDATE member_transactions
       SET status = CASE WHEN subscriber_id = ANY(${arrayLiteral(withErrors)}::uuid[]) THEN 'errors' ELSE 'synced' END, completed_at = ${now}, updated_at = ${now}
     WHERE coverage_period_id = ${coveragePeriodId} AND status = 'submitted' AND subscriber_id = ANY(${arrayLiteral(subscriberIds)}::uuid[])
     RETURNING id, subscriber_id, status, created_at`
}

const inOrderMade = (rows: SettledTransaction[]) => rows.sort((a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

/**
 * Ends the families' transactions awaiting the carrier with the census's verdict: `errors` for the
 * families where a discrepancy remains, `synced` for the others. Answers the transactions ended,
 * in the order they were made.
 */
export async function settleTransactions(tx: Executor, coveragePeriodId: string, subscriberIds: readonly string[], withErrors: readonly string[], now: Date): Promise<SettledTransaction[]> {
  if (subscriberIds.length === 0) return []
  return inOrderMade((await executeNamed(tx, settleStatement(coveragePeriodId, subscriberIds, withErrors, now))).rows)
}

/**
 * A batch of census subscribers stored and the families' transactions settled (settleTransactions)
 * in one statement: the census's writes are what its one connection is busiest with, and each
 * statement waits for this process to read the last one's answer (bench/RESULTS.md, issue 16).
 */
export async function storeAndSettle(
  tx: Executor,
  batch: CensusSubscriberBatch,
  coveragePeriodId: string,
  subscriberIds: readonly string[],
  withErrors: readonly string[],
  now: Date,
): Promise<SettledTransaction[]> {
  if (batch.rows.length === 0 || batch.rows.length > BATCH || subscriberIds.length === 0) {
    await insertCensusSubscribers(tx, batch.censusRequestId, batch.rows, batch.firstPosition)
    return settleTransactions(tx, coveragePeriodId, subscriberIds, withErrors, now)
  }
  // A data-modifying WITH runs whether or not the statement reads it.
  const both = sql<SettledTransaction>`WITH stored AS (${censusSubscribersInsert(batch)}) ${settleStatement(coveragePeriodId, subscriberIds, withErrors, now)}`
  return inOrderMade((await executeNamed(tx, both)).rows)
}

/** One census of a coverage period at a time: two would each resolve what the other raises. */
export async function lockCoveragePeriodCensus(tx: Executor, coveragePeriodId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`census:${coveragePeriodId}`}, 0))`.execute(tx)
}
