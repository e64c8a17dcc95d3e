import type { Insertable, Selectable } from 'kysely'
import { selectPage } from '../../db/paging.js'
import type { CoveragePeriodState, CoveragePeriodsTable, Executor } from '../../db/schema.js'
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

/**
 * The carrier's group number a renewal with the same carrier keeps: the number of the group's
 * latest-starting coverage period with that carrier (whatever its state), if that period has one.
 * A carrier the group has not had before answers null: its group number is the new carrier's to give.
 */
export async function latestCarrierGroupNumber(db: Executor, groupId: string, carrierName: string): Promise<string | null> {
  const row = await db
    .selectFrom('coverage_periods')
    .select('carrier_group_number')
    .where('group_id', '=', groupId)
    .where('carrier_name', '=', carrierName)
    .orderBy('coverage_start_date', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row?.carrier_group_number ?? null
}

/**
 * Whether the coverage period is the group's first with its carrier, the one the
 * first-installment rules apply to: no other coverage period of the group with the same carrier,
 * starting before it, was installed (installed_at set when its work order completed). A renewal
 * with the same carrier answers false; a move to another carrier answers true, since the new
 * carrier installs the group from scratch. An unknown id answers true.
 */
export async function isFirstCoveragePeriodWithCarrier(db: Executor, groupId: string, carrierName: string, coveragePeriodId: string): Promise<boolean> {
  const earlier = await db
    .selectFrom('coverage_periods as other')
    .select('other.id')
    .where('other.group_id', '=', groupId)
    .where('other.carrier_name', '=', carrierName)
    .where('other.id', '<>', coveragePeriodId)
    .where('other.installed_at', 'is not', null)
    .where((eb) => eb('other.coverage_start_date', '<', eb.selectFrom('coverage_periods as this').select('this.coverage_start_date').where('this.id', '=', coveragePeriodId)))
    .limit(1)
    .executeTakeFirst()
  return earlier === undefined
}

export interface ExpiringCoveragePeriod {
  id: string
  account_id: string
  group_id: string
  state: CoveragePeriodState
}

/**
 * Coverage periods whose coverage_end_date lies before `today` and that are not expired yet,
 * locked until the transaction ends. A second expiry run waits on the locks, then finds these
 * rows expired and skips them, so each period expires (and is announced) once.
 */
export async function lockExpiringCoveragePeriods(tx: Executor, today: string): Promise<ExpiringCoveragePeriod[]> {
  return tx
    .selectFrom('coverage_periods')
    .select(['id', 'account_id', 'group_id', 'state'])
    .where('coverage_end_date', '<', today)
    .where('state', '<>', 'expired')
    .orderBy('id')
    .forUpdate()
    .execute()
}

export async function markCoveragePeriodsExpired(tx: Executor, ids: readonly string[], now: Date): Promise<void> {
  const BATCH = 1000
  for (let start = 0; start < ids.length; start += BATCH) {
    await tx.updateTable('coverage_periods').set({ state: 'expired', updated_at: now }).where('id', 'in', ids.slice(start, start + BATCH)).execute()
  }
}
