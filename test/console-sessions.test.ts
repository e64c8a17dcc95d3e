import { createHash, randomUUID } from 'node:crypto'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { MemoryRateLimitStore } from '../src/http/rate-limit.js'
import { RedisRateLimitStore } from '../src/http/redis-rate-limit-store.js'
import { loggerOptions } from '../src/main/runtime.js'
import { DEFAULT_CONSOLE_SESSION_SETTINGS } from '../src/modules/sessions/session-settings.js'
import {
  consoleUser,
  expectProblem,
  freshAddress,
  SESSION_COOKIE,
  setCookieOf,
  signedIn,
  signIn,
  withSession,
  type SignedIn,
} from './helpers/console-session.js'
import { completedPcpSetup, registerUser } from './helpers/error-fixtures.js'
import { groupBody } from './helpers/group-fixtures.js'
import { call, startTestApp, systemActor, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const TTL = DEFAULT_CONSOLE_SESSION_SETTINGS.ttlSeconds

async function createGroup(who: Credential): Promise<string> {
  const res = await call(t.app, who, 'POST', '/groups', { group: groupBody() })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().group.id
}

async function sessionRows(userId: string) {
  return t.db.selectFrom('console_sessions').selectAll().where('user_id', '=', userId).execute()
}

describe('signing in', () => {
  it('when the right email and password are sent, then 201 answers the user, account and CSRF token, and sets an HttpOnly SameSite=Strict cookie', async () => {
    const partner = await t.newPartner('Sign-in partner')
    const user = await consoleUser(t, partner, ['admin'])
    const before = Date.now()
    const res = await signIn(t.app, user.email.toUpperCase(), user.password)
    expect(res.statusCode, res.body).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')

    const cookie = setCookieOf(res)!
    const match = /^enrollsync_session=([A-Za-z0-9_-]{43}); Path=\/; HttpOnly; SameSite=Strict; Max-Age=(\d+)$/.exec(cookie)
    expect(match, cookie).not.toBeNull()
    expect(Number(match![2])).toBe(TTL)
    expect(cookie).not.toContain('Secure')

    const body = res.json()
    expect(body).toEqual({
      session: {
        user: { id: user.id, email: user.email, created_at: expect.any(String), role_names: ['admin'] },
        account: { id: partner.accountId, name: 'Sign-in partner', kind: 'partner' },
        csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        expires_at: expect.any(String),
      },
    })
    expect(Math.abs(Date.parse(body.session.expires_at) - (before + TTL * 1000))).toBeLessThan(5_000)

    // Only the token's SHA-256 is stored; the token itself is nowhere in the table.
    const [row] = await sessionRows(user.id)
    expect(row!.token_hash.equals(createHash('sha256').update(match![1]!).digest())).toBe(true)
    expect(JSON.stringify(row)).not.toContain(match![1]!)
    expect(row!.account_id).toBe(partner.accountId)
  })

  it('when GET /session is called with the cookie, then it answers the same session again; without it, 401', async () => {
    const partner = await t.newPartner()
    const user = await consoleUser(t, partner)
    const session = await signedIn(t.app, user)
    const again = await withSession(t.app, session, 'GET', '/session')
    expect(again.statusCode, again.body).toBe(200)
    expect(again.headers['cache-control']).toBe('no-store')
    expect(again.json()).toEqual(session.body)

    expectProblem(await t.app.inject({ method: 'GET', url: '/session' }), 401, 'missing_credentials')
    // API keys are not sessions.
    expectProblem(await call(t.app, partner, 'GET', '/session'), 401, 'missing_credentials')
  })

  it('when the email is unknown, the password wrong, the user has no password or is deactivated, then the same 401 sign_in_failed, and no cookie', async () => {
    const partner = await t.newPartner()
    const user = await consoleUser(t, partner)
    const leaver = await consoleUser(t, partner)
    const withoutPassword = await t.services.users.createUser(systemActor(partner.accountId), { email: `nopass.${Date.now()}@example.com`, role_names: [] }, partner.accountId)
    expect((await call(t.app, partner, 'POST', `/users/${leaver.id}/deactivation`)).statusCode).toBe(200)

    const attempts = [
      [`nobody.${Date.now()}@example.com`, 'whatever password'],
      [user.email, `${user.password}!`],
      [withoutPassword.email, 'whatever password'],
      [leaver.email, leaver.password],
    ] as const
    const details = new Set<string>()
    for (const [email, password] of attempts) {
      const res = await signIn(t.app, email, password)
      expectProblem(res, 401, 'sign_in_failed')
      expect(setCookieOf(res)).toBeUndefined()
      details.add(res.json().detail)
    }
    expect([...details]).toEqual(['The email or password is not right.'])
    // The right password still works for the active user.
    expect((await signIn(t.app, user.email, user.password)).statusCode).toBe(201)
  })

  it('when the body is incomplete or not JSON, then a precise 4xx problem, never a 500', async () => {
    expectProblem(await t.app.inject({ method: 'POST', url: '/session', payload: { email: 'a@example.com' } }), 422, 'validation_failed')
    expectProblem(await t.app.inject({ method: 'POST', url: '/session', payload: { email: 'not-an-email', password: 'x' } }), 422, 'validation_failed')
    expectProblem(
      await t.app.inject({ method: 'POST', url: '/session', headers: { 'content-type': 'application/json' }, payload: '{"email":' }),
      400,
      'malformed_json',
    )
    expectProblem(await t.app.inject({ method: 'POST', url: '/session', payload: { email: 'a@example.com', password: 'p'.repeat(257) } }), 422, 'validation_failed')
  })

  it('when the request came over https through a trusted proxy, then the cookie is also Secure, and so is the one clearing it', async () => {
    const proxied = await startTestApp({ database: t.database, trustProxy: true })
    try {
      const partner = await t.newPartner()
      const user = await consoleUser(t, partner)
      const https = await signIn(proxied.app, user.email, user.password, { headers: { 'x-forwarded-proto': 'https' } })
      expect(https.statusCode).toBe(201)
      expect(setCookieOf(https)).toMatch(/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/)
      const plain = await signIn(proxied.app, user.email, user.password)
      expect(setCookieOf(plain)).not.toContain('Secure')

      const token = /^enrollsync_session=([^;]+)/.exec(setCookieOf(https)!)![1]!
      const out = await withSession(proxied.app, { token, csrf: https.json().session.csrf_token }, 'DELETE', '/session', undefined, { 'x-forwarded-proto': 'https' })
      expect(out.statusCode).toBe(204)
      expect(setCookieOf(out)).toBe(`${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure`)
    } finally {
      await proxied.close()
    }
  })
})

describe('failed sign-ins are limited', () => {
  it('when an email has 5 failed sign-ins, then even the right password answers 429 with Retry-After, while other emails still sign in', async () => {
    const partner = await t.newPartner()
    const user = await consoleUser(t, partner)
    const other = await consoleUser(t, partner)
    for (let i = 0; i < DEFAULT_CONSOLE_SESSION_SETTINGS.maxFailuresPerEmail; i++) {
      // From different addresses: the count is the email's.
      expectProblem(await signIn(t.app, user.email, `wrong password ${i}`), 401, 'sign_in_failed')
    }
    const locked = await signIn(t.app, user.email, user.password)
    expectProblem(locked, 429, 'sign_in_rate_limited')
    expect(setCookieOf(locked)).toBeUndefined()
    const retryAfter = Number(locked.headers['retry-after'])
    expect(Number.isInteger(retryAfter)).toBe(true)
    expect(retryAfter).toBeGreaterThanOrEqual(DEFAULT_CONSOLE_SESSION_SETTINGS.failureWindowSeconds - 60)
    expect(retryAfter).toBeLessThanOrEqual(DEFAULT_CONSOLE_SESSION_SETTINGS.failureWindowSeconds)
    // The email in any case is the same email.
    expectProblem(await signIn(t.app, user.email.toUpperCase(), user.password), 429, 'sign_in_rate_limited')
    expect((await signIn(t.app, other.email, other.password)).statusCode).toBe(201)
  })

  it('when 12 wrong passwords for one email arrive at once, then only 5 are checked and the rest answer 429, so parallel guessing gains nothing', async () => {
    const partner = await t.newPartner()
    const user = await consoleUser(t, partner)
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => signIn(t.app, user.email, `parallel guess ${i}`)))
    const statuses = answers.map((answer) => answer.statusCode)
    expect(statuses.filter((status) => status === 401)).toHaveLength(DEFAULT_CONSOLE_SESSION_SETTINGS.maxFailuresPerEmail)
    expect(statuses.filter((status) => status === 429)).toHaveLength(12 - DEFAULT_CONSOLE_SESSION_SETTINGS.maxFailuresPerEmail)
    expectProblem(await signIn(t.app, user.email, user.password), 429, 'sign_in_rate_limited')
  })

  it('when one address has 20 failed sign-ins for different emails, then it is refused, and other addresses are not', async () => {
    const partner = await t.newPartner()
    const user = await consoleUser(t, partner)
    const remoteAddress = freshAddress()
    for (let i = 0; i < DEFAULT_CONSOLE_SESSION_SETTINGS.maxFailuresPerAddress; i++) {
      expectProblem(await signIn(t.app, `guess.${i}.${Date.now()}@example.com`, 'a guessed password', { remoteAddress }), 401, 'sign_in_failed')
    }
    const refused = await signIn(t.app, user.email, user.password, { remoteAddress })
    expectProblem(refused, 429, 'sign_in_rate_limited')
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    expect((await signIn(t.app, user.email, user.password)).statusCode).toBe(201)
    // 21 scrypt password checks (an unknown email is checked against a dummy hash), slow by design: 9 s in CI, of the 30 s default.
  }, 60_000)

  it('when the window has passed, then the right password signs in again', async () => {
    const quick = await startTestApp({ database: t.database, consoleSessions: { ...DEFAULT_CONSOLE_SESSION_SETTINGS, maxFailuresPerEmail: 2, failureWindowSeconds: 1 } })
    try {
      const partner = await t.newPartner()
      const user = await consoleUser(t, partner)
      for (let i = 0; i < 2; i++) expectProblem(await signIn(quick.app, user.email, 'not the password'), 401, 'sign_in_failed')
      const locked = await signIn(quick.app, user.email, user.password)
      expectProblem(locked, 429, 'sign_in_rate_limited')
      expect(locked.headers['retry-after']).toBe('1')
      await new Promise((resolve) => setTimeout(resolve, 1_100))
      expect((await signIn(quick.app, user.email, user.password)).statusCode).toBe(201)
    } finally {
      await quick.close()
    }
  })
})

