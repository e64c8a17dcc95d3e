import { sql, type Insertable, type Kysely, type RawBuilder, type Selectable } from 'kysely'
import { isoTimestamp } from '../../db/iso-timestamp.js'
import { prepare } from '../../db/prepared.js'
import type { Database, ErrorCommentsTable, ErrorsTable, Executor } from '../../db/schema.js'
import { offsetOf, type PageRequest } from '../../http/pagination.js'
import type { AccountScope } from '../../lib/actor.js'
import type { ErrorComment, ErrorFilters, ErrorResource } from './errors.schema.js'

export type ErrorRow = Selectable<ErrorsTable>

/**
 * JSON text of a value, as PostgreSQL built it: sent to the client as is. The error reads are
 * the hot path of the queue, and building their JSON in the database spares Node parsing ~25
 * columns per error, the JSON of values and comments, mapping and serialising it all again.
 */
export type JsonText<T> = string & { readonly __jsonOf?: T }


/** The user object of 2.3; json_strip_nulls drops deactivated_at for an active user. */
const creatorJson = sql`case when e.created_by_user_id is null then null else (select json_strip_nulls(json_build_object(
    'id', cu.id, 'email', cu.email, 'created_at', ${isoTimestamp('cu.created_at')}, 'deactivated_at', ${isoTimestamp('cu.deactivated_at')}, 'role_names', cu.role_names))
  from users cu where cu.id = e.created_by_user_id) end`

/**
 * A comment of 2.4 (alias c); its author carries no created_at there. The author is looked up by
 * primary key per comment: a join let the planner merge-join the whole users index for the two
 * or three commented errors of a page.
 */
const commentJson = sql<ErrorComment>`json_build_object(
  'id', c.id, 'error_id', c.error_id, 'message', c.message, 'created_at', ${isoTimestamp('c.created_at')},
  'created_by', case when c.created_by_user_id is null then null else (select json_strip_nulls(json_build_object(
    'id', u.id, 'email', u.email, 'deactivated_at', ${isoTimestamp('u.deactivated_at')}, 'role_names', u.role_names))
    from users u where u.id = c.created_by_user_id) end,
  'sent_by', c.sent_by)`

// comment_count (kept by a trigger) spares the lookup for the many errors without comments.
const commentsOfError = sql`case when e.comment_count = 0 then '[]'::json else coalesce((
  select json_agg(${commentJson} order by c.created_at, c.id) from error_comments c where c.error_id = e.id), '[]'::json) end`

/**
 * The error resource of service-interface.md 2.2 (alias e), every key present, as JSON text. A
 * trigger renders each error on write into `errors.rendered` (migration 0003, errors_render) as
 * for an error without creator or comments: building ~20 keys per error on every read was most of
 * the queue page's database time. Most errors are answered from it as is; for one with a creator
 * or comments (rows of other tables) that prefix is replaced here. The route schema (ErrorSchema)
 * documents the same shape; a test checks every answer against it.
 */
const RENDERED_PREFIX = '{"created_by":null,"comments":[],'
const errorJson = sql<string>`(case when e.comment_count = 0 and e.created_by_user_id is null then e.rendered
  else '{"created_by":' || coalesce((${creatorJson})::text, 'null') || ',"comments":' || (${commentsOfError})::text
    || ',' || substr(e.rendered, ${sql.lit(RENDERED_PREFIX.length + 1)}) end)`

// GET /errors/{id}: the error, its creator and every comment with its author, as JSON, in one
// prepared round trip; it is on the benchmarked read path.
const detailInAccount = prepare<{ json: string }, [id: string, accountId: string]>(2, (db, [id, accountId]) =>
  db.selectFrom('errors as e').select(errorJson.as('json')).where('e.id', '=', id!).where('e.account_id', '=', accountId!),
)
const detailAnyAccount = prepare<{ json: string }, [id: string]>(1, (db, [id]) =>
  db.selectFrom('errors as e').select(errorJson.as('json')).where('e.id', '=', id!),
)

export async function findErrorJson(db: Executor, scope: AccountScope, id: string): Promise<JsonText<ErrorResource> | undefined> {
  const rows = scope ? await detailInAccount(db, id, scope) : await detailAnyAccount(db, id)
  return rows[0]?.json
}

