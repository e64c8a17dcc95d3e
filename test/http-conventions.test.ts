import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { groupBody, uniqueId } from './helpers/group-fixtures.js'
import { call, expectProblem, startTestApp, type TestApp } from './helpers/test-app.js'

/**
 * The HTTP conventions an integrator expects of any API (issue 12, point 6): 405 with Allow,
 * Retry-After on every 503, compression, and CORS only for listed origins. ETag / If-Match is in
 * test/etag.test.ts, semantic Idempotency-Key comparison in test/idempotency.test.ts.
 */
let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

describe('405 Method Not Allowed', () => {
  it('when a known path is called with a method it does not answer, then 405 problem+json with Allow listing the methods it answers', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'DELETE', '/users')
    expectProblem(res, 405, 'method_not_allowed')
    expect(res.headers.allow).toBe('GET, HEAD, POST')
    expect(res.json().detail).toBe('/users does not answer DELETE; it answers GET, HEAD, POST.')
  })

  it('when a path with an id is called with a wrong method, then Allow lists that route\'s methods, with or without credentials', async () => {
    const res = await call(t.app, null, 'POST', '/watchers/01a213ea-c520-720b-a918-1c6212d71a0b?x=1')
    expectProblem(res, 405, 'method_not_allowed')
    expect(res.headers.allow).toBe('GET, HEAD, PATCH, DELETE')
  })

  it('when a route for the request\'s method matches but its handler finds nothing (a missing /docs/static file), then 404 route_not_found, not 405', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await call(t.app, null, method, '/docs/static/nope.js')
      expect(res.statusCode, `${method}: ${res.body}`).toBe(404)
      expect(res.headers.allow, method).toBeUndefined()
      if (method === 'GET') expectProblem(res, 404, 'route_not_found')
    }
  })

  it('when the path is unknown for every method, then it stays 404 route_not_found', async () => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const res = await call(t.app, null, method, '/no/such/endpoint')
      expectProblem(res, 404, 'route_not_found')
      expect(res.headers.allow).toBeUndefined()
    }
  })
})

describe('Retry-After on 503', () => {
  it('when the database is unreachable, then /readyz answers 503 service_unavailable with Retry-After', async () => {
    const down = await startTestApp({
      database: t.database,
      pingDatabase: async () => {
        throw new Error('connection refused')
      },
    })
    try {
      const res = await call(down.app, null, 'GET', '/readyz')
      expectProblem(res, 503, 'service_unavailable')
      expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/)
    } finally {
      await down.close()
    }
  })

  it('when the console is not built, then its 503 carries Retry-After too', async () => {
    const bare = await startTestApp({ database: t.database, consoleDirectory: '/nonexistent/console/' })
    try {
      const res = await call(bare.app, null, 'GET', '/console/')
      expectProblem(res, 503, 'console_not_built')
      expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/)
    } finally {
      await bare.close()
    }
  })

  it('when a request arrives on an open connection while the instance shuts down, then 503 problem+json with Retry-After and Connection: close', async () => {
    // The first request keeps its connection busy (its readiness check waits) while close begins;
    // the second comes on the same connection after that, as a keep-alive client would send it.
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    let started = () => {}
    const reached = new Promise<void>((resolve) => (started = resolve))
    const draining = await startTestApp({
      database: t.database,
      pingDatabase: async () => {
        started()
        await held
      },
    })
    await draining.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = draining.app.server.address() as { port: number }
    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.on('data', (chunk) => (received += chunk.toString()))
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()))
    socket.write('GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n')
    await reached
    const closed = draining.close()
    await new Promise((resolve) => setTimeout(resolve, 50))
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
    await new Promise((resolve) => setTimeout(resolve, 50))
    release()
    await ended
    await closed

    const answers = received.split(/(?=HTTP\/1\.1 )/)
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200 /)
    const second = answers[1] ?? ''
    expect(second).toMatch(/^HTTP\/1\.1 503 /)
    expect(second).toMatch(/\r\nretry-after: [1-9]\d*\r\n/i)
    expect(second).toMatch(/\r\nconnection: close\r\n/i)
    expect(second).toMatch(/\r\ncontent-type: application\/problem\+json/i)
    expect(second).toContain('"code":"service_unavailable"')
  })
})

