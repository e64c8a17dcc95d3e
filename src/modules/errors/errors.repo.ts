import { sql, type Insertable, type Kysely, type RawBuilder, type Selectable } from 'kysely'
import { isoTimestamp } from '../../db/iso-timestamp.js'
import { arrayLiteral } from '../../db/array-literal.js'
import { keysetAfter, keysetValues, type KeysetColumn } from '../../db/keyset.js'
import { executeNamed, executeNamedCompiled, prepare, statementBudget } from '../../db/prepared.js'
import type { Database, ErrorCommentsTable, ErrorsTable, Executor } from '../../db/schema.js'
import { offsetOf, type PageRequest } from '../../http/pagination.js'
import type { AccountScope } from '../../lib/actor.js'
import type { ErrorComment, ErrorCounts, ErrorFilters, ErrorHistoryEntry, ErrorResource, ErrorSort } from './errors.schema.js'

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

/**
 * The whole error resource (alias e): the rendered object, which carries the names a person
 * reads in the queue (migration 0023 renders them on write), with the age appended before its
 * closing brace, since the age grows between writes: how long the error has waited, counted
 * from `aged_from` (raised, reopened or last returned).
 */
const fullErrorJson = sql<string>`(left(${errorJson}, -1) || ',"age_seconds":' || greatest(0, floor(extract(epoch from (now() - e.aged_from))))::bigint || '}')`

// GET /errors/{id}: the error, its creator and every comment with its author, as JSON, in one
// prepared round trip; it is on the benchmarked read path.
const detailInAccount = prepare<{ json: string }, [id: string, accountId: string]>(2, (db, [id, accountId]) =>
  db.selectFrom('errors as e').select(fullErrorJson.as('json')).where('e.id', '=', id!).where('e.account_id', '=', accountId!),
)
const detailAnyAccount = prepare<{ json: string }, [id: string]>(1, (db, [id]) =>
  db.selectFrom('errors as e').select(fullErrorJson.as('json')).where('e.id', '=', id!),
)

/** Several errors as JSON text, in the order of `ids` (the answer of a bulk assignment). */
export async function findErrorsJson(db: Executor, ids: readonly string[]): Promise<JsonText<ErrorResource[]>> {
  const row = await db
    .selectNoFrom(
      sql<JsonText<ErrorResource[]>>`(select '[' || coalesce(string_agg(${fullErrorJson}, ',' order by array_position(${ids}::uuid[], e.id)), '') || ']'
        from errors e where e.id = any(${ids}::uuid[]))`.as('json'),
    )
    .executeTakeFirstOrThrow()
  return row.json
}

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
  if (filters.account_id) conditions.push(sql`t.account_id = ${filters.account_id}`)
  if (filters.status) conditions.push(sql`t.status = ${filters.status}`)
  if (filters.assignee) conditions.push(sql`t.assignee = ${filters.assignee}`)
  if (filters.severity) conditions.push(sql`t.severity = ${filters.severity}`)
  return conditions
}

/** `\`, `%` and `_` match themselves in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * The queue's named statement texts (searches, filtered and sorted pages, counts, export pages):
 * one per combination of filters, sort and page size a client uses. Past this many a new
 * combination runs unnamed, planned on each run (prepared.ts).
 */
const QUEUE_STATEMENTS = statementBudget(100)

/**
 * The page sizes written into a page's statement as literals (see listQuery): the default, the
 * console's and the largest, and a small one. Any other size is bound and its page planned on
 * each run, so a client asking for every size from 1 to 100 cannot make 100 statement texts.
 */
const LITERAL_PAGE_SIZES: ReadonlySet<number> = new Set([10, 25, 50, 100])

/** The most members (or groups) a search is resolved to before querying errors; past it the search stays a subquery. */
const SEARCH_ID_LIMIT = 5000