const idInAccount = prepare<{ id: string }, [id: string, accountId: string]>(2, (db, [id, accountId]) =>
  db.selectFrom('errors').select('id').where('id', '=', id!).where('account_id', '=', accountId!),
)
const idAnyAccount = prepare<{ id: string }, [id: string]>(1, (db, [id]) => db.selectFrom('errors').select('id').where('id', '=', id!))

export async function errorExists(db: Executor, scope: AccountScope, id: string): Promise<boolean> {
  const rows = scope ? await idInAccount(db, id, scope) : await idAnyAccount(db, id)
  return rows.length > 0
}

/**
 * The error in scope, locked until the transaction ends: resolutions, returns and comments on one
 * error run one after the other, each seeing what the previous one wrote.
 */
export async function lockError(tx: Executor, scope: AccountScope, id: string): Promise<ErrorRow | undefined> {
  let query = tx.selectFrom('errors').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.forUpdate().executeTakeFirst()
}

/** Where a listing looks: one coverage period (its tenancy checked once, not per row) or the account's errors. */
export type ErrorListScope = { coveragePeriodId: string; accountScope: AccountScope } | { accountScope: AccountScope }

const and = (conditions: RawBuilder<unknown>[]) => (conditions.length === 0 ? sql<boolean>`true` : sql<boolean>`${sql.join(conditions, sql` and `)}`)

/**
 * The listing's condition on table alias `t` (errors, or the error_counts totals, which carry
 * the same scope columns). For a coverage period the account check is an uncorrelated EXISTS on
 * the coverage period (a one-time filter), so rows are found through
 * (coverage_period_id, status, assignee, created_at, id) alone.
 */
function scopeConditions(where: ErrorListScope, filters: ErrorFilters): RawBuilder<unknown>[] {
  const conditions: RawBuilder<unknown>[] = []
  if ('coveragePeriodId' in where) {
    conditions.push(sql`t.coverage_period_id = ${where.coveragePeriodId}`)
    if (where.accountScope) {
      conditions.push(sql`exists (select 1 from coverage_periods p where p.id = ${where.coveragePeriodId} and p.account_id = ${where.accountScope})`)
    }
  } else if (where.accountScope) {
    conditions.push(sql`t.account_id = ${where.accountScope}`)
  }
  if (filters.coverage_period_id) conditions.push(sql`t.coverage_period_id = ${filters.coverage_period_id}`)
  if (filters.group_id) conditions.push(sql`t.group_id = ${filters.group_id}`)
  if (filters.status) conditions.push(sql`t.status = ${filters.status}`)
  if (filters.assignee) conditions.push(sql`t.assignee = ${filters.assignee}`)
  return conditions
}

function rowConditions(filters: ErrorFilters): RawBuilder<unknown>[] {
  const conditions: RawBuilder<unknown>[] = []
  if (filters.severity) conditions.push(sql`t.severity = ${filters.severity}`)
  if (filters.source) conditions.push(sql`t.source = ${filters.source}`)
  if (filters.parameter) conditions.push(sql`t.discrepancy_parameter = ${filters.parameter}`)
  if (filters.member_id) conditions.push(sql`t.member_id = ${filters.member_id}`)
  return conditions
}

/**
 * The total of a listing. Filtered by scope, status and assignee only (the queue's usual
 * question) it is a sum over the few rows of error_counts, which triggers keep in step with
 * every write (migration 0003); counting tens of thousands of matching errors per page would
 * cost more than the page. Any other filter counts the errors themselves.
 */
function totalOf(where: ErrorListScope, filters: ErrorFilters): RawBuilder<number> {
  const scope = scopeConditions(where, filters)
  const rows = rowConditions(filters)
  if (rows.length === 0) return sql<number>`(select coalesce(sum(t.delta), 0)::int from error_counts t where ${and(scope)})`
  return sql<number>`(select count(*)::int from errors t where ${and([...scope, ...rows])})`
}

function listQuery(db: Kysely<Database> | Executor, where: ErrorListScope, filters: ErrorFilters, limit: unknown, offset: unknown) {
  const condition = and([...scopeConditions(where, filters), ...rowConditions(filters)])
  return db.selectNoFrom([
    totalOf(where, filters).as('total'),
    sql<JsonText<ErrorResource[]>>`(
      select '[' || coalesce(string_agg(${errorJson}, ',' order by e.created_at, e.id), '') || ']'
        from (select * from errors t where ${condition} order by t.created_at, t.id limit ${limit} offset ${offset}) e)`.as('errors'),
  ])
}
type ListRow = { total: number; errors: JsonText<ErrorResource[]> }