describe('compression', () => {
  const listUsers = async (headers: Record<string, string>) => {
    const partner = await t.newPartner()
    // Enough users for a list answer well over 1 KB.
    for (let i = 0; i < 20; i++) await call(t.app, partner, 'POST', '/users', { user: { email: `person-${i}@example.com` } })
    return call(t.app, partner, 'GET', '/users?per_page=100', undefined, headers)
  }

  it('when an answer is over 1 KB and the client accepts br, then it is sent brotli-compressed with Vary: Accept-Encoding', async () => {
    const res = await listUsers({ 'accept-encoding': 'gzip, deflate, br' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-encoding']).toBe('br')
    expect(String(res.headers.vary)).toMatch(/accept-encoding/i)
    const body = JSON.parse(brotliDecompressSync(res.rawPayload).toString())
    expect(body.users).toHaveLength(20)
    expect(res.rawPayload.length).toBeLessThan(Buffer.byteLength(JSON.stringify(body)) / 2)
  })

  it('when the client accepts only gzip, then gzip', async () => {
    const res = await listUsers({ 'accept-encoding': 'gzip' })
    expect(res.headers['content-encoding']).toBe('gzip')
    expect(JSON.parse(gunzipSync(res.rawPayload).toString()).users).toHaveLength(20)
  })

  it('when the client sends no Accept-Encoding, then the answer is plain', async () => {
    const res = await listUsers({})
    expect(res.headers['content-encoding']).toBeUndefined()
    expect(res.json().users).toHaveLength(20)
  })

  it('when an answer is under 1 KB, then it is plain even if the client accepts compression', async () => {
    const res = await call(t.app, null, 'GET', '/healthz', undefined, { 'accept-encoding': 'br, gzip' })
    expect(res.headers['content-encoding']).toBeUndefined()
    expect(res.json()).toEqual({ status: 'ok' })
  })

  it('when a problem answer is over 1 KB, then it is compressed and still problem+json', async () => {
    const partner = await t.newPartner()
    // Every unknown field is named in errors[] (TypeBox reports at most 8): long names make it over 1 KB.
    const user = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`an_unexpected_field_with_a_rather_long_name_number_${i}_${'x'.repeat(60)}`, i]))
    const res = await call(t.app, partner, 'POST', '/users', { user: { email: 'x@example.com', ...user } }, { 'accept-encoding': 'gzip' })
    expect(res.statusCode).toBe(422)
    expect(res.headers['content-encoding']).toBe('gzip')
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    const body = JSON.parse(gunzipSync(res.rawPayload).toString())
    expect(body).toMatchObject({ status: 422, code: 'validation_failed' })
    expect(body.errors).toHaveLength(8)
  })

  it('when a body has more unknown fields than the validator reports, then the problem still names unknown fields, never "0 invalid fields"', async () => {
    const partner = await t.newPartner()
    const user = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`unexpected_${i}`, i]))
    const res = await call(t.app, partner, 'POST', '/users', { user: { email: 'x@example.com', ...user } })
    expectProblem(res, 422, 'validation_failed')
    const errors = res.json().errors as { pointer: string; code: string }[]
    expect(errors.length).toBeGreaterThan(0)
    for (const error of errors) expect(error).toMatchObject({ pointer: expect.stringMatching(/^\/user\/unexpected_\d+$/), code: 'unknown_field' })
  })

  it('when an idempotent POST is answered compressed, then the stored answer replays intact, compressed or not', async () => {
    const partner = await t.newPartner()
    const key = `compressed-${uniqueId('key')}`
    // A group with its producers and location answers well over 1 KB.
    const body = { group: groupBody() }
    const first = await call(t.app, partner, 'POST', '/groups', body, { 'accept-encoding': 'gzip', 'idempotency-key': key })
    expect(first.statusCode).toBe(201)
    expect(first.headers['content-encoding']).toBe('gzip')
    const created = JSON.parse(gunzipSync(first.rawPayload).toString())
    const plain = await call(t.app, partner, 'POST', '/groups', body, { 'idempotency-key': key })
    expect(plain.headers['idempotent-replayed']).toBe('true')
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.json()).toEqual(created)
    const compressed = await call(t.app, partner, 'POST', '/groups', body, { 'accept-encoding': 'br', 'idempotency-key': key })
    expect(compressed.headers['idempotent-replayed']).toBe('true')
    expect(JSON.parse(brotliDecompressSync(compressed.rawPayload).toString())).toEqual(created)
  })

  it('when /docs is loaded with its scripts, styles and OpenAPI document by a browser accepting br, then it transfers under 1 MB', async () => {
    const headers = { 'accept-encoding': 'gzip, deflate, br' }
    const page = await call(t.app, null, 'GET', '/docs/', undefined, headers)
    expect(page.statusCode).toBe(200)
    const html = (page.headers['content-encoding'] === 'br' ? brotliDecompressSync(page.rawPayload) : page.rawPayload).toString()
    const assets = [...html.matchAll(/(?:src|href)="\.?\/?([^"]+\.(?:js|css))"/g)].map((m) => `/docs/${m[1]!.replace(/^docs\//, '')}`)
    expect(assets.length).toBeGreaterThan(0)
    const initializer = await call(t.app, null, 'GET', '/docs/static/swagger-initializer.js', undefined, headers)
    const initializerText = (initializer.headers['content-encoding'] === 'br' ? brotliDecompressSync(initializer.rawPayload) : initializer.rawPayload).toString()
    const specUrl = /url:\s*['"]([^'"]+)['"]/.exec(initializerText)?.[1] ?? '/docs/json'
    const urls = [...new Set([...assets, '/docs/static/swagger-initializer.js', specUrl.startsWith('/') ? specUrl : `/docs/${specUrl.replace(/^\.\//, '')}`])]
    let transferred = page.rawPayload.length
    for (const url of urls) {
      const res = await call(t.app, null, 'GET', url, undefined, headers)
      expect(res.statusCode, url).toBe(200)
      transferred += res.rawPayload.length
    }
    expect(transferred).toBeLessThan(1024 * 1024)
  })
})