/** The members and groups a search text names, found first (by the trigram indexes of migration 0019). */
export interface SearchTargets {
  /**
   * The matching members: how many, and their ids as one PostgreSQL array literal (`{…}`) as the
   * database built it, bound as is (a thousand ids parsed into strings and quoted back cost the
   * server more than the query). Null when more than SEARCH_ID_LIMIT match: the errors are then
   * matched by subquery.
   */
  members: { count: number; ids: string } | null
  /** Null when more than SEARCH_ID_LIMIT groups match, as for members. */
  groupIds: string[] | null
}

/** Filters with the search resolved to ids; what the listing, the counts and the export query with. */
export type ResolvedFilters = ErrorFilters & { search?: SearchTargets }

/**
 * The most members and groups a search may name and still run as a named statement. After five
 * runs PostgreSQL may plan a named statement once for any values, assuming about ten ids in a
 * list: it then reads the members' errors and sorts them, right for a few members and 20 times
 * slower than walking the age index for a common last name (1,000 members). A longer list is
 * planned for its own size on each run.
 */
const NAMED_SEARCH_MAX = 50

/** Whether a query with these filters may run as a named statement (see NAMED_SEARCH_MAX). */
function mayName(filters: ResolvedFilters): boolean {
  if (!filters.q) return true
  const { members, groupIds } = filters.search ?? { members: null, groupIds: null }
  return members !== null && groupIds !== null && members.count + groupIds.length <= NAMED_SEARCH_MAX
}

// The expressions of the trigram indexes of migration 0019, word for word: PostgreSQL uses an
// expression index only for the same expression.
const memberSearched = (pattern: string) => sql`lower(m.first_name || ' ' || m.last_name || ' ' || m.external_identifier) like lower(${pattern})`
const groupSearched = (pattern: string) => sql`lower(g.organization_name || ' ' || g.external_identifier) like lower(${pattern})`

/**
 * Resolves `q` to the members and groups it names, in the caller's account: errors are then found
 * through their member and group indexes. Written as one condition (a subquery per side, ORed),
 * PostgreSQL read every error of the coverage period for each search (bench:queue, issue 17).
 */
export async function resolveSearch(db: Executor, filters: ErrorFilters, accountScope: AccountScope): Promise<ResolvedFilters> {
  if (!filters.q || 'search' in filters) return filters
  const pattern = `%${likeLiteral(filters.q)}%`
  const inAccount = (alias: 'm' | 'g') => (accountScope ? sql`and ${sql.ref(`${alias}.account_id`)} = ${accountScope}` : sql``)
  // One round trip for both: a search is a few milliseconds of database time, and each statement
  // costs the server a few tenths of one.
  const result = await executeNamed(
    db,
    sql<{ member_count: number; member_ids: string | null; group_ids: string[] }>`select s.member_count, s.member_ids,
        (select coalesce(array_agg(g.id::text), '{}')
           from (select g.id from groups g where ${groupSearched(pattern)} ${inAccount('g')} limit ${SEARCH_ID_LIMIT + 1}) g) as group_ids
      from (select count(*)::int as member_count, array_agg(m.id)::text as member_ids
              from (select m.id from members m where ${memberSearched(pattern)} ${inAccount('m')} limit ${SEARCH_ID_LIMIT + 1}) m) s`,
    true,
    QUEUE_STATEMENTS,
  )
  const found = result.rows[0]!
  return {
    ...filters,
    search: {
      members: found.member_count > SEARCH_ID_LIMIT ? null : { count: found.member_count, ids: found.member_ids ?? '{}' },
      groupIds: found.group_ids.length > SEARCH_ID_LIMIT ? null : found.group_ids,
    },
  }
}

/**
 * Errors whose member's name or external identifier, or whose group's organization name or
 * external identifier, contains the text; `%` and `_` match themselves.
 */
