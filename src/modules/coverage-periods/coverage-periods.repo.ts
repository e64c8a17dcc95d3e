import type { Insertable, Selectable } from 'kysely'
import { selectPage } from '../../db/paging.js'
import type { CoveragePeriodsTable, Executor } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'

export type CoveragePeriodRow = Selectable<CoveragePeriodsTable>
import type { AccountScope } from '../../lib/actor.js'

export type { AccountScope }

export interface GroupForCoveragePeriod {
  id: string
  account_id: string
  installment_id: string | null
  installment_carrier_name: string | null
}

/** The group (in scope) a coverage period is added to, with its installment if it has one. */
export async function findGroup(db: Executor, scope: AccountScope, groupId: string): Promise<GroupForCoveragePeriod | undefined> {
  let query = db
    .selectFrom('groups')
    .leftJoin('group_installments', 'group_installments.group_id', 'groups.id')
    .select([
      'groups.id',
      'groups.account_id',
      'group_installments.id as installment_id',
      'group_installments.carrier_name as installment_carrier_name',
    ])
    .where('groups.id', '=', groupId)
  if (scope) query = query.where('groups.account_id', '=', scope)
  return query.executeTakeFirst()
}

export async function insertCoveragePeriod(
  tx: Executor,
  row: Omit<Insertable<CoveragePeriodsTable>, 'created_at' | 'updated_at' | 'state'>,
): Promise<CoveragePeriodRow> {
  return tx.insertInto('coverage_periods').values(row).returningAll().executeTakeFirstOrThrow()
}

/**
 * Links the coverage period to the group's installment if the installment has none yet. Under
 * concurrent creates the row lock serialises the updates and the second sees a non-null link.
 */
export async function linkToInstallment(tx: Executor, groupId: string, coveragePeriodId: string): Promise<string | undefined> {
  const row = await tx
    .updateTable('group_installments')
    .set({ coverage_period_id: coveragePeriodId, updated_at: new Date() })
    .where('group_id', '=', groupId)
    .where('coverage_period_id', 'is', null)
    .returning('id')
    .executeTakeFirst()
  return row?.id
}

export async function findCoveragePeriod(db: Executor, scope: AccountScope, id: string): Promise<CoveragePeriodRow | undefined> {
  let query = db.selectFrom('coverage_periods').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}

export async function listCoveragePeriods(db: Executor, groupId: string, pageReq: PageRequest) {
  return selectPage(db.selectFrom('coverage_periods').where('group_id', '=', groupId), pageReq, (q) => q.selectAll())
}