describe('CORS', () => {
  const ORIGIN = 'https://app.example.com'

  it('when CORS_ORIGINS is not set, then no answer carries a CORS header, and a preflight is just an OPTIONS nobody answers', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'GET', '/users', undefined, { origin: ORIGIN })
    expect(res.statusCode).toBe(200)
    expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([])
    const preflight = await call(t.app, null, 'OPTIONS', '/users', undefined, { origin: ORIGIN, 'access-control-request-method': 'POST' })
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
    expectProblem(preflight, 405, 'method_not_allowed')
  })

  describe('with CORS_ORIGINS listing an origin', () => {
    let cors: TestApp
    beforeAll(async () => {
      cors = await startTestApp({ database: t.database, corsOrigins: [ORIGIN, 'http://localhost:5173'] })
    })
    afterAll(async () => cors?.close())

    it('when a listed origin calls, then the answer allows that origin, exposes the API headers and varies on Origin', async () => {
      const partner = await cors.newPartner()
      const res = await call(cors.app, partner, 'GET', '/users', undefined, { origin: ORIGIN })
      expect(res.statusCode).toBe(200)
      expect(res.headers['access-control-allow-origin']).toBe(ORIGIN)
      expect(res.headers['access-control-allow-credentials']).toBeUndefined()
      const exposed = String(res.headers['access-control-expose-headers']).split(', ')
      expect(exposed).toEqual(expect.arrayContaining(['ETag', 'Link', 'Total', 'RateLimit', 'Retry-After', 'X-Request-Id', 'Location']))
      expect(String(res.headers.vary)).toMatch(/\borigin\b/i)
    })

    it('when a listed origin gets an error, then the problem is readable too (the CORS headers stay on it)', async () => {
      const res = await call(cors.app, { apiKey: 'esk_not-a-real-key' }, 'GET', '/users', undefined, { origin: ORIGIN })
      expectProblem(res, 401, 'invalid_credentials')
      expect(res.headers['access-control-allow-origin']).toBe(ORIGIN)
    })

    it('when an unlisted origin calls, then the answer carries no CORS header, so the browser keeps it from the page', async () => {
      const partner = await cors.newPartner()
      for (const origin of ['https://evil.example.com', 'https://app.example.com.evil.example', 'http://app.example.com']) {
        const res = await call(cors.app, partner, 'GET', '/users', undefined, { origin })
        expect(res.headers['access-control-allow-origin'], origin).toBeUndefined()
        expect(res.headers['access-control-expose-headers'], origin).toBeUndefined()
      }
    })

    it('when a listed origin sends a preflight, then 204 with the methods and headers the API reads, without credentials', async () => {
      const res = await call(cors.app, null, 'OPTIONS', '/groups/01a213ea-c520-720b-a918-1c6212d71a0b', undefined, {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'service-api-key, content-type, if-match, idempotency-key',
      })
      expect(res.statusCode).toBe(204)
      expect(res.body).toBe('')
      expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173')
      expect(String(res.headers['access-control-allow-methods']).split(', ')).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']))
      const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(', ')
      expect(allowed).toEqual(expect.arrayContaining(['service-api-key', 'authorization', 'content-type', 'if-match', 'idempotency-key']))
      expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0)
    })

    it('when a console asset is answered to a listed origin, then its Vary names both Origin and Accept-Encoding', async () => {
      // A console of its own: one page and one hashed script with the brotli copy the build writes.
      const directory = mkdtempSync(join(tmpdir(), 'enrollsync-console-'))
      mkdirSync(join(directory, 'assets'))
      writeFileSync(join(directory, 'index.html'), '<!doctype html><title>console</title>')
      const script = 'console.log("enrollsync");\n'.repeat(100)
      writeFileSync(join(directory, 'assets', 'app-1a2b3c.js'), script)
      writeFileSync(join(directory, 'assets', 'app-1a2b3c.js.br'), brotliCompressSync(script))
      const withConsole = await startTestApp({ database: t.database, corsOrigins: [ORIGIN], consoleDirectory: directory })
      try {
        for (const [url, encoding] of [['/console/assets/app-1a2b3c.js', 'br'], ['/console/assets/app-1a2b3c.js', ''], ['/console/', 'br']] as const) {
          const res = await call(withConsole.app, null, 'GET', url, undefined, { origin: ORIGIN, ...(encoding ? { 'accept-encoding': encoding } : {}) })
          expect(res.statusCode, url).toBe(200)
          expect(res.headers['access-control-allow-origin'], url).toBe(ORIGIN)
          const vary = String(res.headers.vary).split(',').map((name) => name.trim().toLowerCase())
          expect(vary, `${url} ${encoding}`).toEqual(expect.arrayContaining(['origin', 'accept-encoding']))
          expect(new Set(vary).size, `${url} ${encoding}: ${res.headers.vary}`).toBe(vary.length)
        }
      } finally {
        await withConsole.close()
        rmSync(directory, { recursive: true, force: true })
      }
    })

    it('when an answer to a listed origin is compressed, then its Vary keeps Origin beside Accept-Encoding', async () => {
      const res = await call(cors.app, null, 'GET', '/docs/json', undefined, { origin: ORIGIN, 'accept-encoding': 'br' })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-encoding']).toBe('br')
      const vary = String(res.headers.vary).split(',').map((name) => name.trim().toLowerCase())
      expect(vary).toEqual(expect.arrayContaining(['origin', 'accept-encoding']))
    })

    it('when an unlisted origin sends a preflight, then it gets no CORS header and the browser stops there', async () => {
      const res = await call(cors.app, null, 'OPTIONS', '/users', undefined, { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' })
      expect(res.headers['access-control-allow-origin']).toBeUndefined()
      expect(res.statusCode).not.toBe(204)
    })
  })
})