function searchCondition(q: string, search: SearchTargets | undefined): RawBuilder<unknown> {
  const pattern = `%${likeLiteral(q)}%`
  const byMember =
    search?.members === null || search === undefined
      ? sql`t.member_id in (select m.id from members m where ${memberSearched(pattern)})`
      : search.members.count > 0
        ? sql`t.member_id = any(${search.members.ids}::uuid[])`
        : null
  const byGroup =
    search?.groupIds === null || search === undefined
      ? sql`t.group_id in (select g.id from groups g where ${groupSearched(pattern)})`
      : search.groupIds.length > 0
        ? sql`t.group_id = any(${arrayLiteral(search.groupIds)}::uuid[])`
        : null
  const either = [byMember, byGroup].filter((condition) => condition !== null)
  if (either.length === 0) return sql`false`
  return either.length === 1 ? either[0]! : sql`(${either[0]!} or ${either[1]!})`
}

/** Conditions error_counts cannot answer: these filters count the errors themselves. */
function rowConditions(filters: ResolvedFilters): RawBuilder<unknown>[] {
  const conditions: RawBuilder<unknown>[] = []
  if (filters.source) conditions.push(sql`t.source = ${filters.source}`)
  if (filters.parameter) conditions.push(sql`t.discrepancy_parameter = ${filters.parameter}`)
  if (filters.member_id) conditions.push(sql`t.member_id = ${filters.member_id}`)
  // `me` was replaced by the caller's user id before reaching here (errors.service.ts).
  if (filters.assigned_user_id === 'none') conditions.push(sql`t.assigned_user_id is null`)
  else if (filters.assigned_user_id) conditions.push(sql`t.assigned_user_id = ${filters.assigned_user_id}`)
  if (filters.q) conditions.push(searchCondition(filters.q, filters.search))
  return conditions
}

/**
 * The total of a listing. Filtered by scope, status, assignee and severity only (the queue's
 * usual questions) it is a sum over the few rows of error_counts, which triggers keep in step with
 * every write (migrations 0003, 0019); counting tens of thousands of matching errors per page
 * would cost more than the page. Any other filter counts the errors themselves.
 */
function totalOf(where: ErrorListScope, filters: ResolvedFilters): RawBuilder<number> {
  const scope = scopeConditions(where, filters)
  const rows = rowConditions(filters)
  if (rows.length === 0) return sql<number>`(select coalesce(sum(t.delta), 0)::int from error_counts t where ${and(scope)})`
  return sql<number>`(select count(*)::int from errors t where ${and([...scope, ...rows])})`
}

/**
 * Each sort's columns, then the direction of all of them: a whole order reversed keeps index
 * scans usable (migration 0019 indexes each of these per coverage period). Ties are broken by
 * how long errors have waited (aged_from), then id.
 */
const ORDERINGS: Record<ErrorSort, { columns: readonly string[]; descending: boolean }> = {
  created_at: { columns: ['created_at', 'id'], descending: false },
  '-created_at': { columns: ['created_at', 'id'], descending: true },
  // Age ascending is the youngest first: the latest aged_from.
  age: { columns: ['aged_from', 'id'], descending: true },
  '-age': { columns: ['aged_from', 'id'], descending: false },
  severity: { columns: ['severity_rank', 'aged_from', 'id'], descending: false },
  '-severity': { columns: ['severity_rank', 'aged_from', 'id'], descending: true },
  parameter: { columns: ['discrepancy_parameter', 'aged_from', 'id'], descending: false },
  '-parameter': { columns: ['discrepancy_parameter', 'aged_from', 'id'], descending: true },
  status: { columns: ['status_rank', 'aged_from', 'id'], descending: false },
  '-status': { columns: ['status_rank', 'aged_from', 'id'], descending: true },
}

/** `order by` of a sort on a table alias. */
function orderOf(sort: ErrorSort, alias: 't' | 'e'): RawBuilder<unknown> {
  const { columns, descending } = ORDERINGS[sort]
  return sql.raw(columns.map((column) => `${alias}.${column}${descending ? ' desc' : ''}`).join(', '))
}

