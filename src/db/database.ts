import { join } from 'node:path'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import type { DatabaseConfig } from '../config.js'
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.js'
import { preparedStatementName } from './prepared.js'
import { requestAwareDialect } from './request-aware-driver.js'
import type { Database, Db } from './schema.js'

// Return int8 (counts) as numbers: every count we serve is far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10))
// Keep `date` columns as the YYYY-MM-DD text they are: a JavaScript Date would shift them by the
// server's time zone, and the API speaks dates as strings anyway.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value)

/**
 * Sends the prepared queries' texts (src/db/prepared.ts) as named statements, so PostgreSQL parses
 * and plans each once per connection; profiling showed planning a `members` read cost more than
 * the read. Every other query goes as usual. Needs a server or pooler that keeps named statements
 * per connection (PostgreSQL itself; PgBouncer 1.21+ with max_prepared_statements).
 */
class NamedStatementClient extends pg.Client {
  // `any`: pg's query() has a dozen overloads; this passes every call through unchanged except
  // for a plain (text, values) call whose text is a prepared query's.
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values)) {
      const name = preparedStatementName(config)
      if (name && callback === undefined) return this.namedQuery(name, config, values)
      if (name) return super.query({ name, text: config, values }, callback)
    }
    return super.query(config, values, callback)
  }

  /**
   * The query made from its text, which pg takes as it is, and named afterwards: given a config
   * object, pg 8.23 copies it property by property (normalizeQueryConfig) on every query, which
   * cost a prepared read 1.6 µs, a tenth of what it spends in the driver (bench/profile.mjs).
   */
  private namedQuery(name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      // pg reads `name` from the query it is given; its types leave the field out.
      const query: pg.Query & { name?: string } = new pg.Query(text, values, (error, result) => (error ? reject(error) : resolve(result)))
      query.name = name
      super.query(query)
    })
  }
}

/** The default of DATABASE_CONNECT_TIMEOUT_MS, for callers that open PostgreSQL without a config. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000

export interface DatabaseHandle {
  readonly db: Db
  readonly kind: 'embedded' | 'postgres'
  /** Round trip to the database, for readiness checks. */
  ping(): Promise<void>
  close(): Promise<void>
}

/**
 * One code path for both databases: Kysely over a `pg.Pool`. The embedded PGlite is reached
 * through its node-postgres adapter, so every query the tests run on PGlite is the query
 * production runs on PostgreSQL.
 */
export async function openDatabase(config: DatabaseConfig | { kind: 'memory' }): Promise<DatabaseHandle> {
  if (config.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: config.url,
      max: config.poolSize,
      Client: NamedStatementClient,
      // Bounds the wait for a connection (connecting, or a busy pool's turn), so a request meets an
      // unreachable database with a 503 instead of hanging (DATABASE_CONNECT_TIMEOUT_MS).
      connectionTimeoutMillis: config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      // Lets the kernel notice a connection whose server vanished without a word (a failover).
      keepAlive: true,
    })
    pool.on('error', reportIdleConnectionError)
    // A connection lost while checked out (a query or transaction in flight, a restart, a cut
    // network) fails that query, which answers 503; pg also emits 'error' on the client, and the
    // pool listens only while the client is idle: unheard, that event would end the process. The
    // pool discards the dead client when it is released.
    pool.on('connect', (client) => client.on('error', ignoreCheckedOutConnectionError))
    return wrap(pool, 'postgres', async () => {})
  }
  let lock: DataDirLock | undefined
  let dataDir = 'memory://'
  if (config.kind === 'embedded') {
    lock = acquireDataDirLock(config.dataDir)
    dataDir = join(config.dataDir, 'pgdata')
  }
  try {
    // Loaded only in embedded mode: the WASM build is tens of megabytes a PostgreSQL deployment never needs.
    const { PGlite } = await import('@electric-sql/pglite')
    const { createPgConfig } = await import('@electric-sql/pglite/node-postgres')
    // pg_trgm serves the error queue's search (migration 0019); it ships inside the package.
    const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm')
    const pglite = await PGlite.create(dataDir, { extensions: { pg_trgm } })
    const pool = new pg.Pool(createPgConfig(pglite))
    return wrap(pool, 'embedded', async () => {
      await pglite.close()
      lock?.release()
    })
  } catch (error) {
    lock?.release()
    throw error
  }
}

/**
 * PostgreSQL ended a connection that sat idle in the pool (a server restart, a failover, an
 * administrator's pg_terminate_backend, or a database dropped WITH (FORCE) while the pool was
 * still saying goodbye). The pool has already discarded it and opens a new one when needed, so
 * this is worth a warning, not a crash: without a listener, Node throws the pool's 'error' event
 * and the whole service would exit. The message is the server's, which never carries row data.
 */
export const IDLE_CONNECTION_WARNING_CODE = 'ENROLLSYNC_IDLE_CONNECTION_LOST'

function ignoreCheckedOutConnectionError(): void {}

function reportIdleConnectionError(error: Error): void {
  process.emitWarning(`PostgreSQL closed an idle pooled connection (${error.message}); a new one is opened when needed`, {
    code: IDLE_CONNECTION_WARNING_CODE,
  })
}

function wrap(pool: pg.Pool, kind: DatabaseHandle['kind'], afterPoolEnd: () => Promise<void>): DatabaseHandle {
  // Request-aware: inside a request transaction (src/db/request-transaction.ts) every query of
  // this Db and of every Kysely made from it runs in that transaction.
  const db = new Kysely<Database>({ dialect: requestAwareDialect(new PostgresDialect({ pool })) })
  let closed = false
  return {
    db,
    kind,
    async ping() {
      await sql`select 1`.execute(db)
    },
    async close() {
      if (closed) return
      closed = true
      await db.destroy()
      await afterPoolEnd()
    },
  }
}
