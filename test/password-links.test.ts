import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryRateLimitStore } from '../src/http/rate-limit.js'
import { DEFAULT_CONSOLE_SESSION_SETTINGS } from '../src/modules/sessions/session-settings.js'
import { consoleUser, freshAddress, signedIn, signIn, withSession } from './helpers/console-session.js'
import { call, expectProblem, startTestApp, systemActor, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
/** Operators create links for users of any account; partner API keys may not (see below). */
let operator: Credential
const logLines: string[] = []
beforeAll(async () => {
  // Every log line of the app is kept, to check that no token ever reaches the logs.
  const sink = new Writable({ write: (chunk, _encoding, done) => void (logLines.push(String(chunk)), done()) })
  t = await startTestApp({ logger: { level: 'trace', stream: sink } })
  operator = await t.newOperator()
})
afterAll(async () => t?.close())

let counter = 0
const uniqueEmail = (label: string) => `${label}.${Date.now().toString(36)}.${++counter}@example.com`

/** A user without a password yet: what "Add a console user" leaves. */
async function newUser(account: Pick<Credential, 'accountId'>) {
  return t.services.users.createUser(systemActor(account.accountId), { email: uniqueEmail('link.user'), role_names: [] }, account.accountId)
}

interface CreatedLink {
  id: string
  user_id: string
  url: string
  token: string
  created_at: string
  expires_at: string
}

async function createLink(userId: string, who: Credential = operator): Promise<CreatedLink> {
  const res = await call(t.app, who, 'POST', `/users/${userId}/password_links`)
  expect(res.statusCode, res.body).toBe(201)
  return res.json().password_link
}

const redeem = (token: string, password: string, remoteAddress = freshAddress()) =>
  t.app.inject({ method: 'POST', url: '/password_links/redemption', payload: { token, password }, remoteAddress })

describe('creating a set-password link', () => {
  it('when an administrator signed in to the console creates a link, then it is answered once with a console URL that holds the token after #, for 24 hours', async () => {
    const partner = await t.newPartner()
    const admin = await consoleUser(t, partner, ['admin'])
    const session = await signedIn(t.app, admin)
    const user = await newUser(partner)

    const res = await withSession(t.app, session, 'POST', `/users/${user.id}/password_links`, undefined, { host: 'enrollsync.example.com' })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    const link = res.json().password_link as CreatedLink
    expect(link).toEqual({
      id: expect.any(String),
      user_id: user.id,
      url: `http://enrollsync.example.com/console/set-password#token=${link.token}`,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      created_at: expect.any(String),
      expires_at: expect.any(String),
    })
    expect(Date.parse(link.expires_at) - Date.parse(link.created_at)).toBe(DEFAULT_CONSOLE_SESSION_SETTINGS.passwordLinkTtlSeconds * 1000)

    // Only the hash is kept: the token is nowhere in the database.
    const row = await t.db.selectFrom('password_links').selectAll().where('id', '=', link.id).executeTakeFirstOrThrow()
    expect(row.token_hash).toHaveLength(32)
    expect(JSON.stringify(row)).not.toContain(link.token)

    const audit = await call(t.app, await t.newOperator(), 'GET', `/audit_events?resource_id=${user.id}&action=user.password_link_created`)
    expect(audit.json().audit_events).toEqual([expect.objectContaining({ account_id: partner.accountId, channel: 'console', resource_type: 'user' })])
  })

  it('when a console user without the admin role creates a link, then 403 admin_role_required and no link exists', async () => {
    const partner = await t.newPartner()
    const session = await signedIn(t.app, await consoleUser(t, partner, ['benefits_admin']))
    const user = await newUser(partner)
    expectProblem(await withSession(t.app, session, 'POST', `/users/${user.id}/password_links`), 403, 'admin_role_required')
    expect(await t.db.selectFrom('password_links').select('id').where('user_id', '=', user.id).execute()).toEqual([])
  })

  it("when an account's administrator in the console asks for another account's user, then 404 user_not_found; B's administrator and an operator may", async () => {
    const partnerA = await t.newPartner('Partner A')
    const partnerB = await t.newPartner('Partner B')
    const userOfB = await newUser(partnerB)
    const adminOfA = await signedIn(t.app, await consoleUser(t, partnerA, ['admin']))
    const adminOfB = await signedIn(t.app, await consoleUser(t, partnerB, ['admin']))

    expectProblem(await withSession(t.app, adminOfA, 'POST', `/users/${userOfB.id}/password_links`), 404, 'user_not_found')
    expect(await t.db.selectFrom('password_links').select('id').where('user_id', '=', userOfB.id).execute()).toEqual([])

    expect((await withSession(t.app, adminOfB, 'POST', `/users/${userOfB.id}/password_links`)).statusCode).toBe(201)
    const byOperator = await createLink(userOfB.id)
    expect((await redeem(byOperator.token, 'set by the operator link')).statusCode).toBe(200)
  })

  it("when a partner API key asks for a link, even for its own account's user, then 403 forbidden: a key cannot make itself a console administrator", async () => {
    const partner = await t.newPartner()
    // What a key could otherwise do: add an admin user, give it a password, and sign in as it
    // to reach what keys may not (managing API keys).
    const created = await call(t.app, partner, 'POST', '/users', { user: { email: uniqueEmail('self.made.admin'), role_names: ['admin'] } })
    expect(created.statusCode, created.body).toBe(201)
    const res = await call(t.app, partner, 'POST', `/users/${created.json().user.id}/password_links`)
    expectProblem(res, 403, 'forbidden')
    expect(await t.db.selectFrom('password_links').select('id').where('user_id', '=', created.json().user.id).execute()).toEqual([])
  })

  it('when the user is deactivated, then 409 user_deactivated', async () => {
    const partner = await t.newPartner()
    const user = await newUser(partner)
    await call(t.app, partner, 'POST', `/users/${user.id}/deactivation`)
    expectProblem(await call(t.app, operator, 'POST', `/users/${user.id}/password_links`), 409, 'user_deactivated')
  })

  it('when the request carries an Idempotency-Key, then the answer is not stored for replay: the same key makes a newer link', async () => {
    const partner = await t.newPartner()
    const user = await newUser(partner)
    const headers = { 'idempotency-key': `link-${user.id}` }
    const first = await call(t.app, operator, 'POST', `/users/${user.id}/password_links`, undefined, headers)
    const second = await call(t.app, operator, 'POST', `/users/${user.id}/password_links`, undefined, headers)
    expect([first.statusCode, second.statusCode]).toEqual([201, 201])
    expect(second.headers['idempotent-replayed']).toBeUndefined()
    expect(second.json().password_link.token).not.toBe(first.json().password_link.token)
    const stored = await t.db.selectFrom('idempotency_keys').selectAll().execute()
    expect(JSON.stringify(stored)).not.toContain(first.json().password_link.token)
  })
})

describe('redeeming a set-password link', () => {
  it('when the link is used, then the password is set, the user signs in with it, and the same link never works again', async () => {
    const partner = await t.newPartner()
    const user = await newUser(partner)
    const link = await createLink(user.id)

    const res = await redeem(link.token, 'my own pass phrase 1')
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ user: { id: user.id, email: user.email }, password_set_at: expect.any(String) })
    expect((await signIn(t.app, user.email, 'my own pass phrase 1')).statusCode).toBe(201)

    expectProblem(await redeem(link.token, 'a second pass phrase'), 404, 'password_link_invalid')
    expect((await signIn(t.app, user.email, 'a second pass phrase')).statusCode).toBe(401)

    const audit = await call(t.app, await t.newOperator(), 'GET', `/audit_events?resource_id=${user.id}&action=user.password_set`)
    expect(audit.json().audit_events).toEqual([expect.objectContaining({ channel: 'console', account_id: partner.accountId })])
  })

  it('when two redemptions of one link race, then exactly one sets its password', async () => {
    const partner = await t.newPartner()
    const user = await newUser(partner)
    const link = await createLink(user.id)
    const answers = await Promise.all([redeem(link.token, 'racing pass phrase A'), redeem(link.token, 'racing pass phrase B')])
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 404])
  })

  it('when a link resets the password, then the sessions opened with the old one end', async () => {
    const partner = await t.newPartner()
    const user = await consoleUser(t, partner)
    const session = await signedIn(t.app, user)
    const link = await createLink(user.id)
    expect((await redeem(link.token, 'a brand new pass phrase')).statusCode).toBe(200)
    expectProblem(await withSession(t.app, session, 'GET', '/session'), 401, 'session_expired')
    expect((await signIn(t.app, user.email, user.password)).statusCode).toBe(401)
  })

  it('when a newer link is created, then the older unused one stops working and the newer one works', async () => {
    const partner = await t.newPartner()
    const user = await newUser(partner)
    const older = await createLink(user.id)
    const newer = await createLink(user.id)
    expectProblem(await redeem(older.token, 'from the older link'), 404, 'password_link_invalid')
    expect((await redeem(newer.token, 'from the newer link')).statusCode).toBe(200)
  })

  it('when the link has expired, then 404 password_link_invalid and no password is set', async () => {
    const partner = await t.newPartner()
    const user = await newUser(partner)
    const link = await createLink(user.id)
    // A day later, as far as the link is concerned.
    await t.db.updateTable('password_links').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', link.id).execute()
    expectProblem(await redeem(link.token, 'too late pass phrase'), 404, 'password_link_invalid')
    const row = await t.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow()
    expect(row.password_hash).toBeNull()
  })

  it('when PASSWORD_LINK_TTL_SECONDS is set, then links expire after it', async () => {
    const shortLived = await startTestApp({ database: t.database, consoleSessions: { ...DEFAULT_CONSOLE_SESSION_SETTINGS, passwordLinkTtlSeconds: 600 } })
    try {
      const partner = await shortLived.newPartner()
      const user = await newUser(partner)
      const res = await call(shortLived.app, operator, 'POST', `/users/${user.id}/password_links`)
      const link = res.json().password_link as CreatedLink
      expect(Date.parse(link.expires_at) - Date.parse(link.created_at)).toBe(600_000)
    } finally {
      await shortLived.close()
    }
  })

  it('when the user was deactivated after the link was made, then the link does not work', async () => {
    const partner = await t.newPartner()
    const user = await newUser(partner)
    const link = await createLink(user.id)
    await call(t.app, partner, 'POST', `/users/${user.id}/deactivation`)
    expectProblem(await redeem(link.token, 'deactivated pass phrase'), 404, 'password_link_invalid')
  })

  it('when the password breaks the rules, then 422 at /password and the link still works', async () => {
    const partner = await t.newPartner()
    const user = await newUser(partner)
    const link = await createLink(user.id)
    const res = await redeem(link.token, 'short')
    expectProblem(res, 422, 'validation_failed')
    expect(res.json().errors).toEqual([expect.objectContaining({ pointer: '/password' })])
    expect((await redeem(link.token, 'long enough pass phrase')).statusCode).toBe(200)
  })

  it('when links that do not work keep coming from one address, then that address is refused with 429 and Retry-After, even with a good link', async () => {
    const strict = await startTestApp({
      database: t.database,
      rateLimitStore: new MemoryRateLimitStore(),
      consoleSessions: { ...DEFAULT_CONSOLE_SESSION_SETTINGS, maxFailuresPerAddress: 3 },
    })
    try {
      const partner = await strict.newPartner()
      const user = await newUser(partner)
      const link = (await call(strict.app, operator, 'POST', `/users/${user.id}/password_links`)).json().password_link as CreatedLink
      const from = (token: string, remoteAddress: string) =>
        strict.app.inject({ method: 'POST', url: '/password_links/redemption', payload: { token, password: 'guessing pass phrase' }, remoteAddress })
      const guesser = freshAddress()
      for (let i = 0; i < 3; i++) expectProblem(await from('x'.repeat(43), guesser), 404, 'password_link_invalid')
      const refused = await from(link.token, guesser)
      expectProblem(refused, 429, 'password_link_rate_limited')
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
      // Another address is not affected.
      expect((await from(link.token, freshAddress())).statusCode).toBe(200)
    } finally {
      await strict.close()
    }
  })

  it('when a token is used, then it appears in no log line and in no later answer', async () => {
    const partner = await t.newPartner()
    const user = await newUser(partner)
    const link = await createLink(user.id)
    await redeem(link.token, 'a logged pass phrase')
    const reads = await Promise.all([call(t.app, partner, 'GET', `/users/${user.id}`), call(t.app, partner, 'GET', '/users'), call(t.app, await t.newOperator(), 'GET', `/audit_events?resource_id=${user.id}`)])
    for (const res of reads) expect(res.body).not.toContain(link.token)
    expect(logLines.length).toBeGreaterThan(0)
    for (const line of logLines) {
      expect(line).not.toContain(link.token)
      expect(line).not.toContain('a logged pass phrase')
    }
  })
})

describe('role names', () => {
  it('when a user is registered with a role that does not exist, then 422 at the role and no user is made', async () => {
    const partner = await t.newPartner()
    const email = uniqueEmail('role')
    const res = await call(t.app, partner, 'POST', '/users', { user: { email, role_names: ['administrator'] } })
    expectProblem(res, 422, 'validation_failed')
    expect(res.json().errors).toEqual([{ pointer: '/user/role_names/0', code: 'invalid_value', detail: 'must be one of: admin, benefits_admin, operations' }])
    expect((await call(t.app, partner, 'GET', `/users?email=${encodeURIComponent(email)}`)).json().users).toEqual([])
  })
})
