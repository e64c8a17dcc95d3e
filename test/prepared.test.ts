import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { executeNamed, prepare } from '../src/db/prepared.js'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

describe('prepared queries', () => {
  it('when parameters are used in another order than given, then each binds to its own place', async () => {
    const partner = await t.newPartner()
    const { user } = (await call(t.app, partner, 'POST', '/users', { user: { email: 'prepared@example.com' } })).json()
    // Parameters given as (email, accountId) but used account first: the binding must follow use.
    const byEmail = prepare<{ id: string }, [email: string, accountId: string]>(2, (db, [email, accountId]) =>
      db.selectFrom('users').select('id').where('account_id', '=', accountId!).where('email', '=', email!),
    )
    expect(await byEmail(t.db, 'prepared@example.com', partner.accountId)).toEqual([{ id: user.id }])
    expect(await byEmail(t.db, 'prepared@example.com', (await t.newPartner()).accountId)).toEqual([])
  })

  it('when a builder leaves a parameter unused, then preparing it fails at once', () => {
    expect(() => prepare<{ id: string }, [string, string]>(2, (db, [id]) => db.selectFrom('users').select('id').where('id', '=', id!))).toThrow(
      /each of its 2 parameters/,
    )
  })
})

describe.runIf(!!process.env.DATABASE_URL)('prepared queries on PostgreSQL', () => {
  it('when a prepared query runs, then PostgreSQL keeps it as a named statement of the connection', async () => {
    const { openDatabase } = await import('../src/db/database.js')
    const { sql } = await import('kysely')
    // One connection, so the session that ran the query is the one inspected.
    const handle = await openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL!, poolSize: 1 })
    try {
      const byId = prepare<{ id: string }, [id: string]>(1, (db, [id]) => db.selectFrom('users').select('id').where('id', '=', id!))
      await byId(handle.db, '00000000-0000-7000-8000-000000000000')
      const names = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(handle.db)
      expect(names.rows.map((r) => r.name)).toContainEqual(expect.stringMatching(/^enrollsync_[0-9a-f]{16}$/))
    } finally {
      await handle.close()
    }
  })

  it('when a prepared query fails, then it rejects with PostgreSQL’s error and the connection goes on serving it', async () => {
    const { openDatabase } = await import('../src/db/database.js')
    const handle = await openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL!, poolSize: 1 })
    try {
      const byId = prepare<{ id: string }, [id: string]>(1, (db, [id]) => db.selectFrom('users').select('id').where('id', '=', id!))
      // Not a uuid: PostgreSQL refuses the value (22P02), as it refuses any bad input of a client.
      await expect(byId(handle.db, 'not-a-uuid')).rejects.toMatchObject({ code: '22P02' })
      expect(await byId(handle.db, '00000000-0000-7000-8000-000000000000')).toEqual([])
    } finally {
      await handle.close()
    }
  })

  it('when raw SQL runs through executeNamed, then it is a named statement, and it still reads a temporary table made again by the next transaction', async () => {
    const { openDatabase } = await import('../src/db/database.js')
    const { sql } = await import('kysely')
    const handle = await openDatabase({ kind: 'postgres', url: process.env.DATABASE_URL!, poolSize: 1 })
    try {
      // As a census's pairing does: a table of its transaction, read by a named statement that
      // outlives it on the connection; each transaction must read its own table's rows.
      const readBack = async (value: number) =>
        handle.db.transaction().execute(async (tx) => {
          await sql`CREATE TEMP TABLE named_statement_probe (n integer) ON COMMIT DROP`.execute(tx)
          await executeNamed(tx, sql`INSERT INTO named_statement_probe (n) SELECT * FROM unnest(${[value, value + 1]}::integer[])`)
          const rows = await executeNamed(tx, sql<{ n: number }>`SELECT n FROM named_statement_probe WHERE n >= ${0} ORDER BY n`)
          const statements = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(tx)
          return { values: rows.rows.map((r) => r.n), statements: statements.rows.map((r) => r.statement) }
        })
      const first = await readBack(1)
      expect(first.values).toEqual([1, 2])
      expect(first.statements).toContainEqual(expect.stringContaining('FROM named_statement_probe WHERE n >='))
      expect((await readBack(10)).values).toEqual([10, 11])
    } finally {
      await handle.close()
    }
  })
})
