import type { Insertable, Selectable } from 'kysely'
import { selectPage } from '../../db/paging.js'
import type { Executor, ProviderSelectionsTable } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'

export type ProviderSelectionRow = Selectable<ProviderSelectionsTable>

/** A plan of the member's account, with whether the member has a coverage in it. */
export async function planForMember(db: Executor, accountId: string, planId: string, memberId: string) {
  const plan = await db
    .selectFrom('plans')
    .select(['id', 'product_line', 'product_type'])
    .where('id', '=', planId)
    .where('account_id', '=', accountId)
    .executeTakeFirst()
  if (!plan) return undefined
  const coverage = await db.selectFrom('coverages').select('id').where('plan_id', '=', plan.id).where('member_id', '=', memberId).executeTakeFirst()
  return { ...plan, memberCovered: coverage !== undefined }
}

/** Locks the member row, so two selections for the same member are checked and written one after the other. */
export async function lockMember(tx: Executor, memberId: string): Promise<void> {
  await tx.selectFrom('members').select('id').where('id', '=', memberId).forUpdate().execute()
}

export async function selectionExists(db: Executor, memberId: string, planId: string, effectiveDate: string): Promise<boolean> {
  const row = await db
    .selectFrom('provider_selections')
    .select('id')
    .where('member_id', '=', memberId)
    .where('plan_id', '=', planId)
    .where('effective_date', '=', effectiveDate)
    .executeTakeFirst()
  return row !== undefined
}

export async function insertSelection(tx: Executor, row: Insertable<ProviderSelectionsTable>): Promise<ProviderSelectionRow> {
  return tx.insertInto('provider_selections').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function listSelections(db: Executor, memberId: string, pageReq: PageRequest) {
  return selectPage(db.selectFrom('provider_selections').where('member_id', '=', memberId), pageReq, (q) => q.selectAll())
}