/**
 * A page and its total. The page is chosen by id alone, so a filter on columns the sort's index
 * carries (migration 0022) is answered from the index; only the chosen rows are then read.
 *
 * The page size (one of LITERAL_PAGE_SIZES), and the offset of a first page, are written into
 * the SQL as literals. These statements are named, and after five runs PostgreSQL may plan them
 * once for any values (a generic plan), when that plan costs no more than one planned for the
 * values: with the size a parameter, the generic plan assumes a tenth of the table and reads
 * every error to join it; with the offset a parameter, it assumes a tenth of the table skipped,
 * which costs more than the custom plan, so PostgreSQL replanned every page (1.8 to 2.8 ms, as
 * much as running it). First pages, the ones operators open, now plan once per connection.
 * Later pages keep the offset a parameter and are planned each time, as are other page sizes.
 */
function listQuery(db: Kysely<Database> | Executor, where: ErrorListScope, filters: ResolvedFilters, perPage: number, offset: unknown, sort: ErrorSort = 'created_at') {
  const limit = LITERAL_PAGE_SIZES.has(perPage) ? sql.lit(perPage) : sql`${perPage}`
  const skip = offset === 0 ? sql.lit(0) : sql`${offset}`
  const condition = and([...scopeConditions(where, filters), ...rowConditions(filters)])
  return db.selectNoFrom([
    totalOf(where, filters).as('total'),
    sql<JsonText<ErrorResource[]>>`(
      select '[' || coalesce(string_agg(${fullErrorJson}, ',' order by ${orderOf(sort, 'e')}), '') || ']'
        from (select t.id from errors t where ${condition} order by ${orderOf(sort, 't')} limit ${limit} offset ${skip}) page
        join errors e on e.id = page.id)`.as('errors'),
  ])
}
type ListRow = { total: number; errors: JsonText<ErrorResource[]> }

/**
 * The errors a search names that match the other filters, with the given columns, as the body of
 * a CTE: the errors of the members whose name or identifier contains the text, then those of the
 * groups whose name or identifier does (and not already counted through their member). All in
 * the statement that pages or counts them: the matching members' ids never leave the database,
 * and one statement text, planned once per connection, serves every search of that shape.
 *
 * The members are found by their trigram index, and their errors through errors_member_idx,
 * which carries every column filtered, sorted or counted on (migration 0024): the matching errors
 * are counted and the page's ids chosen from index entries alone, without reading an error row.
 * The two sides are a UNION ALL, not one condition ORed: with an OR PostgreSQL read every error of
 * the coverage period for each search (bench:queue, issue 17).
 */
function searchHits(where: ErrorListScope, filters: ErrorFilters, columns: readonly string[]): RawBuilder<unknown> {
  const pattern = `%${likeLiteral(filters.q!)}%`
  const selected = sql.raw([...new Set(['id', ...columns])].map((column) => `t.${column}`).join(', '))
  const conditions = and([...scopeConditions(where, filters), ...rowConditions({ ...filters, q: undefined })])
  const inAccount = (alias: 'm' | 'g') => (where.accountScope ? sql`and ${sql.ref(`${alias}.account_id`)} = ${where.accountScope}` : sql``)
  return sql`with found as materialized (select m.id from members m where ${memberSearched(pattern)} ${inAccount('m')})
    select ${selected} from errors t where t.member_id in (select id from found) and ${conditions}
    union all
    select ${selected} from errors t
     where t.group_id in (select g.id from groups g where ${groupSearched(pattern)} ${inAccount('g')}) and ${conditions}
       and (t.member_id is null or t.member_id not in (select id from found))`
}

