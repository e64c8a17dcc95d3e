import { sql, type SelectQueryBuilder } from 'kysely'
import { offsetOf, type PageRequest } from '../http/pagination.js'

/**
 * One page of a filtered table and the count of all matching rows, in two queries run together.
 * Rows are ordered by creation then id (ids are time-ordered), so pages are stable.
 */
export async function selectPage<DB, TB extends keyof DB, Row>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  pageReq: PageRequest,
  selectRows: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, Row>,
  direction: 'asc' | 'desc' = 'asc',
): Promise<{ items: Row[]; total: number }> {
  const order = direction === 'asc' ? sql`created_at asc, id asc` : sql`created_at desc, id desc`
  const [items, count] = await Promise.all([
    selectRows(filtered).orderBy(order).limit(pageReq.perPage).offset(offsetOf(pageReq)).execute(),
    filtered.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow(),
  ])
  return { items: items as Row[], total: (count as { total: number }).total }
}
