import type { Insertable, Selectable } from 'kysely'
import { selectPage } from '../../db/paging.js'
import type { Executor, PlansTable } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'

export type PlanRow = Selectable<PlansTable>
import type { AccountScope } from '../../lib/actor.js'

export type { AccountScope }

/** The coverage period (in scope) plans are added to or listed from. */
export async function findCoveragePeriod(db: Executor, scope: AccountScope, id: string): Promise<{ id: string; account_id: string } | undefined> {
  let query = db.selectFrom('coverage_periods').select(['id', 'account_id']).where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
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