describe('failure counters (RateLimitStore.peek)', () => {
  it('when a key is peeked, then its window is answered without counting; an unknown or finished window is 0', async () => {
    let now = 1_700_000_000_000
    const store = new MemoryRateLimitStore(() => now)
    try {
      expect(await store.peek('k')).toEqual({ count: 0, resetInMs: 0 })
      await store.hit('k', 10_000)
      now += 4_000
      expect(await store.peek('k')).toEqual({ count: 1, resetInMs: 6_000 })
      expect(await store.peek('k')).toEqual({ count: 1, resetInMs: 6_000 })
      expect(await store.hit('k', 10_000)).toEqual({ count: 2, resetInMs: 6_000 })
      now += 6_000
      expect(await store.peek('k')).toEqual({ count: 0, resetInMs: 0 })
    } finally {
      await store.close()
    }
  })

  // Runs only when REDIS_URL is set (CI's PostgreSQL pass), like the shared rate-limit test.
  it.runIf(process.env.REDIS_URL)('when failures are counted in Redis, then two instances share them and peek counts nothing', async () => {
    const prefix = `enrollsync-test:${randomUUID()}:`
    const probe = new RedisRateLimitStore(process.env.REDIS_URL!, prefix)
    const first = await startTestApp({ database: t.database, rateLimitStore: new RedisRateLimitStore(process.env.REDIS_URL!, prefix) })
    const second = await startTestApp({ database: t.database, rateLimitStore: new RedisRateLimitStore(process.env.REDIS_URL!, prefix) })
    try {
      expect(await probe.peek('nothing-here')).toEqual({ count: 0, resetInMs: 0 })
      await probe.hit('counted', 60_000)
      const peeked = await probe.peek('counted')
      expect(peeked.count).toBe(1)
      expect(peeked.resetInMs).toBeGreaterThan(0)
      expect((await probe.peek('counted')).count).toBe(1)

      const partner = await t.newPartner()
      const user = await consoleUser(t, partner)
      for (let i = 0; i < DEFAULT_CONSOLE_SESSION_SETTINGS.maxFailuresPerEmail; i++) {
        expectProblem(await signIn(i % 2 === 0 ? first.app : second.app, user.email, 'not the password'), 401, 'sign_in_failed')
      }
      expectProblem(await signIn(first.app, user.email, user.password), 429, 'sign_in_rate_limited')
      expectProblem(await signIn(second.app, user.email, user.password), 429, 'sign_in_rate_limited')
    } finally {
      await first.close()
      await second.close()
      await probe.close()
    }
  })
})

