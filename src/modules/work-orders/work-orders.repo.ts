import { sql, type Selectable } from 'kysely'
import type { CoveragePeriodsTable, Executor, WorkOrdersTable, WorkOrderStatus } from '../../db/schema.js'

export type WorkOrderRow = Selectable<WorkOrdersTable> & { group_id: string; carrier_name: string; group_name: string; coverage_period_external_identifier: string }
import type { AccountScope } from '../../lib/actor.js'

export type { AccountScope }

/** The coverage period in scope, locked until the transaction ends: complete-setup calls on it run one at a time. */
export async function lockCoveragePeriod(tx: Executor, scope: AccountScope, id: string): Promise<Selectable<CoveragePeriodsTable> | undefined> {
  let query = tx.selectFrom('coverage_periods').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.forUpdate().executeTakeFirst()
}

/** What every work order answer shows of its coverage period and group (ids, names, carrier). */
const CONTEXT = ['cp.group_id', 'cp.carrier_name', 'cp.external_identifier as coverage_period_external_identifier', 'g.organization_name as group_name'] as const

function workOrders(db: Executor) {
  return db
    .selectFrom('work_orders as wo')
    .innerJoin('coverage_periods as cp', 'cp.id', 'wo.coverage_period_id')
    .innerJoin('groups as g', 'g.id', 'cp.group_id')
    .selectAll('wo')
    .select(CONTEXT)
}

export async function findWorkOrderOfCoveragePeriod(db: Executor, coveragePeriodId: string): Promise<WorkOrderRow | undefined> {
  return workOrders(db).where('wo.coverage_period_id', '=', coveragePeriodId).executeTakeFirst()
}

/** A work order by id, locked until the transaction ends: transitions of one order run one at a time. */
export async function lockWorkOrder(tx: Executor, id: string): Promise<WorkOrderRow | undefined> {
  return workOrders(tx).where('wo.id', '=', id).forUpdate('wo').executeTakeFirst()
}

export async function findWorkOrder(db: Executor, id: string): Promise<WorkOrderRow | undefined> {
  return workOrders(db).where('wo.id', '=', id).executeTakeFirst()
}

export interface WorkOrderFilters {
  status?: WorkOrderStatus | undefined
  carrierName?: string | undefined
  accountId?: string | undefined
}

/** The operators' queue: oldest first, so the longest-waiting order is at the top. */
export async function listWorkOrders(db: Executor, filters: WorkOrderFilters, page: { limit: number; offset: number }) {
  let query = db
    .selectFrom('work_orders as wo')
    .innerJoin('coverage_periods as cp', 'cp.id', 'wo.coverage_period_id')
    .innerJoin('groups as g', 'g.id', 'cp.group_id')
  if (filters.status) query = query.where('wo.status', '=', filters.status)
  if (filters.carrierName) query = query.where('cp.carrier_name', '=', filters.carrierName)
  if (filters.accountId) query = query.where('wo.account_id', '=', filters.accountId)
  const [items, total] = await Promise.all([
    query.selectAll('wo').select(CONTEXT).orderBy('wo.created_at').orderBy('wo.id').limit(page.limit).offset(page.offset).execute(),
    query.select(sql<string>`count(*)::text`.as('n')).executeTakeFirstOrThrow(),
  ])
  return { items, total: Number(total.n) }
}

export interface Completeness {
  has_plans: boolean
  has_enrolled_subscribers: boolean
  /** Another coverage period of the group was installed: this one renews it (the next plan year, or a move to another carrier). */
  is_renewal: boolean
  producer_count: number
  /** Sum of the group's commission splits, as text (numeric); null without producers. */
  split_total: string | null
}

/** What complete setup checks, read in one query. */
export async function completeness(db: Executor, coveragePeriod: { id: string; group_id: string }): Promise<Completeness> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.exists(eb.selectFrom('plans').select('plans.id').where('plans.coverage_period_id', '=', coveragePeriod.id)).as('has_plans'),
      eb
        .exists(
          eb
            .selectFrom('qualifying_life_events as q')
            .innerJoin('members as m', 'm.id', 'q.subscriber_id')
            .select('q.id')
            .where('q.coverage_period_id', '=', coveragePeriod.id)
            .where('m.group_id', '=', coveragePeriod.group_id)
            .where('m.kind', '=', 'subscriber'),
        )
        .as('has_enrolled_subscribers'),
      eb
        .exists(
          eb
            .selectFrom('coverage_periods as other')
            .select('other.id')
            .where('other.group_id', '=', coveragePeriod.group_id)
            .where('other.id', '<>', coveragePeriod.id)
            .where('other.installed_at', 'is not', null),
        )
        .as('is_renewal'),
      eb
        .selectFrom('producers_of_record')
        .select(sql<string>`count(*)::text`.as('n'))
        .where('group_id', '=', coveragePeriod.group_id)
        .as('producer_count'),
      eb
        .selectFrom('producers_of_record')
        .select(sql<string | null>`sum(commission_split)::text`.as('total'))
        .where('group_id', '=', coveragePeriod.group_id)
        .as('split_total'),
    ])
    .executeTakeFirstOrThrow()
  return {
    has_plans: Boolean(row.has_plans),
    has_enrolled_subscribers: Boolean(row.has_enrolled_subscribers),
    is_renewal: Boolean(row.is_renewal),
    producer_count: Number(row.producer_count ?? 0),
    split_total: row.split_total ?? null,
  }
}

/**
 * Members elected into an HMO medical plan of the coverage period (through the plan elections
 * of its qualifying life events) with no provider selection for that member and plan. One row
 * per member and plan, ordered for stable output.
 */
export async function membersMissingPcp(db: Executor, coveragePeriodId: string): Promise<{ member_id: string; plan_id: string }[]> {
  return db
    .selectFrom('coverages as c')
    .innerJoin('plan_elections as pe', 'pe.id', 'c.plan_election_id')
    .innerJoin('qualifying_life_events as q', 'q.id', 'pe.qualifying_life_event_id')
    .innerJoin('plans as p', 'p.id', 'c.plan_id')
    .select(['c.member_id', 'c.plan_id'])
    .distinct()
    .where('q.coverage_period_id', '=', coveragePeriodId)
    .where('p.coverage_period_id', '=', coveragePeriodId)
    .where('pe.type', '=', 'election')
    .where('p.product_line', '=', 'medical')
    .where('p.product_type', '=', 'health_maintenance_organization')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('provider_selections as ps')
            .select('ps.id')
            .whereRef('ps.member_id', '=', 'c.member_id')
            .whereRef('ps.plan_id', '=', 'c.plan_id'),
        ),
      ),
    )
    .orderBy('c.member_id')
    .orderBy('c.plan_id')
    .execute()
}
