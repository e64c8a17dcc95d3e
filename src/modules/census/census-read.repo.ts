import type { Selectable } from 'kysely'
import { sql } from 'kysely'
import { selectPage } from '../../db/paging.js'
import type { CensusRequestsTable, Executor } from '../../db/schema.js'
import { offsetOf, type PageRequest } from '../../http/pagination.js'
import type { AccountScope } from '../../lib/actor.js'
import type { CensusRequest, CensusRequestsFilters } from './census.schema.js'

// Reads of census requests and their subscribers; census.repo.ts writes them.

const CENSUS_COLUMNS = [
  'id',
  'coverage_period_id',
  'group_id',
  'status',
  'format',
  'as_of',
  'submitted_by',
  'subscriber_count',
  'member_count',
  'matched_count',
  'discrepancy_count',
  'errors_created',
  'errors_reopened',
  'errors_resolved',
  'errors',
  'created_at',
  'completed_at',
] as const satisfies readonly (keyof CensusRequestsTable)[]

type CensusReadRow = Pick<Selectable<CensusRequestsTable>, (typeof CENSUS_COLUMNS)[number]>

export function presentCensusRequest(row: CensusReadRow): CensusRequest {
  return {
    ...row,
    errors: Array.isArray(row.errors) ? row.errors : [],
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
  }
}

/** Newest first. The caller has found the coverage period in the actor's scope. */
export async function listCensusRequests(db: Executor, coveragePeriodId: string, filters: CensusRequestsFilters, pageReq: PageRequest) {
  let query = db.selectFrom('census_requests').where('coverage_period_id', '=', coveragePeriodId)
  if (filters.asOf) query = query.where('as_of', '=', filters.asOf)
  const { items, total } = await selectPage(query, pageReq, (q) => q.select(CENSUS_COLUMNS), 'desc')
  return { items: items.map(presentCensusRequest), total }
}

export async function findCensusRequest(db: Executor, scope: AccountScope, id: string): Promise<CensusRequest | undefined> {
  let query = db.selectFrom('census_requests').select(CENSUS_COLUMNS).where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  const row = await query.executeTakeFirst()
  return row && presentCensusRequest(row)
}

export interface CensusSubscriberRow {
  position: number
  matched_subscriber_id: string | null
  data: unknown
}

/** In census order (position), one page; the caller has found the census request in scope. */
export async function listCensusSubscribers(db: Executor, censusRequestId: string, pageReq: PageRequest): Promise<{ items: CensusSubscriberRow[]; total: number }> {
  const filtered = db.selectFrom('census_subscribers').where('census_request_id', '=', censusRequestId)
  const [items, count] = await Promise.all([
    filtered.select(['position', 'matched_subscriber_id', 'data']).orderBy('position').limit(pageReq.perPage).offset(offsetOf(pageReq)).execute(),
    filtered.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow(),
  ])
  return { items, total: count.total }
}