describe('calling the API with a session', () => {
  it('when a partner session reads, then it sees its own account and another account answers 404', async () => {
    const partner = await t.newPartner()
    const stranger = await t.newPartner()
    const own = await createGroup(partner)
    const foreign = await createGroup(stranger)
    const foreignErrors = await completedPcpSetup(t, stranger)
    const session = await signedIn(t.app, await consoleUser(t, partner))

    const mine = await withSession(t.app, session, 'GET', `/groups/${own}`)
    expect(mine.statusCode, mine.body).toBe(200)
    expect(mine.json().group.id).toBe(own)
    expectProblem(await withSession(t.app, session, 'GET', `/groups/${foreign}`), 404, 'group_not_found')
    expectProblem(await withSession(t.app, session, 'GET', `/errors/${[...foreignErrors.errorIdOf.values()][0]}`), 404, 'error_not_found')
    const list = await withSession(t.app, session, 'GET', '/groups')
    expect(list.json().groups.map((g: { id: string }) => g.id)).toEqual([own])
    // An operator endpoint stays closed to a partner, session or not.
    expectProblem(await withSession(t.app, session, 'GET', '/audit_events'), 403, 'forbidden')
  })

  it("when an operator signs in, then the session has the operator's powers: every account's data and the operator endpoints", async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const group = await createGroup(partner)
    const setup = await completedPcpSetup(t, partner)
    const session = await signedIn(t.app, await consoleUser(t, operator))
    expect(session.body.session.account.kind).toBe('service')
    expect((await withSession(t.app, session, 'GET', `/groups/${group}`)).statusCode).toBe(200)
    const errorId = [...setup.errorIdOf.values()][0]!
    expect((await withSession(t.app, session, 'GET', `/errors/${errorId}`)).statusCode).toBe(200)
    expect((await withSession(t.app, session, 'GET', `/audit_events?account_id=${partner.accountId}`)).statusCode).toBe(200)
    expect((await withSession(t.app, session, 'GET', `/accounts/${partner.accountId}`)).statusCode).toBe(200)
  })

  it('when a session makes a change without the X-CSRF-Token, or with a wrong one, then 403 and nothing changes; with it, the change is made', async () => {
    const partner = await t.newPartner()
    const session = await signedIn(t.app, await consoleUser(t, partner, ['admin']))
    const body = { user: { email: 'csrf.target@example.com', role_names: [] } }

    expectProblem(await withSession(t.app, { token: session.token }, 'POST', '/users', body), 403, 'csrf_token_invalid')
    expectProblem(await withSession(t.app, { token: session.token, csrf: `${session.csrf.slice(0, -1)}x` }, 'POST', '/users', body), 403, 'csrf_token_invalid')
    // Another session's token is no better.
    const other = await signedIn(t.app, await consoleUser(t, partner, ['admin']))
    expectProblem(await withSession(t.app, { token: session.token, csrf: other.csrf }, 'POST', '/users', body), 403, 'csrf_token_invalid')
    const users = (await call(t.app, partner, 'GET', '/users?email=csrf.target@example.com')).json().users
    expect(users).toEqual([])

    const made = await withSession(t.app, session, 'POST', '/users', body)
    expect(made.statusCode, made.body).toBe(201)
    expect(made.json().user.email).toBe('csrf.target@example.com')
  })

  it('when API-key headers are sent with a cookie, then the cookie is ignored: no CSRF token is needed and the key decides', async () => {
    const keyOwner = await t.newPartner()
    const cookieOwner = await t.newPartner()
    const session = await signedIn(t.app, await consoleUser(t, cookieOwner, ['admin']))
    const cookie = { cookie: `${SESSION_COOKIE}=${session.token}` }
    const created = await call(t.app, keyOwner, 'POST', '/users', { user: { email: 'by.key@example.com' } }, cookie)
    expect(created.statusCode, created.body).toBe(201)
    const seen = await call(t.app, keyOwner, 'GET', '/users?email=by.key@example.com', undefined, cookie)
    expect(seen.json().users).toHaveLength(1)
    expect((await withSession(t.app, session, 'GET', '/users?email=by.key@example.com')).json().users).toEqual([])
    // A bad key with a good cookie is a bad key.
    expectProblem(await call(t.app, { apiKey: 'esk_not_a_real_key' }, 'GET', '/users', undefined, cookie), 401, 'invalid_credentials')
    // And minting tokens needs the key itself.
    expectProblem(await withSession(t.app, session, 'POST', '/auth/token'), 401, 'missing_credentials')
  })

  it('when the cookie is not a session, then 401 session_expired, and the cookie is cleared', async () => {
    for (const token of ['garbage', 'A'.repeat(43)]) {
      const res = await withSession(t.app, { token }, 'GET', '/groups')
      expectProblem(res, 401, 'session_expired')
      expect(setCookieOf(res)).toBe(`${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`)
    }
  })

  it("when a session calls, then the call counts against the account's rate limit, shared with its API keys", async () => {
    const limited = await startTestApp({ database: t.database, rateLimit: { max: 3, windowSeconds: 60 } })
    try {
      const partner = await t.newPartner()
      const session = await signedIn(limited.app, await consoleUser(t, partner))
      for (let i = 0; i < 2; i++) expect((await withSession(limited.app, session, 'GET', '/groups')).statusCode).toBe(200)
      expect((await call(limited.app, partner, 'GET', '/groups')).statusCode).toBe(200)
      const refused = await withSession(limited.app, session, 'GET', '/groups')
      expectProblem(refused, 429, 'rate_limited')
      expect(refused.headers['retry-after']).toBeDefined()
    } finally {
      await limited.close()
    }
  })
})