// The queue's usual questions (a coverage period's or an account's errors, by status and
// assignee) are prepared: the statement is big enough that planning it cost about as much as
// running it. One variant per shape, the parameters in this order: coverage period, account,
// status, assignee, limit, offset (those the shape has).
interface ListShape {
  period: boolean
  scoped: boolean
  status: boolean
  assignee: boolean
}
const shapeKey = (shape: ListShape) => `${+shape.period}${+shape.scoped}${+shape.status}${+shape.assignee}`
const preparedLists = new Map<string, (db: Executor, ...params: unknown[]) => Promise<ListRow[]>>()
for (let bits = 0; bits < 16; bits++) {
  const shape: ListShape = { period: (bits & 1) > 0, scoped: (bits & 2) > 0, status: (bits & 4) > 0, assignee: (bits & 8) > 0 }
  const arity = Object.values(shape).filter(Boolean).length + 2
  preparedLists.set(
    shapeKey(shape),
    prepare<ListRow, unknown[]>(arity, (db, p) => {
      const next = (() => {
        let index = 0
        return () => p[index++]!
      })()
      const period = shape.period ? next() : undefined
      const accountScope = shape.scoped ? next() : undefined
      const filters: ErrorFilters = {}
      if (shape.status) filters.status = next() as ErrorFilters['status']
      if (shape.assignee) filters.assignee = next() as ErrorFilters['assignee']
      const where: ErrorListScope = period ? { coveragePeriodId: period, accountScope } : { accountScope }
      return listQuery(db, where, filters, next(), next())
    }),
  )
}

/** One page in creation order (ids are time-ordered) as JSON text, and the total, in one statement (one snapshot). */
export async function listErrors(db: Executor, where: ErrorListScope, filters: ErrorFilters, pageReq: PageRequest): Promise<ListRow> {
  const { status, assignee, ...others } = filters
  const usual = Object.values(others).every((value) => value === undefined)
  if (usual) {
    const period = 'coveragePeriodId' in where ? where.coveragePeriodId : undefined
    const shape: ListShape = { period: period !== undefined, scoped: where.accountScope !== undefined, status: !!status, assignee: !!assignee }
    const params = [period, where.accountScope, status, assignee].filter((value) => value !== undefined)
    const rows = await preparedLists.get(shapeKey(shape))!(db, ...params, pageReq.perPage, offsetOf(pageReq))
    return rows[0]!
  }
  return listQuery(db, where, filters, pageReq.perPage, offsetOf(pageReq)).executeTakeFirstOrThrow()
}

export async function listComments(db: Executor, errorId: string, pageReq: PageRequest): Promise<{ items: ErrorComment[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('error_comments as c')
      .select(commentJson.as('comment'))
      .where('c.error_id', '=', errorId)
      .orderBy('c.created_at')
      .orderBy('c.id')
      .limit(pageReq.perPage)
      .offset(offsetOf(pageReq))
      .execute(),
    db.selectFrom('error_comments').select(sql<number>`count(*)::int`.as('total')).where('error_id', '=', errorId).executeTakeFirstOrThrow(),
  ])
  return { items: rows.map((row) => row.comment), total: count.total }
}

export async function insertComment(tx: Executor, row: Insertable<ErrorCommentsTable>): Promise<void> {
  await tx.insertInto('error_comments').values(row).execute()
}

/** Whether the member belongs to the group, and the plan to the coverage period, in one query (false for null). */
export async function referencesOf(db: Executor, groupId: string, coveragePeriodId: string, memberId: string | null, planId: string | null) {
  const row = await db
    .selectNoFrom([
      sql<boolean>`exists (select 1 from members where id = ${memberId}::uuid and group_id = ${groupId})`.as('member_in_group'),
      sql<boolean>`exists (select 1 from plans where id = ${planId}::uuid and coverage_period_id = ${coveragePeriodId})`.as('plan_in_coverage_period'),
    ])
    .executeTakeFirstOrThrow()
  return { memberInGroup: row.member_in_group, planInCoveragePeriod: row.plan_in_coverage_period }
}
