import { createHash } from 'node:crypto'
import {
  CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type Compilable,
} from 'kysely'
import type { Database, Executor } from './schema.js'

// SQL text -> statement name, for the prepared queries only: a bounded set, known at load time,
// so each connection holds at most this many server-side statements.
const statementNames = new Map<string, string>()

/** The server-side statement name of a prepared query's text, or undefined for any other SQL. */
export function preparedStatementName(text: string): string | undefined {
  return statementNames.get(text)
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
  statementNames.set(compiled.sql, `enrollsync_${createHash('sha256').update(compiled.sql).digest('hex').slice(0, 16)}`)
  return async (db, ...params) => {
    const values = binders.map((binder) => ('param' in binder ? params[binder.param] : binder.constant))
    const result = await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, values))
    return result.rows
  }
}
