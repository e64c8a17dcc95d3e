import type { Insertable, Selectable } from 'kysely'
import type { Executor, GroupInstallmentsTable } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { selectPage } from '../../db/paging.js'

export type InstallmentRow = Selectable<GroupInstallmentsTable>
import type { AccountScope } from '../../lib/actor.js'

export type { AccountScope }

export async function insertInstallment(tx: Executor, row: Insertable<GroupInstallmentsTable>): Promise<InstallmentRow> {
  return tx.insertInto('group_installments').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function findInstallment(db: Executor, scope: AccountScope, id: string): Promise<InstallmentRow | undefined> {
  let query = db.selectFrom('group_installments').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}

export async function listInstallments(db: Executor, scope: AccountScope, pageReq: PageRequest) {
  let query = db.selectFrom('group_installments')
  if (scope) query = query.where('account_id', '=', scope)
  return selectPage(query, pageReq, (q) => q.selectAll())
}

export interface ProgressFacts {
  installment_id: string
  coverage_period_id: string | null
  setup_completed_at: Date | null
  installed_at: Date | null
  work_order_id: string | null
  has_plans: boolean
  has_classifications: boolean
  has_subscribers: boolean
  has_life_events: boolean
}

/**
 * What each step of the installments has produced, read from the tables in one query. The
 * coverage period is the one linked to the installment, or else the group's first one (so the
 * progress is right even between the creation of a coverage period and the link being set).
 */
export async function progressFacts(db: Executor, installmentIds: readonly string[]): Promise<ProgressFacts[]> {
  if (installmentIds.length === 0) return []
  const rows = await db
    .selectFrom('group_installments as gi')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('coverage_periods as c')
          .select(['c.id', 'c.setup_completed_at', 'c.installed_at'])
          .where((w) =>
            w.or([
              w('c.id', '=', w.ref('gi.coverage_period_id')),
              w.and([w('gi.coverage_period_id', 'is', null), w('c.group_id', '=', w.ref('gi.group_id'))]),
            ]),
          )
          .orderBy('c.created_at')
          .orderBy('c.id')
          .limit(1)
          .as('cp'),
      (join) => join.onTrue(),
    )
    .leftJoin('work_orders as wo', 'wo.coverage_period_id', 'cp.id')
    .where('gi.id', 'in', installmentIds)
    .select((eb) => [
      'gi.id as installment_id',
      'cp.id as coverage_period_id',
      'cp.setup_completed_at',
      'cp.installed_at',
      'wo.id as work_order_id',
      eb.exists(eb.selectFrom('plans as p').select('p.id').whereRef('p.coverage_period_id', '=', 'cp.id')).as('has_plans'),
      eb.exists(eb.selectFrom('employment_classifications as ec').select('ec.id').whereRef('ec.group_id', '=', 'gi.group_id')).as('has_classifications'),
      eb
        .exists(eb.selectFrom('members as m').select('m.id').whereRef('m.group_id', '=', 'gi.group_id').where('m.kind', '=', 'subscriber'))
        .as('has_subscribers'),
      eb.exists(eb.selectFrom('qualifying_life_events as q').select('q.id').whereRef('q.coverage_period_id', '=', 'cp.id')).as('has_life_events'),
    ])
    .execute()
  return rows.map((row) => ({
    installment_id: row.installment_id,
    coverage_period_id: row.coverage_period_id ?? null,
    setup_completed_at: row.setup_completed_at ?? null,
    installed_at: row.installed_at ?? null,
    work_order_id: row.work_order_id ?? null,
    has_plans: Boolean(row.has_plans),
    has_classifications: Boolean(row.has_classifications),
    has_subscribers: Boolean(row.has_subscribers),
    has_life_events: Boolean(row.has_life_events),
  }))
}