describe('ending sessions', () => {
  it('when the user signs out, then 204 clears the cookie, deletes the session, and the cookie stops working', async () => {
    const partner = await t.newPartner()
    const user = await consoleUser(t, partner)
    const session = await signedIn(t.app, user)
    // Signing out is a change: it needs the CSRF token too.
    expectProblem(await withSession(t.app, { token: session.token }, 'DELETE', '/session'), 403, 'csrf_token_invalid')
    expect((await withSession(t.app, session, 'GET', '/session')).statusCode).toBe(200)

    const out = await withSession(t.app, session, 'DELETE', '/session')
    expect(out.statusCode).toBe(204)
    expect(setCookieOf(out)).toBe(`${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`)
    expect(await sessionRows(user.id)).toEqual([])
    expectProblem(await withSession(t.app, session, 'GET', '/session'), 401, 'session_expired')
    expectProblem(await withSession(t.app, session, 'GET', '/groups'), 401, 'session_expired')
  })

  it('when a session is past its expires_at, then it is refused and deleted', async () => {
    const partner = await t.newPartner()
    const user = await consoleUser(t, partner)
    const session = await signedIn(t.app, user)
    expect((await withSession(t.app, session, 'GET', '/groups')).statusCode).toBe(200)
    await t.db.updateTable('console_sessions').set({ expires_at: new Date(Date.now() - 1000) }).where('user_id', '=', user.id).execute()
    const res = await withSession(t.app, session, 'GET', '/groups')
    expectProblem(res, 401, 'session_expired')
    expect(res.json().detail).toMatch(/Sign in again/)
    expect(await sessionRows(user.id)).toEqual([])
  })

  it('when a user is deactivated, then their live session stops working at once and they cannot sign in again', async () => {
    const partner = await t.newPartner()
    const user = await consoleUser(t, partner)
    const session = await signedIn(t.app, user)
    expect((await withSession(t.app, session, 'GET', '/session')).statusCode).toBe(200)
    expect((await call(t.app, partner, 'POST', `/users/${user.id}/deactivation`)).statusCode).toBe(200)
    expectProblem(await withSession(t.app, session, 'GET', '/session'), 401, 'session_expired')
    expectProblem(await withSession(t.app, session, 'GET', '/groups'), 401, 'session_expired')
    expectProblem(await signIn(t.app, user.email, user.password), 401, 'sign_in_failed')
  })
})

