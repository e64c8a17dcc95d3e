import type { Insertable, Selectable } from 'kysely'
import { selectPage } from '../../db/paging.js'
import type { EmploymentClassificationsTable, Executor } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'

export type EmploymentClassificationRow = Selectable<EmploymentClassificationsTable>
import type { AccountScope } from '../../lib/actor.js'

export type { AccountScope }

/** The group (in scope) classifications are added to or listed from. */
export async function findGroup(db: Executor, scope: AccountScope, id: string): Promise<{ id: string; account_id: string } | undefined> {
  let query = db.selectFrom('groups').select(['id', 'account_id']).where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}

export async function insertEmploymentClassification(
  tx: Executor,
  row: Omit<Insertable<EmploymentClassificationsTable>, 'created_at' | 'updated_at'>,
): Promise<EmploymentClassificationRow> {
  return tx.insertInto('employment_classifications').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function findEmploymentClassification(db: Executor, scope: AccountScope, id: string): Promise<EmploymentClassificationRow | undefined> {
  let query = db.selectFrom('employment_classifications').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}

export async function listEmploymentClassifications(db: Executor, groupId: string, pageReq: PageRequest) {
  return selectPage(db.selectFrom('employment_classifications').where('group_id', '=', groupId), pageReq, (q) => q.selectAll())
}
