import { sql, type RawBuilder, type Selectable } from 'kysely'
import { keysetAfter, keysetValues, type KeysetColumn } from '../../db/keyset.js'
import { isoTimestamp } from '../../db/iso-timestamp.js'
import { executeNamedCompiled, statementBudget } from '../../db/prepared.js'
import type { CoveragePeriodsTable, Executor, WorkOrdersTable, WorkOrderStatus } from '../../db/schema.js'
import type { AccountScope } from '../../lib/actor.js'
import { WORK_ORDER_STATUSES } from './work-order-states.js'
import type { WorkOrderSort } from './work-orders.schema.js'

export type { AccountScope }

export type WorkOrderRow = Selectable<WorkOrdersTable> & {
  group_id: string
  carrier_name: string
  group_name: string
  group_external_identifier: string
  coverage_period_external_identifier: string
  account_name: string
  age_seconds: number
  /** The assignee's email; null when nobody is assigned. */
  assigned_user_email: string | null
}

/** The coverage period in scope, locked until the transaction ends: complete-setup calls on it run one at a time. */
export async function lockCoveragePeriod(tx: Executor, scope: AccountScope, id: string): Promise<Selectable<CoveragePeriodsTable> | undefined> {
  let query = tx.selectFrom('coverage_periods').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.forUpdate().executeTakeFirst()
}

/** What every work order answer shows of its coverage period, group, account and assignee. */
const CONTEXT = [
  'cp.group_id',
  'cp.carrier_name',
  'cp.external_identifier as coverage_period_external_identifier',
  'g.organization_name as group_name',
  'g.external_identifier as group_external_identifier',
  'a.name as account_name',
  'u.email as assigned_user_email',
] as const

/**
 * Whole seconds in the current status, by the database's clock. statement_timestamp(), not
 * now(): read inside a transition's transaction, now() is the transaction's start, before the
 * change. greatest(0, ...) absorbs the milliseconds between the service's clock (which wrote
 * status_changed_at) and the database's.
 */
const AGE_SECONDS = sql<number>`greatest(0, floor(extract(epoch from statement_timestamp() - wo.status_changed_at)))::int`.as('age_seconds')

/** Every table a work order answer or a queue filter reads; the left join: most orders have no assignee. */
function joined(db: Executor) {
  return db
    .selectFrom('work_orders as wo')
    .innerJoin('coverage_periods as cp', 'cp.id', 'wo.coverage_period_id')
    .innerJoin('groups as g', 'g.id', 'cp.group_id')
    .innerJoin('accounts as a', 'a.id', 'wo.account_id')
    .leftJoin('users as u', 'u.id', 'wo.assigned_user_id')
}

function workOrders(db: Executor) {
  return joined(db).selectAll('wo').select(CONTEXT).select(AGE_SECONDS)
}

export async function findWorkOrderOfCoveragePeriod(db: Executor, coveragePeriodId: string): Promise<WorkOrderRow | undefined> {
  return workOrders(db).where('wo.coverage_period_id', '=', coveragePeriodId).executeTakeFirst()
}

/** A work order by id, locked until the transaction ends: transitions and assignments of one order run one at a time. */
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
  groupId?: string | undefined
  /** A user's id; null: only the unassigned orders. */
  assignedUserId?: string | null | undefined
  /** Case-insensitive substring of the employer name, the group's external identifier or the account name. */
  q?: string | undefined
}

function filtered(db: Executor, filters: WorkOrderFilters) {
  let query = joined(db)
  if (filters.status) query = query.where('wo.status', '=', filters.status)
  if (filters.carrierName) query = query.where('cp.carrier_name', '=', filters.carrierName)
  if (filters.accountId) query = query.where('wo.account_id', '=', filters.accountId)
  if (filters.groupId) query = query.where('cp.group_id', '=', filters.groupId)
  if (filters.assignedUserId === null) query = query.where('wo.assigned_user_id', 'is', null)
  else if (filters.assignedUserId) query = query.where('wo.assigned_user_id', '=', filters.assignedUserId)
  if (filters.q) {
    // strpos rather than ILIKE: the text is searched as typed, so % and _ need no escaping.
    const q = filters.q
    const contains = (column: 'g.organization_name' | 'g.external_identifier' | 'a.name') => sql<boolean>`strpos(lower(${sql.ref(column)}), lower(${q})) > 0`
    query = query.where((eb) => eb.or([contains('g.organization_name'), contains('g.external_identifier'), contains('a.name')]))
  }
  return query
}

/** The status's place in the workflow (open first, cancelled last), for sort=status. */
const STATUS_RANK = sql<number>`array_position(array[${sql.join(WORK_ORDER_STATUSES.map((status) => sql.lit(status)))}]::text[], wo.status)`

const CREATED_AT = sql`wo.created_at`
const ID = sql`wo.id`

/**
 * The queue's order for a sort: its key first, then created_at, id as tie-breakers, so pages never
 * overlap. One definition serves the JSON pages (offset) and the CSV export (keyset), so both list
 * the same rows in the same order. By default oldest first: the longest-waiting order on top.
 */
function orderKeys(sort: WorkOrderSort | undefined): KeysetColumn[] {
  const tieBreakers = (descending: boolean): KeysetColumn[] => [
    { sql: CREATED_AT, type: 'timestamptz', descending },
    { sql: ID, type: 'uuid', descending },
  ]
  switch (sort) {
    // age is the time since status_changed_at: the youngest (age ascending) changed status last.
    case 'age':
    case '-age':
      return [{ sql: sql`wo.status_changed_at`, type: 'timestamptz', descending: sort === 'age' }, ...tieBreakers(false)]
    case 'status':
    case '-status':
      return [{ sql: STATUS_RANK, type: 'integer', descending: sort === '-status' }, ...tieBreakers(false)]
    case '-created_at':
      return tieBreakers(true)
    case 'created_at':
    case undefined:
      return tieBreakers(false)
  }
}

