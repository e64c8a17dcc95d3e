import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { prepare } from '../src/db/prepared.js'
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
})