describe('account administrators', () => {
  it('when an admin session manages API keys of its own account, then it may create, list and revoke them', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const admin = await consoleUser(t, partner, ['admin'])
    const session = await signedIn(t.app, admin)

    const created = await withSession(t.app, session, 'POST', `/accounts/${partner.accountId}/api_keys`, { api_key: { name: 'made in the console' } })
    expect(created.statusCode, created.body).toBe(201)
    const key = created.json().api_key
    expect((await call(t.app, { apiKey: key.key }, 'GET', '/groups')).statusCode).toBe(200)
    const listed = await withSession(t.app, session, 'GET', `/accounts/${partner.accountId}/api_keys`)
    expect(listed.statusCode).toBe(200)
    expect(listed.json().api_keys.map((k: { id: string }) => k.id)).toContain(key.id)

    // The audit trail names the signed-in user.
    const audit = await call(t.app, operator, 'GET', `/audit_events?resource_id=${key.id}`)
    expect(audit.json().audit_events).toEqual([
      expect.objectContaining({ action: 'api_key.created', channel: 'console', actor_user_id: admin.id, actor_user_email: admin.email, actor_account_id: partner.accountId, api_key_id: null }),
    ])

    expect((await withSession(t.app, session, 'DELETE', `/api_keys/${key.id}`)).statusCode).toBe(204)
    expectProblem(await call(t.app, { apiKey: key.key }, 'GET', '/groups'), 401, 'invalid_credentials')
  })

  it("when an admin session names another account's id or key, then 404, and the other account's key keeps working", async () => {
    const partner = await t.newPartner()
    const stranger = await t.newPartner()
    const session = await signedIn(t.app, await consoleUser(t, partner, ['admin']))
    expectProblem(await withSession(t.app, session, 'POST', `/accounts/${stranger.accountId}/api_keys`, { api_key: { name: 'sneaky' } }), 404, 'account_not_found')
    expectProblem(await withSession(t.app, session, 'GET', `/accounts/${stranger.accountId}/api_keys`), 404, 'account_not_found')
    expectProblem(await withSession(t.app, session, 'DELETE', `/api_keys/${stranger.apiKeyId}`), 404, 'api_key_not_found')
    expect((await call(t.app, stranger, 'GET', '/groups')).statusCode).toBe(200)
  })

  it('when a session user without the admin role, or a partner API key, manages API keys, then 403', async () => {
    const partner = await t.newPartner()
    const session = await signedIn(t.app, await consoleUser(t, partner, ['benefits_admin']))
    expectProblem(await withSession(t.app, session, 'POST', `/accounts/${partner.accountId}/api_keys`, { api_key: { name: 'no' } }), 403, 'admin_role_required')
    expectProblem(await withSession(t.app, session, 'GET', `/accounts/${partner.accountId}/api_keys`), 403, 'admin_role_required')
    expectProblem(await withSession(t.app, session, 'DELETE', `/api_keys/${partner.apiKeyId}`), 403, 'admin_role_required')
    expectProblem(await call(t.app, partner, 'POST', `/accounts/${partner.accountId}/api_keys`, { api_key: { name: 'no' } }), 403, 'forbidden')
    expectProblem(await call(t.app, partner, 'GET', `/accounts/${partner.accountId}/api_keys`), 403, 'forbidden')
    expect((await call(t.app, partner, 'GET', '/groups')).statusCode).toBe(200)
  })

  it("when an operator session manages another account's keys, then it needs the admin role, as for users; with it, any account's", async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const plain = await signedIn(t.app, await consoleUser(t, operator))
    expectProblem(await withSession(t.app, plain, 'POST', `/accounts/${partner.accountId}/api_keys`, { api_key: { name: 'no' } }), 403, 'admin_role_required')
    const admin = await signedIn(t.app, await consoleUser(t, operator, ['admin']))
    const created = await withSession(t.app, admin, 'POST', `/accounts/${partner.accountId}/api_keys`, { api_key: { name: 'by the operator' } })
    expect(created.statusCode, created.body).toBe(201)
    // The operator's API key keeps its powers: keys are not people.
    expect((await call(t.app, operator, 'GET', `/accounts/${partner.accountId}/api_keys`)).statusCode).toBe(200)
  })

  it('when a session user without the admin role registers or deactivates a user, then 403 admin_role_required; an admin may', async () => {
    const partner = await t.newPartner()
    const target = await registerUser(t, partner, `target.${Date.now()}@example.com`)
    const plain = await signedIn(t.app, await consoleUser(t, partner, ['benefits_admin']))
    expectProblem(await withSession(t.app, plain, 'POST', '/users', { user: { email: 'new.one@example.com' } }), 403, 'admin_role_required')
    expectProblem(await withSession(t.app, plain, 'POST', `/users/${target.id}/deactivation`), 403, 'admin_role_required')
    expect((await call(t.app, partner, 'GET', `/users/${target.id}`)).json().user).not.toHaveProperty('deactivated_at')
    // Reading is for everyone.
    expect((await withSession(t.app, plain, 'GET', '/users')).statusCode).toBe(200)

    const admin = await signedIn(t.app, await consoleUser(t, partner, ['admin']))
    expect((await withSession(t.app, admin, 'POST', '/users', { user: { email: 'new.one@example.com' } })).statusCode).toBe(201)
    const deactivated = await withSession(t.app, admin, 'POST', `/users/${target.id}/deactivation`)
    expect(deactivated.statusCode).toBe(200)
    expect(deactivated.json().user.deactivated_at).toEqual(expect.any(String))
  })
})

