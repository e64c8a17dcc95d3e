import { createHash } from 'node:crypto'
import {
  CompiledQuery,
  type QueryResult,
  type RawBuilder,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type Compilable,
} from 'kysely'
import type { Database, Executor } from './schema.js'

// SQL text -> statement name, for the named statements only: a bounded set (prepare's queries,
// built at load time or from a fixed set of shapes on first use, and executeNamed's, counted
// against their budgets), so each connection holds at most this many server-side statements.
const statementNames = new Map<string, string>()

/** The server-side statement name of a prepared query's text, or undefined for any other SQL. */
export function preparedStatementName(text: string): string | undefined {
  return statementNames.get(text)
}

function nameStatement(text: string): void {
  statementNames.set(text, `enrollsync_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`)
}

/**
 * How many statement texts a group of `executeNamed` callers may name; past it a new text runs
 * unnamed rather than piling up statements on the server. Bulk work's texts are fixed (every
 * value a parameter, lists as arrays), so a few dozen exist. The queues' pages have one text per
 * combination of filters and sort a client asks for: they get budgets of their own, so clients
 * trying many combinations cannot use up the names a census relies on.
 */
export interface StatementBudget {
  readonly max: number
  used: number
}
export const statementBudget = (max: number): StatementBudget => ({ max, used: 0 })
const BULK_STATEMENTS = statementBudget(200)

/** The longest id list a statement run through `executeNamed` takes named: a batch of bulk work (250 families) fits. */
export const NAMED_LIST_MAX = 1000

/**
 * Runs raw SQL of a fixed text (values as parameters, lists as one array parameter) as a named
 * statement on PostgreSQL, like `prepare`'s queries: for the statements bulk work repeats a
 * batch at a time (a census's 200 batches, a full file's 250 pages), which the server otherwise
 * parses and plans on every batch (a fifth of a census's database time, bench/RESULTS.md).
 * After five runs PostgreSQL may keep a generic plan, made without the values: it assumes a list
 * parameter holds about ten elements. So a caller whose list may be far longer than a batch
 * passes `named` false for it (see NAMED_LIST_MAX), and that run is planned for its own size.
 */
export async function executeNamed<Row>(db: Executor, query: RawBuilder<Row>, named = true, budget = BULK_STATEMENTS): Promise<QueryResult<Row>> {
  return executeNamedCompiled(db, query.compile(db), named, budget)
}

/**
 * executeNamed for a query already compiled (a typed builder's `.compile()`): the error queue's
 * filtered and sorted pages, whose text is fixed per combination of filters and sort, and whose
 * planning cost about as much as running them (bench/RESULTS.md, issue 17).
 */
export async function executeNamedCompiled<Row>(db: Executor, compiled: CompiledQuery<Row>, named = true, budget = BULK_STATEMENTS): Promise<QueryResult<Row>> {
  if (named && !statementNames.has(compiled.sql) && budget.used < budget.max) {
    budget.used++
    nameStatement(compiled.sql)
  }
  return db.executeQuery<Row>(compiled)
}

/** A Kysely that only compiles (Kysely's documented "DummyDriver" set-up): it never connects. */
const compiler = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
})

/**
 * A query for the hot path, written with the typed builder but built and compiled once: each call
 * only binds its parameters. The builder receives stand-ins for the parameters (`p[0]`, `p[1]`,
 * ...) and must use each at least once, as a value. Saves the per-request AST building and
 * compiling, which profiling showed is about a tenth of a cached authenticated read. On
 * PostgreSQL the text is also sent as a named statement (see `preparedStatementName`), so the
 * server parses and plans it once per connection instead of on every call.
 */
export function prepare<Row, Params extends readonly unknown[]>(
  arity: Params['length'],
  build: (db: Kysely<Database>, p: readonly string[]) => Compilable<Row>,
): (db: Executor, ...params: Params) => Promise<Row[]> {
  const standIns = Array.from({ length: arity }, (_, i) => `\u0000param${i}\u0000`)
  const compiled = build(compiler, standIns).compile()
  // Each bound value is a stand-in (bound per call) or a constant of the query ('subscriber').
  const binders = compiled.parameters.map((value): { param: number } | { constant: unknown } => {
    const index = standIns.indexOf(value as string)
    return index >= 0 ? { param: index } : { constant: value }
  })
  const used = new Set(binders.flatMap((binder) => ('param' in binder ? [binder.param] : [])))
  if (used.size !== arity) {
    throw new Error(`prepared query must use each of its ${arity} parameters: ${compiled.sql}`)
  }
  nameStatement(compiled.sql)
  return async (db, ...params) => {
    const values = binders.map((binder) => ('param' in binder ? params[binder.param] : binder.constant))
    const result = await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, values))
    return result.rows
  }
}