/** A page of the errors a search names and its total (see searchHits), in one statement (one snapshot) as listQuery's are. */
function searchListQuery(where: ErrorListScope, filters: ErrorFilters, perPage: number, offset: unknown, sort: ErrorSort): RawBuilder<ListRow> {
  const limit = LITERAL_PAGE_SIZES.has(perPage) ? sql.lit(perPage) : sql`${perPage}`
  const skip = offset === 0 ? sql.lit(0) : sql`${offset}`
  return sql<ListRow>`with hits as materialized (${searchHits(where, filters, ORDERINGS[sort].columns)})
    select (select count(*)::int from hits) as total,
      (select '[' || coalesce(string_agg(${fullErrorJson}, ',' order by ${orderOf(sort, 'e')}), '') || ']'
         from (select t.id from hits t order by ${orderOf(sort, 't')} limit ${limit} offset ${skip}) page
         join errors e on e.id = page.id) as errors`
}

// The queue's usual questions (a coverage period's or an account's errors, by status and
// assignee) are prepared: the statement is big enough that planning it cost about as much as
// running it. One variant per shape, page size (LITERAL_PAGE_SIZES) and first page or not, made on
// first use; the parameters in this order: coverage period, account, status, assignee, offset
// (those it has).
interface ListShape {
  period: boolean
  scoped: boolean
  status: boolean
  assignee: boolean
}
type PreparedList = (db: Executor, ...params: unknown[]) => Promise<ListRow[]>
const preparedLists = new Map<string, PreparedList>()

function preparedList(shape: ListShape, perPage: number, firstPage: boolean): PreparedList {
  const key = `${+shape.period}${+shape.scoped}${+shape.status}${+shape.assignee}:${perPage}:${+firstPage}`
  let list = preparedLists.get(key)
  if (!list) {
    const arity = Object.values(shape).filter(Boolean).length + (firstPage ? 0 : 1)
    list = prepare<ListRow, unknown[]>(arity, (db, p) => {
      let index = 0
      const next = () => p[index++]!
      const period = shape.period ? next() : undefined
      const accountScope = shape.scoped ? next() : undefined
      const filters: ErrorFilters = {}
      if (shape.status) filters.status = next() as ErrorFilters['status']
      if (shape.assignee) filters.assignee = next() as ErrorFilters['assignee']
      const where: ErrorListScope = period ? { coveragePeriodId: period, accountScope } : { accountScope }
      return listQuery(db, where, filters, perPage, firstPage ? 0 : next())
    })
    preparedLists.set(key, list)
  }
  return list
}

/** One page in creation order (ids are time-ordered) as JSON text, and the total, in one statement (one snapshot). */
export async function listErrors(db: Executor, where: ErrorListScope, filters: ErrorFilters, pageReq: PageRequest, sort: ErrorSort = 'created_at'): Promise<ListRow> {
  const { status, assignee, ...others } = filters
  const usual = sort === 'created_at' && LITERAL_PAGE_SIZES.has(pageReq.perPage) && Object.values(others).every((value) => value === undefined)
  if (usual) {
    const period = 'coveragePeriodId' in where ? where.coveragePeriodId : undefined
    const shape: ListShape = { period: period !== undefined, scoped: where.accountScope !== undefined, status: !!status, assignee: !!assignee }
    const params = [period, where.accountScope, status, assignee].filter((value) => value !== undefined)
    const offset = offsetOf(pageReq)
    const rows = offset === 0 ? await preparedList(shape, pageReq.perPage, true)(db, ...params) : await preparedList(shape, pageReq.perPage, false)(db, ...params, offset)
    return rows[0]!
  }
  // Named too, when it can be: a filtered, sorted or searched page is planned once per connection, not on every request.
  const query = filters.q ? searchListQuery(where, filters, pageReq.perPage, offsetOf(pageReq), sort).compile(db) : listQuery(db, where, filters, pageReq.perPage, offsetOf(pageReq), sort).compile()
  const result = await executeNamedCompiled(db, query, LITERAL_PAGE_SIZES.has(pageReq.perPage), QUEUE_STATEMENTS)
  return result.rows[0]!
}