describe('signing comments, returns and resolutions', () => {
  async function partnerWithErrors(): Promise<{ partner: Credential; session: SignedIn; email: string; colleague: string; errorIds: string[] }> {
    const partner = await t.newPartner()
    const setup = await completedPcpSetup(t, partner)
    const user = await consoleUser(t, partner)
    const colleague = await registerUser(t, partner, `colleague.${Date.now()}@example.com`)
    return { partner, session: await signedIn(t.app, user), email: user.email, colleague: colleague.email, errorIds: [...setup.errorIdOf.values()] }
  }

  it('when a session user comments as someone else, then 422 at /created_by; as themselves, the comment names them', async () => {
    const { session, email, colleague, errorIds } = await partnerWithErrors()
    const errorId = errorIds[0]!
    const impostor = await withSession(t.app, session, 'POST', `/errors/${errorId}/comments`, { message: 'Signed by a colleague.', created_by: colleague })
    expectProblem(impostor, 422, 'validation_failed')
    expect(impostor.json().errors).toEqual([{ pointer: '/created_by', code: 'not_signed_in_user', detail: expect.stringMatching(/only sign as yourself/) }])
    expect((await withSession(t.app, session, 'GET', `/errors/${errorId}`)).json().error.comments).toEqual([])

    const own = await withSession(t.app, session, 'POST', `/errors/${errorId}/comments`, { message: 'Looking into it.', created_by: email.toUpperCase() })
    expect(own.statusCode, own.body).toBe(201)
    expect(own.json().comment.created_by.email).toBe(email)
  })

  it('when a session user resolves without resolved_by, then the resolution names them; naming someone else is 422', async () => {
    const { session, email, colleague, errorIds } = await partnerWithErrors()
    const other = await withSession(t.app, session, 'POST', `/errors/${errorIds[0]}/resolution`, { message: 'Done.', resolved_by: colleague })
    expectProblem(other, 422, 'validation_failed')
    expect(other.json().errors).toEqual([expect.objectContaining({ pointer: '/resolved_by', code: 'not_signed_in_user' })])

    const resolved = await withSession(t.app, session, 'POST', `/errors/${errorIds[0]}/resolution`, { message: 'Provider chosen.' })
    expect(resolved.statusCode, resolved.body).toBe(200)
    expect(resolved.json().error.resolution).toMatchObject({ message: 'Provider chosen.', resolved_by: email })
  })

  it('when a session user returns an error without created_by, then the comment names them; naming someone else is 422', async () => {
    const { session, email, colleague, errorIds } = await partnerWithErrors()
    // The PCP errors are assigned to the partner, who may return them.
    const other = await withSession(t.app, session, 'POST', `/errors/${errorIds[0]}/return`, { message: 'Yours.', created_by: colleague })
    expectProblem(other, 422, 'validation_failed')
    expect(other.json().errors).toEqual([expect.objectContaining({ pointer: '/created_by', code: 'not_signed_in_user' })])

    const returned = await withSession(t.app, session, 'POST', `/errors/${errorIds[0]}/return`, { message: 'Please check with the carrier.' })
    expect(returned.statusCode, returned.body).toBe(200)
    expect(returned.json().error.comments.at(-1).created_by.email).toBe(email)
  })

  it('when an API key comments, then any active user of the account may still be named, as before', async () => {
    const { partner, colleague, errorIds } = await partnerWithErrors()
    const res = await call(t.app, partner, 'POST', `/errors/${errorIds[1]}/comments`, { message: 'Signed by a colleague.', created_by: colleague })
    expect(res.statusCode, res.body).toBe(201)
  })
})

describe('logs', () => {
  it('when signing in and calling with the cookie, then neither the password, the token nor the CSRF token reaches the log', async () => {
    const lines: string[] = []
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk))
        done()
      },
    })
    const logged = await startTestApp({ database: t.database, logger: { ...(loggerOptions(loadConfig({ LOG_LEVEL: 'trace' })) as object), stream: sink } })
    try {
      const partner = await t.newPartner()
      const user = await consoleUser(t, partner, ['admin'])
      expect((await signIn(logged.app, user.email, `${user.password}-wrong`)).statusCode).toBe(401)
      const session = await signedIn(logged.app, user)
      expect((await withSession(logged.app, session, 'POST', '/users', { user: { email: 'logged@example.com' } })).statusCode).toBe(201)
      expect((await withSession(logged.app, session, 'DELETE', '/session')).statusCode).toBe(204)
      const text = lines.join('')
      expect(text).toContain('request completed')
      for (const secret of [user.password, session.token, session.csrf]) expect(text).not.toContain(secret)
    } finally {
      await logged.close()
    }
  })
})
