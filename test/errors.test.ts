import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, openTestDatabase, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The RFC 9457 shape every failure shares, with `instance` naming the request like X-Request-Id. */
function expectProblem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  const body = res.json()
  expect(body).toMatchObject({
    type: `urn:enrollsync:problem:${code}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
    code,
  })
  expect(body.title).not.toBe('')
  expect(body.detail).not.toBe('')
  expect(body.instance).toBe(res.headers['x-request-id'])
  return body
}

function postRaw(credential: Credential, url: string, payload: string, contentType = 'application/json') {
  return t.app.inject({ method: 'POST', url, headers: { 'service-api-key': credential.apiKey, 'content-type': contentType }, payload })
}

describe('malformed requests', () => {
  it('when the body is not valid JSON, then 400 malformed_json as a problem', async () => {
    const partner = await t.newPartner()
    const res = await postRaw(partner, '/users', '{"user": {"email": "a@example.com"')
    expectProblem(res, 400, 'malformed_json')
  })

  it('when the body is not JSON, then 415 unsupported_media_type, with or without a content type', async () => {
    const partner = await t.newPartner()
    expectProblem(await postRaw(partner, '/users', 'email=a@example.com', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type')
    expectProblem(await postRaw(partner, '/users', 'hello', 'text/plain'), 415, 'unsupported_media_type')
    const withoutType = await t.app.inject({ method: 'POST', url: '/users', headers: { 'service-api-key': partner.apiKey }, payload: 'hello' })
    expectProblem(withoutType, 415, 'unsupported_media_type')
  })

  it('when the body is larger than the configured limit, then 413 payload_too_large and nothing is created', async () => {
    const small = await startTestApp({ database: t.database, bodyLimitBytes: 200 })
    try {
      const partner = await t.newPartner()
      // Valid, and over 200 bytes: a long email (role names are a short closed list).
      const user = { email: `${'big'.repeat(70)}@example.com`, role_names: ['admin', 'benefits_admin', 'operations'] }
      const res = await call(small.app, partner, 'POST', '/users', { user })
      expectProblem(res, 413, 'payload_too_large')
      // The same request under the limit of the main app goes through: the limit is what refused it.
      const list = await call(t.app, partner, 'GET', '/users')
      expect(list.json().users).toEqual([])
      expect((await call(t.app, partner, 'POST', '/users', { user })).statusCode).toBe(201)
    } finally {
      await small.close()
    }
  })

  it('when the body has a __proto__ or constructor.prototype key, then 400 and no object prototype is polluted', async () => {
    const partner = await t.newPartner()
    const topLevel = await postRaw(partner, '/users', '{"user":{"email":"a@example.com"},"__proto__":{"polluted":true}}')
    expectProblem(topLevel, 400, 'malformed_json')
    const nested = await postRaw(partner, '/users', '{"user":{"email":"b@example.com","__proto__":{"polluted":true}}}')
    expectProblem(nested, 400, 'malformed_json')
    const viaConstructor = await postRaw(partner, '/users', '{"user":{"email":"c@example.com","constructor":{"prototype":{"polluted":true}}}}')
    expectProblem(viaConstructor, 400, 'malformed_json')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
    expect((await call(t.app, partner, 'GET', '/users')).json().users).toEqual([])
  })
})

describe('validation', () => {
  it('when body fields are unknown (top level and nested) or of the wrong type, then 422 lists each one by JSON pointer', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'POST', '/users', {
      user: { email: 42, role_names: 'admin', nickname: 'Jo', preferences: { theme: 'dark' } },
      extra: true,
    })
    const body = expectProblem(res, 422, 'validation_failed')
    expect(body.errors).toHaveLength(5)
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { pointer: '/extra', code: 'unknown_field', detail: expect.any(String) },
        { pointer: '/user/nickname', code: 'unknown_field', detail: expect.any(String) },
        { pointer: '/user/preferences', code: 'unknown_field', detail: expect.any(String) },
        { pointer: '/user/email', code: 'invalid_type', detail: expect.any(String) },
        { pointer: '/user/role_names', code: 'invalid_type', detail: expect.any(String) },
      ]),
    )
  })

  it('when required fields are missing, then 422 points at each missing field itself', async () => {
    const partner = await t.newPartner()
    const nested = expectProblem(await call(t.app, partner, 'POST', '/users', { user: { role_names: [] } }), 422, 'validation_failed')
    expect(nested.errors).toEqual([{ pointer: '/user/email', code: 'required', detail: expect.any(String) }])
    const topLevel = expectProblem(await call(t.app, partner, 'POST', '/users', {}), 422, 'validation_failed')
    expect(topLevel.errors).toEqual([{ pointer: '/user', code: 'required', detail: expect.any(String) }])
  })

  it('when an array item is invalid, then the pointer names its index', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'POST', '/users', { user: { email: 'a@example.com', role_names: ['admin', 7, 'Not A Role'] } })
    const body = expectProblem(res, 422, 'validation_failed')
    expect(body.errors).toEqual(
      expect.arrayContaining([
        // Role names are a closed list: a number and an unknown name both fail at their own index.
        { pointer: '/user/role_names/1', code: 'invalid_value', detail: expect.any(String) },
        { pointer: '/user/role_names/2', code: 'invalid_value', detail: expect.any(String) },
      ]),
    )
    expect(body.errors).toHaveLength(2)
  })

  it('when query parameters are invalid or unknown, then 422 names each parameter (no pointer)', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'GET', '/users?per_page=500&page=abc&status=gone&colour=red')
    const body = expectProblem(res, 422, 'validation_failed')
    expect(body.errors).toHaveLength(4)
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { parameter: 'per_page', code: expect.any(String), detail: expect.any(String) },
        { parameter: 'page', code: 'invalid_type', detail: expect.any(String) },
        { parameter: 'status', code: 'invalid_value', detail: expect.any(String) },
        { parameter: 'colour', code: 'unknown_field', detail: expect.any(String) },
      ]),
    )
    for (const error of body.errors) expect(error).not.toHaveProperty('pointer')
  })
})

describe('not found', () => {
  it('when no endpoint has the method and path, then 404 route_not_found, with or without credentials', async () => {
    const partner = await t.newPartner()
    expectProblem(await call(t.app, null, 'GET', '/no/such/endpoint'), 404, 'route_not_found')
    expectProblem(await call(t.app, partner, 'GET', '/no/such/endpoint?x=1'), 404, 'route_not_found')
    // A known path with another method is 405 instead (test/http-conventions.test.ts).
    expectProblem(await call(t.app, partner, 'PATCH', '/users'), 405, 'method_not_allowed')
  })

  it('when the path holds a percent-encoding that is not UTF-8, then 400 malformed_url in problem+json, without echoing the path', async () => {
    const partner = await t.newPartner()
    for (const path of ['/errors/%E0%A4%A', '/console/errors/%E0%A4%A']) {
      const res = await call(t.app, partner, 'GET', path)
      expectProblem(res, 400, 'malformed_url')
      expect(res.headers['content-type']).toContain('application/problem+json')
      expect(res.body).not.toContain('%E0')
    }
  })

  it('when an id is malformed or unknown, then 404 (never 422 or 500)', async () => {
    const partner = await t.newPartner()
    expectProblem(await call(t.app, partner, 'GET', '/users/not-a-uuid'), 404, 'not_found')
    expectProblem(await call(t.app, partner, 'GET', "/users/1'%20or%20'1'='1"), 404, 'not_found')
    expectProblem(await call(t.app, partner, 'GET', '/users/01939a4b-7c1d-7e8f-9a0b-1c2d3e4f5a6b'), 404, 'user_not_found')
    expectProblem(await call(t.app, partner, 'POST', '/users/not-a-uuid/deactivation'), 404, 'not_found')
  })
})

describe('personal data in errors', () => {
  it('when a rejected field holds personal data, then the 422 never repeats the value', async () => {
    const partner = await t.newPartner()
    const secretEmail = 'jane.secret.person@example.com'
    const ssn = '123-45-6789'
    const res = await call(t.app, partner, 'POST', '/users', {
      user: { email: `${secretEmail} (home)`, role_names: [secretEmail], social_security_number: ssn, birth_date: '1980-02-29' },
    })
    const body = expectProblem(res, 422, 'validation_failed')
    expect(body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(
      ['/user/birth_date', '/user/email', '/user/role_names/0', '/user/social_security_number'].sort(),
    )
    for (const value of ['jane.secret', '123-45-6789', '1980-02-29', '(home)']) expect(res.body).not.toContain(value)
  })

  it('when malformed JSON holds personal data near the syntax error, then the 400 does not quote it', async () => {
    const partner = await t.newPartner()
    // Single quotes are a common client mistake; V8's SyntaxError quotes the text around them.
    const res = await postRaw(partner, '/users', `{"user":{"ssn":'123-45-6789',"email":"a@example.com"}}`)
    const { instance, ...rest } = expectProblem(res, 400, 'malformed_json')
    expect(instance).toMatch(UUID) // left out below: a random id may hold the same digits
    for (const fragment of ['123', '45-67', '6789']) expect(JSON.stringify(rest)).not.toContain(fragment)
  })
})

describe('request ids', () => {
  it('when any response is sent (success, 4xx, unknown route, health), then it carries X-Request-Id', async () => {
    const partner = await t.newPartner()
    const responses = [
      await call(t.app, partner, 'GET', '/users'),
      await call(t.app, partner, 'POST', '/users', { user: {} }),
      await call(t.app, null, 'GET', '/users'),
      await call(t.app, null, 'GET', '/nowhere'),
      await call(t.app, null, 'GET', '/healthz'),
      await call(t.app, null, 'GET', '/readyz'),
    ]
    expect(responses.map((r) => r.statusCode)).toEqual([200, 422, 401, 404, 200, 200])
    const ids = responses.map((r) => r.headers['x-request-id'])
    for (const id of ids) expect(id).toMatch(UUID)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('when the client sends a plain X-Request-Id, then it is echoed and used as the problem instance', async () => {
    const partner = await t.newPartner()
    const incoming = 'client-42.batch_7:retry-1'
    const ok = await call(t.app, partner, 'GET', '/users', undefined, { 'x-request-id': incoming })
    expect(ok.headers['x-request-id']).toBe(incoming)
    const longest = 'a'.repeat(128)
    expect((await call(t.app, partner, 'GET', '/users', undefined, { 'x-request-id': longest })).headers['x-request-id']).toBe(longest)
    const failed = await call(t.app, partner, 'POST', '/users', {}, { 'x-request-id': incoming })
    expect(expectProblem(failed, 422, 'validation_failed').instance).toBe(incoming)
  })

  it('when the incoming X-Request-Id is unsafe (spaces, too long, markup), then a fresh one replaces it', async () => {
    const partner = await t.newPartner()
    for (const unsafe of ['has spaces in it', 'a'.repeat(129), '<script>alert(1)</script>', 'line\tbreak']) {
      const res = await call(t.app, partner, 'GET', '/users', undefined, { 'x-request-id': unsafe })
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-request-id']).not.toBe(unsafe)
      expect(res.headers['x-request-id']).toMatch(UUID)
    }
  })
})

describe('unexpected faults', () => {
  it('when the database goes away, then calls answer 500 internal_error with no internals, the fault is logged under the request id, and /readyz answers 503', async () => {
    const database = await openTestDatabase()
    const logLines: string[] = []
    const broken = await startTestApp({
      database,
      logger: { level: 'error', stream: { write: (line: string) => void logLines.push(line) } },
    })
    try {
      const partner = await broken.newPartner()
      expect((await call(broken.app, partner, 'GET', '/users')).statusCode).toBe(200)
      await database.close()

      // The key is still in the credential cache, so the call gets past the guard to a query.
      const res = await call(broken.app, partner, 'GET', '/users')
      const body = expectProblem(res, 500, 'internal_error')
      expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'instance', 'status', 'title', 'type'])
      expect(res.body).not.toMatch(/\bat \S+ \(|\.ts\b|\.js\b|node_modules|\/work\/|select |from "|kysely|driver|stack/i)

      const logged = logLines.map((line) => JSON.parse(line) as { reqId?: string; err?: { message?: string } })
      const fault = logged.find((entry) => entry.reqId === body.instance && entry.err?.message)
      expect(fault, 'the fault is logged with the request id').toBeDefined()
      expect(res.body).not.toContain(fault!.err!.message)

      const ready = await call(broken.app, null, 'GET', '/readyz')
      expectProblem(ready, 503, 'service_unavailable')
      expect((await call(broken.app, null, 'GET', '/healthz')).statusCode).toBe(200)
    } finally {
      await broken.close()
      await database.close()
    }
    // A new embedded database of its own: 6.2 s in CI and 14 s on a loaded machine, of the 30 s default.
  }, 60_000)
})