/** How many errors match, by status and severity, in one statement (GET /errors/counts). */
export async function countErrors(db: Executor, where: ErrorListScope, filters: ErrorFilters): Promise<ErrorCounts> {
  const scope = scopeConditions(where, filters)
  const rows = rowConditions(filters)
  type Group = { status: string; severity: string; n: number }
  // As for totals: sums over error_counts unless a filter only the errors themselves can answer.
  const grouped = filters.q
    ? sql<Group>`select t.status, t.severity, count(*)::int as n from (${searchHits(where, filters, ['status', 'severity'])}) t group by t.status, t.severity`
    : rows.length === 0
      ? sql<Group>`select t.status, t.severity, coalesce(sum(t.delta), 0)::int as n from error_counts t where ${and(scope)} group by t.status, t.severity`
      : sql<Group>`select t.status, t.severity, count(*)::int as n from errors t where ${and([...scope, ...rows])} group by t.status, t.severity`
  const counts: ErrorCounts = { total: 0, by_status: { unresolved: 0, returned: 0, resolved: 0 }, by_severity: { failure: 0, warning: 0, info: 0 } }
  for (const row of (await executeNamed(db, grouped, true, QUEUE_STATEMENTS)).rows) {
    counts.total += row.n
    counts.by_status[row.status as keyof ErrorCounts['by_status']] += row.n
    counts.by_severity[row.severity as keyof ErrorCounts['by_severity']] += row.n
  }
  return counts
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

/** One page of an error's history, oldest first, with the comment and the assigned user each entry names. */
export async function listHistory(db: Executor, errorId: string, pageReq: PageRequest): Promise<{ items: ErrorHistoryEntry[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('error_history as h')
      .leftJoin('error_comments as c', 'c.id', 'h.comment_id')
      .leftJoin('users as u', 'u.id', 'h.assigned_user_id')
      .select([
        'h.id',
        'h.type',
        'h.created_at',
        'h.actor',
        'h.party',
        'h.from_status',
        'h.to_status',
        'h.assignee',
        'c.id as comment_id',
        'c.message as comment_message',
        'u.id as assigned_user_id',
        'u.email as assigned_user_email',
      ])
      .where('h.error_id', '=', errorId)
      .orderBy('h.created_at')
      .orderBy('h.id')
      .limit(pageReq.perPage)
      .offset(offsetOf(pageReq))
      .execute(),
    db.selectFrom('error_history').select(sql<number>`count(*)::int`.as('total')).where('error_id', '=', errorId).executeTakeFirstOrThrow(),
  ])
  const items = rows.map(
    (row): ErrorHistoryEntry => ({
      id: row.id,
      type: row.type,
      created_at: new Date(row.created_at).toISOString(),
      actor: row.actor,
      party: row.party,
      comment: row.comment_id ? { id: row.comment_id, message: row.comment_message! } : null,
      assigned_user: row.assigned_user_id ? { id: row.assigned_user_id, email: row.assigned_user_email! } : null,
      from_status: row.from_status as ErrorHistoryEntry['from_status'],
      to_status: row.to_status as ErrorHistoryEntry['to_status'],
      assignee: row.assignee as ErrorHistoryEntry['assignee'],
    }),
  )
  return { items, total: count.total }
}

/** Locks the errors in scope with these ids (in id order, so two bulk assignments cannot deadlock). */
export async function lockErrors(tx: Executor, scope: AccountScope, ids: readonly string[]): Promise<ErrorRow[]> {
  let query = tx.selectFrom('errors').selectAll().where(sql<boolean>`id = any(${[...ids]}::uuid[])`)
  if (scope) query = query.where('account_id', '=', scope)
  return query.orderBy('id').forUpdate().execute()
}

