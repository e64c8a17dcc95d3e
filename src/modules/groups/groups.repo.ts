import type { Executor } from '../../db/schema.js'
import { offsetOf, type PageRequest } from '../../http/pagination.js'

/** `accountId` undefined: an operator listing every account's groups. */
export async function listGroups(db: Executor, accountId: string | undefined, pageReq: PageRequest) {
  let query = db.selectFrom('groups')
  if (accountId) query = query.where('account_id', '=', accountId)
  const [items, count] = await Promise.all([
    query.selectAll().orderBy('created_at').orderBy('id').limit(pageReq.perPage).offset(offsetOf(pageReq)).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ])
  return { items, total: count.total }
}
