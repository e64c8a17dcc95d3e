import type { Insertable, Selectable } from 'kysely'
import { selectPage } from '../../db/paging.js'
import type { CoveragePeriodState, Executor, PlansTable } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'

export type PlanRow = Selectable<PlansTable>
import type { AccountScope } from '../../lib/actor.js'

export type { AccountScope }

export interface PlanCoveragePeriod {
  id: string
  account_id: string
  group_id: string
  state: CoveragePeriodState
}

/** The coverage period (in scope) plans are added to, copied from or listed from. */
export async function findCoveragePeriod(db: Executor, scope: AccountScope, id: string): Promise<PlanCoveragePeriod | undefined> {
  let query = db.selectFrom('coverage_periods').select(['id', 'account_id', 'group_id', 'state']).where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}

/** The coverage period plans are copied into, locked (shared) until the transaction ends so it cannot expire meanwhile. */
export async function lockCoveragePeriodForCopy(tx: Executor, id: string): Promise<PlanCoveragePeriod | undefined> {
  return tx.selectFrom('coverage_periods').select(['id', 'account_id', 'group_id', 'state']).where('id', '=', id).forShare().executeTakeFirst()
}

/** Every plan of a coverage period, oldest first (the order GET /coverage_periods/{id}/plans lists them in). */
export async function allPlans(db: Executor, coveragePeriodId: string): Promise<PlanRow[]> {
  return db.selectFrom('plans').selectAll().where('coverage_period_id', '=', coveragePeriodId).orderBy('created_at').orderBy('id').execute()
}

/** Which of these external identifiers plans of the coverage period already use, in text order. */
export async function usedExternalIdentifiers(db: Executor, coveragePeriodId: string, externalIdentifiers: readonly string[]): Promise<string[]> {
  if (externalIdentifiers.length === 0) return []
  const rows = await db
    .selectFrom('plans')
    .select('external_identifier')
    .where('coverage_period_id', '=', coveragePeriodId)
    .where('external_identifier', 'in', [...externalIdentifiers])
    .orderBy('external_identifier')
    .execute()
  return rows.map((row) => row.external_identifier)
}

export async function insertPlans(tx: Executor, rows: readonly Omit<Insertable<PlansTable>, 'created_at' | 'updated_at'>[]): Promise<PlanRow[]> {
  if (rows.length === 0) return []
  return tx.insertInto('plans').values([...rows]).returningAll().execute()
}

export async function insertPlan(tx: Executor, row: Omit<Insertable<PlansTable>, 'created_at' | 'updated_at'>): Promise<PlanRow> {
  return tx.insertInto('plans').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function findPlan(db: Executor, scope: AccountScope, id: string): Promise<PlanRow | undefined> {
  let query = db.selectFrom('plans').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}

export async function listPlans(db: Executor, coveragePeriodId: string, pageReq: PageRequest) {
  return selectPage(db.selectFrom('plans').where('coverage_period_id', '=', coveragePeriodId), pageReq, (q) => q.selectAll())
}