function ordered<Q extends { orderBy: (expression: RawBuilder<unknown>, direction: 'asc' | 'desc') => Q }>(query: Q, sort: WorkOrderSort | undefined): Q {
  return orderKeys(sort).reduce((q, key) => q.orderBy(key.sql, key.descending ? 'desc' : 'asc'), query)
}

/** The operators' queue, one page, in the order of `sort` (orderKeys). */
export async function listWorkOrders(db: Executor, filters: WorkOrderFilters, sort: WorkOrderSort | undefined, page: { limit: number; offset: number }) {
  const items = ordered(filtered(db, filters).selectAll('wo').select(CONTEXT).select(AGE_SECONDS), sort)
  const [rows, total] = await Promise.all([
    items.limit(page.limit).offset(page.offset).execute(),
    filtered(db, filters).select(sql<string>`count(*)::text`.as('n')).executeTakeFirstOrThrow(),
  ])
  return { items: rows, total: Number(total.n) }
}

/** A row of the CSV export (work-orders.csv.ts): what a spreadsheet shows, and the sort keys to continue after. */
export interface WorkOrderExportRow {
  id: string
  status: WorkOrderStatus
  age_seconds: number
  status_changed_at: string
  account_name: string
  account_id: string
  employer_name: string
  group_external_identifier: string
  group_id: string
  coverage_period_external_identifier: string
  coverage_start_date: string
  coverage_end_date: string | null
  coverage_period_id: string
  carrier_name: string
  carrier_group_number: string | null
  assigned_to: string | null
  last_message: string | null
  last_changed_by: string | null
  created_at: string
  updated_at: string
  /** The sort keys as the text of a JSON array (keysetValues). */
  keys: string
}

/** The export's statement texts: one per combination of filters and sort a client exports. */
const EXPORT_STATEMENTS = statementBudget(50)

/**
 * One page of the export after `after` (the previous page's last keys), in the queue's order.
 * Age is measured at now(), the export transaction's start: one clock for the whole file. The
 * work order holds no SSN or birth date; its history messages are masked when written.
 */
export async function exportWorkOrdersPage(
  db: Executor,
  filters: WorkOrderFilters,
  sort: WorkOrderSort | undefined,
  after: readonly string[] | null,
  limit: number,
): Promise<WorkOrderExportRow[]> {
  const keys = orderKeys(sort)
  const day = (column: string) => sql<string>`to_char(${sql.ref(column)}, 'YYYY-MM-DD')`
  let query = filtered(db, filters).select([
    'wo.id',
    'wo.status',
    sql<number>`greatest(0, floor(extract(epoch from now() - wo.status_changed_at)))::int`.as('age_seconds'),
    isoTimestamp('wo.status_changed_at').as('status_changed_at'),
    'a.name as account_name',
    'wo.account_id',
    'g.organization_name as employer_name',
    'g.external_identifier as group_external_identifier',
    'cp.group_id',
    'cp.external_identifier as coverage_period_external_identifier',
    day('cp.coverage_start_date').as('coverage_start_date'),
    sql<string | null>`to_char(cp.coverage_end_date, 'YYYY-MM-DD')`.as('coverage_end_date'),
    'wo.coverage_period_id',
    'cp.carrier_name',
    'cp.carrier_group_number',
    'u.email as assigned_to',
    sql<string | null>`wo.history -> -1 ->> 'message'`.as('last_message'),
    sql<string | null>`wo.history -> -1 ->> 'by'`.as('last_changed_by'),
    isoTimestamp('wo.created_at').as('created_at'),
    isoTimestamp('wo.updated_at').as('updated_at'),
    keysetValues(keys).as('keys'),
  ])
  if (after) query = query.where(keysetAfter(keys, after))
  // Named: an export runs the same text once per page. The page size is a literal, so the plan
  // PostgreSQL keeps for any values is made for it (errors.repo.ts, listQuery, says why).
  const result = await executeNamedCompiled(db, ordered(query, sort).limit(sql.lit(limit)).compile(), true, EXPORT_STATEMENTS)
  return result.rows
}

/** How many work orders match, per status, in one query; statuses without any are absent (the caller adds the zeros). */
export async function countWorkOrdersByStatus(db: Executor, filters: WorkOrderFilters): Promise<{ status: WorkOrderStatus; n: number }[]> {
  const rows = await filtered(db, filters).select(['wo.status', sql<string>`count(*)::text`.as('n')]).groupBy('wo.status').execute()
  return rows.map((row) => ({ status: row.status, n: Number(row.n) }))
}

export interface AssignableUser {
  id: string
  email: string
  deactivated_at: Date | null
  account_kind: 'partner' | 'service'
}

/** A user with its account's kind, so the service can say why it cannot hold a work order. */
export async function findUserWithAccountKind(db: Executor, id: string): Promise<AssignableUser | undefined> {
  return db
    .selectFrom('users as u')
    .innerJoin('accounts as a', 'a.id', 'u.account_id')
    .select(['u.id', 'u.email', 'u.deactivated_at', 'a.kind as account_kind'])
    .where('u.id', '=', id)
    .executeTakeFirst()
}

export async function setAssignee(tx: Executor, workOrderId: string, userId: string | null, now: Date): Promise<void> {
  await tx.updateTable('work_orders').set({ assigned_user_id: userId, updated_at: now }).where('id', '=', workOrderId).execute()
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
