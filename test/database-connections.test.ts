import { once } from 'node:events'
import { sql } from 'kysely'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { IDLE_CONNECTION_WARNING_CODE, openDatabase } from '../src/db/database.js'

const postgresUrl = process.env.DATABASE_URL

// PGlite has no server processes to end: this is about a real PostgreSQL server.
describe.runIf(!!postgresUrl)('pooled connections on PostgreSQL', () => {
  it('when the server ends a connection idle in the pool, then the service warns and keeps answering instead of exiting', async () => {
    const handle = await openDatabase({ kind: 'postgres', url: postgresUrl!, poolSize: 1 })
    const admin = new pg.Client({ connectionString: postgresUrl })
    await admin.connect()
    try {
      // One connection in the pool, now idle: the one the server is about to end.
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(handle.db)
      const idlePid = rows[0]!.pid
      const warned = once(process, 'warning') as Promise<[Error & { code?: string }]>

      await admin.query('select pg_terminate_backend($1)', [idlePid])

      const [warning] = await warned
      expect(warning.code).toBe(IDLE_CONNECTION_WARNING_CODE)
      expect(warning.message).toContain('terminating connection due to administrator command')
      // The pool opens a new connection for the next query.
      const after = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(handle.db)
      expect(after.rows[0]!.pid).not.toBe(idlePid)
    } finally {
      await admin.end()
      await handle.close()
    }
  })
})
