import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Principal } from '../src/lib/actor.js'
import { TOKEN_LIFETIME_SECONDS, TokenService } from '../src/modules/auth/tokens.js'
import { call, expectProblem, startTestApp, systemActor, TEST_TOKEN_SECRET, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const DAY_MS = TOKEN_LIFETIME_SECONDS * 1000

async function mintToken(app: TestApp['app'], credential: Credential): Promise<string> {
  const res = await call(app, credential, 'POST', '/auth/token')
  expect(res.statusCode).toBe(201)
  return res.json().token
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` }
}

/** GET /users with only a bearer token. */
function withToken(app: TestApp['app'], token: string) {
  return call(app, null, 'GET', '/users', undefined, bearer(token))
}

function principalOf(credential: Credential, accountKind: Principal['accountKind'] = 'partner'): Principal {
  return { accountId: credential.accountId, accountKind, apiKeyId: credential.apiKeyId, apiKeyName: 'Test partner key' }
}

/** The three parts of a JWT: header, payload, signature. */
function splitToken(token: string): [string, string, string] {
  const parts = token.split('.')
  expect(parts).toHaveLength(3)
  return [parts[0]!, parts[1]!, parts[2]!]
}

function decodePart(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>
}

function encodePart(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

describe('API key', () => {
  it('when a valid Service-Api-Key is sent, then the call is made for its account', async () => {
    const partner = await t.newPartner()
    const created = await call(t.app, partner, 'POST', '/users', { user: { email: 'keyed@example.com' } })
    expect(created.statusCode).toBe(201)
    const list = await call(t.app, partner, 'GET', '/users')
    expect(list.statusCode).toBe(200)
    expect(list.json().users.map((u: { email: string }) => u.email)).toEqual(['keyed@example.com'])
  })

  it('when no credential is sent, then 401 missing_credentials', async () => {
    expectProblem(await call(t.app, null, 'GET', '/users'), 401, 'missing_credentials')
    expectProblem(await call(t.app, null, 'POST', '/auth/token'), 401, 'missing_credentials')
    // An Authorization header of another scheme is no credential either.
    expectProblem(await call(t.app, null, 'GET', '/users', undefined, { authorization: 'Basic dXNlcjpwYXNz' }), 401, 'missing_credentials')
  })

  it('when the key is unknown or malformed, then 401 invalid_credentials', async () => {
    const partner = await t.newPartner()
    // Same form as a real key, one character changed: well-formed but unknown.
    const last = partner.apiKey.at(-1) === 'A' ? 'B' : 'A'
    const unknown = { apiKey: partner.apiKey.slice(0, -1) + last }
    expectProblem(await call(t.app, unknown, 'GET', '/users'), 401, 'invalid_credentials')
    for (const apiKey of ['not-a-key', 'esk_short', `${partner.apiKey}x`, ' ']) {
      const res = await call(t.app, { apiKey }, 'GET', '/users')
      expect(res.statusCode, apiKey).toBe(401)
    }
    expectProblem(await call(t.app, { apiKey: 'not-a-key' }, 'GET', '/users'), 401, 'invalid_credentials')
    expectProblem(await call(t.app, unknown, 'POST', '/auth/token'), 401, 'invalid_credentials')
  })
})

describe('tokens', () => {
  it('when POST /auth/token is called with the key, then 201 {token, token_type Bearer, expires_at one day ahead, expires_in 86400}, not cached', async () => {
    const partner = await t.newPartner()
    const before = Date.now()
    const res = await call(t.app, partner, 'POST', '/auth/token')
    expect(res.statusCode).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    const body = res.json()
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'expires_in', 'token', 'token_type'])
    expect(body.token_type).toBe('Bearer')
    expect(body.expires_in).toBe(86_400)
    expect(body.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    const expiresAt = Date.parse(body.expires_at)
    expect(Math.abs(expiresAt - (before + DAY_MS))).toBeLessThan(5_000)

    // A JWT whose claims match the response: exp, iat, sub (the key id) and the account.
    const [header, payload, signature] = splitToken(body.token)
    expect(signature).toBeTruthy()
    expect(decodePart(header)).toMatchObject({ alg: 'HS256' })
    const claims = decodePart(payload)
    expect(claims).toMatchObject({ sub: partner.apiKeyId, acc: partner.accountId })
    expect((claims.exp as number) * 1000).toBe(expiresAt)
    expect((claims.exp as number) - (claims.iat as number)).toBe(86_400)
  })

  it('when a token is sent as Authorization: Bearer alone, then the call is made for the key account', async () => {
    const partner = await t.newPartner()
    await call(t.app, partner, 'POST', '/users', { user: { email: 'bearer@example.com' } })
    const token = await mintToken(t.app, partner)
    const res = await withToken(t.app, token)
    expect(res.statusCode).toBe(200)
    expect(res.json().users.map((u: { email: string }) => u.email)).toEqual(['bearer@example.com'])
    // The scheme is case-insensitive (RFC 9110).
    const lower = await call(t.app, null, 'GET', '/users', undefined, { authorization: `bearer ${token}` })
    expect(lower.statusCode).toBe(200)
    const created = await call(t.app, null, 'POST', '/users', { user: { email: 'by-token@example.com' } }, bearer(token))
    expect(created.statusCode).toBe(201)
  })

  it('when POST /auth/token is called with only a bearer token, then 401: minting needs the key header', async () => {
    const partner = await t.newPartner()
    const token = await mintToken(t.app, partner)
    const res = await call(t.app, null, 'POST', '/auth/token', undefined, bearer(token))
    expectProblem(res, 401, 'missing_credentials')
  })

  it('when both headers name the same account, then the call is made', async () => {
    const partner = await t.newPartner()
    const token = await mintToken(t.app, partner)
    const res = await call(t.app, partner, 'GET', '/users', undefined, bearer(token))
    expect(res.statusCode).toBe(200)
    // A second key of the same account with a token of the first is still one account.
    const secondKey = await t.services.accounts.createApiKey(systemActor(partner.accountId), partner.accountId, 'second key')
    expect((await call(t.app, { apiKey: secondKey.key }, 'GET', '/users', undefined, bearer(token))).statusCode).toBe(200)
  })

  it('when the key and the token belong to different accounts, then 401 credentials_mismatch', async () => {
    const first = await t.newPartner()
    const second = await t.newPartner()
    const tokenOfSecond = await mintToken(t.app, second)
    expectProblem(await call(t.app, first, 'GET', '/users', undefined, bearer(tokenOfSecond)), 401, 'credentials_mismatch')
    expectProblem(await call(t.app, first, 'POST', '/users', { user: { email: 'x@example.com' } }, bearer(tokenOfSecond)), 401, 'credentials_mismatch')
    // Nothing was created in either account.
    expect((await call(t.app, first, 'GET', '/users')).json().users).toEqual([])
    expect((await call(t.app, second, 'GET', '/users')).json().users).toEqual([])
  })

  it('when the token has expired, then 401 token_expired', async () => {
    const partner = await t.newPartner()
    const past = Date.now() - DAY_MS - 60_000
    const { token, expiresAt } = await new TokenService(TEST_TOKEN_SECRET, () => past).issue(principalOf(partner))
    expect(expiresAt.getTime()).toBeLessThan(Date.now())
    expectProblem(await withToken(t.app, token), 401, 'token_expired')
    // The same token issued now is accepted: only the expiry differs.
    const { token: fresh } = await new TokenService(TEST_TOKEN_SECRET).issue(principalOf(partner))
    expect((await withToken(t.app, fresh)).statusCode).toBe(200)
  })

  it('when the signature or the payload is altered, then 401 invalid_credentials', async () => {
    const victim = await t.newPartner()
    const attacker = await t.newPartner()
    const token = await mintToken(t.app, attacker)
    const [header, payload, signature] = splitToken(token)

    // One character in the middle of the signature (the last one may only carry padding bits).
    const middle = Math.floor(signature.length / 2)
    const flipped = signature[middle] === 'A' ? 'B' : 'A'
    const badSignature = `${header}.${payload}.${signature.slice(0, middle)}${flipped}${signature.slice(middle + 1)}`
    expectProblem(await withToken(t.app, badSignature), 401, 'invalid_credentials')

    // The payload re-pointed at another account, signature kept.
    const claims = decodePart(payload)
    const retargeted = `${header}.${encodePart({ ...claims, acc: victim.accountId })}.${signature}`
    expectProblem(await withToken(t.app, retargeted), 401, 'invalid_credentials')

    // One character of the payload changed.
    const payloadFlip = payload[10] === 'A' ? 'B' : 'A'
    const editedPayload = `${header}.${payload.slice(0, 10)}${payloadFlip}${payload.slice(11)}.${signature}`
    expectProblem(await withToken(t.app, editedPayload), 401, 'invalid_credentials')

    // An unsigned token (alg none) with the genuine claims.
    const unsigned = `${encodePart({ alg: 'none', typ: 'JWT' })}.${payload}.`
    expectProblem(await withToken(t.app, unsigned), 401, 'invalid_credentials')

    expectProblem(await withToken(t.app, 'not.a.jwt'), 401, 'invalid_credentials')
    // The untouched token still works, so the failures above are the alterations.
    expect((await withToken(t.app, token)).statusCode).toBe(200)
  })

  it('when the token was signed with another secret, then 401 invalid_credentials', async () => {
    const partner = await t.newPartner()
    const forged = await new TokenService('another-secret-that-is-long-enough-9876543210').issue(principalOf(partner))
    expectProblem(await withToken(t.app, forged.token), 401, 'invalid_credentials')
  })
})

describe('revocation', () => {
  it('when a key is revoked, then the key and every token minted from it stop working at once on this instance', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const other = await t.newPartner()
    const tokens = [await mintToken(t.app, partner), await mintToken(t.app, partner)]
    // Used once each, so the key is in this instance's credential cache.
    expect((await call(t.app, partner, 'GET', '/users')).statusCode).toBe(200)
    for (const token of tokens) expect((await withToken(t.app, token)).statusCode).toBe(200)

    const revoked = await call(t.app, operator, 'DELETE', `/api_keys/${partner.apiKeyId}`)
    expect(revoked.statusCode).toBe(204)

    expectProblem(await call(t.app, partner, 'GET', '/users'), 401, 'invalid_credentials')
    expectProblem(await call(t.app, partner, 'POST', '/auth/token'), 401, 'invalid_credentials')
    for (const token of tokens) expectProblem(await withToken(t.app, token), 401, 'invalid_credentials')
    // Other accounts are untouched.
    expect((await call(t.app, other, 'GET', '/users')).statusCode).toBe(200)
  })

  it('when a key is revoked on one instance, then a second instance sharing the database refuses it within its cache TTL', async () => {
    const second = await startTestApp({ database: t.database, apiKeyCacheSeconds: 1 })
    try {
      const operator = await t.newOperator()
      const partner = await t.newPartner()
      const token = await mintToken(t.app, partner)
      // The second instance accepts both and caches the key.
      expect((await call(second.app, partner, 'GET', '/users')).statusCode).toBe(200)
      expect((await withToken(second.app, token)).statusCode).toBe(200)

      expect((await call(t.app, operator, 'DELETE', `/api_keys/${partner.apiKeyId}`)).statusCode).toBe(204)
      // Every cache entry of the second instance was made before the revocation: 1 s later all are gone.
      await sleep(1_100)

      expectProblem(await call(second.app, partner, 'GET', '/users'), 401, 'invalid_credentials')
      expectProblem(await withToken(second.app, token), 401, 'invalid_credentials')
    } finally {
      await second.close()
    }
  })
})

describe('operator endpoints', () => {
  it('when a partner credential calls an operator endpoint, then 403 forbidden and nothing happens', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const token = await mintToken(t.app, partner)
    expectProblem(await call(t.app, partner, 'GET', '/audit_events'), 403, 'forbidden')
    expectProblem(await call(t.app, null, 'GET', '/audit_events', undefined, bearer(token)), 403, 'forbidden')
    expectProblem(await call(t.app, partner, 'POST', '/accounts', { account: { name: 'Sneaky', kind: 'service' } }), 403, 'forbidden')
    expectProblem(await call(t.app, partner, 'DELETE', `/api_keys/${partner.apiKeyId}`), 403, 'forbidden')
    expectProblem(await call(t.app, partner, 'GET', `/accounts/${partner.accountId}`), 403, 'forbidden')
    // The key was not revoked, and the operator may call the same endpoints.
    expect((await call(t.app, partner, 'GET', '/users')).statusCode).toBe(200)
    expect((await call(t.app, operator, 'GET', '/audit_events')).statusCode).toBe(200)
    expect((await call(t.app, operator, 'GET', `/accounts/${partner.accountId}`)).statusCode).toBe(200)
  })
})
