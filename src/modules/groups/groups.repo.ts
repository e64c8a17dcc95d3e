import type { Executor } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { selectPage } from '../../db/paging.js'

/** `accountId` undefined: an operator listing every account's groups. */
export async function listGroups(db: Executor, accountId: string | undefined, pageReq: PageRequest) {
  let query = db.selectFrom('groups')
  if (accountId) query = query.where('account_id', '=', accountId)
  return selectPage(query, pageReq, (q) => q.selectAll())
}
