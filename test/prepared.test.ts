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

  it('when a builder does not use every parameter exactly once, then preparing it fails at once', () => {
    expect(() => prepare<{ id: string }, [string, string]>(2, (db, [id]) => db.selectFrom('users').select('id').where('id', '=', id!))).toThrow(
      /each of its 2 parameters exactly once/,
    )
  })
})