export async function setAssignedUser(tx: Executor, id: string, userId: string | null, now: Date): Promise<ErrorRow> {
  return tx.updateTable('errors').set({ assigned_user_id: userId, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

/** A row of the CSV export (errors.csv.ts): the columns a spreadsheet shows, and the sort key to continue after. */
export interface ExportRow {
  id: string
  status: string
  severity: string
  assignee: string
  assigned_to: string | null
  aged_from: string
  age_seconds: number
  created_at: string
  updated_at: string
  account_name: string
  employer_name: string
  group_id: string
  group_external_identifier: string
  member_name: string | null
  member_external_identifier: string | null
  member_id: string | null
  plan_name: string | null
  plan_id: string | null
  parameter: string
  kind: string
  message: string
  carrier_value: string | null
  platform_value: string | null
  source: string
  resolution_message: string | null
  resolved_by: string | null
  resolved_at: string | null
  comment_count: number
  /** The sort columns' values (keysetValues): the next page starts after the last row's. */
  keys: string
}

/** Each sortable column's type, to read a key back from its text exactly (timestamps keep their microseconds). */
const KEY_TYPES: Record<string, KeysetColumn['type']> = {
  created_at: 'timestamptz',
  aged_from: 'timestamptz',
  id: 'uuid',
  severity_rank: 'smallint',
  status_rank: 'smallint',
  discrepancy_parameter: 'text',
}

/** A sort's columns as keyset keys on alias t. */
function keysetOf(sort: ErrorSort): KeysetColumn[] {
  const { columns, descending } = ORDERINGS[sort]
  return columns.map((column) => ({ sql: sql.raw(`t.${column}`), type: KEY_TYPES[column]!, descending }))
}

/**
 * One page of the export after `after` (the previous page's last keys), in the listing's order:
 * keyset pages, so the export of 100,000 errors reads each once instead of skipping ever more.
 * SSN discrepancies export no value at all, masked or not.
 */
export async function exportPage(db: Executor, where: ErrorListScope, filters: ResolvedFilters, sort: ErrorSort, after: readonly string[] | null, limit: number): Promise<ExportRow[]> {
  const keys = keysetOf(sort)
  const conditions = [...scopeConditions(where, filters), ...rowConditions(filters)]
  if (after) conditions.push(keysetAfter(keys, after))
  const ts = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`)
  const value = (column: string) => sql.raw(`case when t.discrepancy_parameter = 'social_security_number' or ${column} is null or ${column} = 'null'::jsonb then null
      when jsonb_typeof(${column}) = 'string' then ${column} #>> '{}' else ${column}::text end`)
  // Named: an export runs the same text a hundred times (pages of 1,000 of 100,000 errors).
  const rows = await executeNamed(
    db,
    sql<ExportRow>`
    select t.id, t.status, t.severity, t.assignee, au.email as assigned_to, ${ts('t.aged_from')} as aged_from,
           greatest(0, floor(extract(epoch from (now() - t.aged_from))))::int as age_seconds,
           ${ts('t.created_at')} as created_at, ${ts('t.updated_at')} as updated_at,
           a.name as account_name, g.organization_name as employer_name, t.group_id, g.external_identifier as group_external_identifier,
           case when m.id is null then null else m.first_name || ' ' || m.last_name end as member_name,
           m.external_identifier as member_external_identifier, t.member_id, pl.description as plan_name, t.plan_id,
           t.discrepancy_parameter as parameter, t.discrepancy_kind as kind, t.message,
           ${value('t.discrepancy_carrier')} as carrier_value, ${value('t.discrepancy_platform')} as platform_value,
           t.source, t.resolution_message, t.resolved_by, ${ts('t.resolved_at')} as resolved_at, t.comment_count,
           ${keysetValues(keys)} as keys
      from errors t
      join accounts a on a.id = t.account_id
      join groups g on g.id = t.group_id
      left join members m on m.id = t.member_id
      left join plans pl on pl.id = t.plan_id
      left join users au on au.id = t.assigned_user_id
     where ${and(conditions)}
     order by ${orderOf(sort, 't')}
     limit ${sql.lit(limit)}`,
    mayName(filters),
    QUEUE_STATEMENTS,
  )
  return rows.rows
}
