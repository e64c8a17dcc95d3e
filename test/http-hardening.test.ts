import { connect, type Socket } from 'node:net'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { groupBody } from './helpers/group-fixtures.js'
import { call, expectProblem, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * The HTTP layer's own answers (issue 15, points 1, 5, 6 and 8b): no 500 from text PostgreSQL
 * cannot store, slow clients cut off, every failure problem+json with a request id and nosniff,
 * and no SSN in the access log's paths.
 */
let t: TestApp
let partner: Credential
let operator: Credential
beforeAll(async () => {
  t = await startTestApp()
  partner = await t.newPartner()
  operator = await t.newOperator()
})
afterAll(async () => t?.close())

const NUL = '\u0000'
const LONE_SURROGATE = '\ud800'

/** 422 invalid_character pointing where expected, echoing none of the bad text. */
function expectInvalidCharacter(res: LightMyRequestResponse, expected: Array<{ pointer: string } | { parameter: string }>, secret?: string) {
  expectProblem(res, 422, 'invalid_character')
  expect(res.json().errors).toEqual(expected.map((where) => ({ ...where, code: 'invalid_character', detail: expect.any(String) })))
  expect(res.json().detail).toMatch(expected.length === 1 ? /^1 value of the request holds a NUL/ : new RegExp(`^${expected.length} values of the request hold a NUL`))
  // JSON would carry them escaped: neither form comes back.
  expect(res.body).not.toMatch(/\\u0000|\\ud800|\u0000|\ud800/i)
  if (secret) expect(res.body).not.toContain(secret)
}

/** A body as JSON text: JSON.stringify writes a lone surrogate as its `\ud800` escape, as clients send it. */
function postJson(credential: Credential | null, url: string, body: unknown) {
  return call(t.app, credential, 'POST', url, JSON.stringify(body), { 'content-type': 'application/json' })
}

describe('text PostgreSQL cannot store answers 422 invalid_character, never 500', () => {
  it.each([
    ['a NUL character', NUL],
    ['an unpaired surrogate', LONE_SURROGATE],
  ])('when POST /session (unauthenticated) carries %s in the email, then 422 points at /email', async (_name, bad) => {
    const res = await postJson(null, '/session', { email: `ann${bad}@example.com`, password: 'correct horse battery staple' })
    expectInvalidCharacter(res, [{ pointer: '/email' }])
  })

  it.each([
    ['a NUL character', NUL],
    ['an unpaired surrogate', LONE_SURROGATE],
  ])('when a nested body value and an array item carry %s, then 422 points at each, in document order', async (_name, bad) => {
    const base = groupBody()
    const group = { ...base, employer: { ...base.employer, organization_name: `Acme secret-name${bad}` }, primary_location: { ...base.primary_location, external_identifier: `hq${bad}` } }
    const res = await postJson(partner, '/groups', { group })
    expectInvalidCharacter(res, [{ pointer: '/group/employer/organization_name' }, { pointer: '/group/primary_location/external_identifier' }], 'secret-name')
  })

  it('when an item of an array carries a NUL character, then the pointer names the item', async () => {
    const res = await postJson(partner, '/watchers', { watcher: { url: 'https://hooks.example.com/x', event_types: ['error.created', `error.resolved${NUL}`] } })
    expectInvalidCharacter(res, [{ pointer: '/watcher/event_types/1' }])
  })

  it('when a field name carries a NUL character or an unpaired surrogate, then 422 points at the object holding it, without the name', async () => {
    const res = await postJson(partner, '/watchers', { watcher: { url: 'https://hooks.example.com/x', event_types: ['error.created'], [`secret-key${NUL}`]: 1, nested: { [`a${LONE_SURROGATE}`]: 'x' } } })
    expectInvalidCharacter(res, [{ pointer: '/watcher' }, { pointer: '/watcher/nested' }], 'secret-key')
  })

  it('when a query value or a query parameter name carries a NUL character, then 422 names the parameter (the part for a bad name)', async () => {
    expectInvalidCharacter(await call(t.app, partner, 'GET', '/groups?external_identifier=a%00b'), [{ parameter: 'external_identifier' }])
    // Repeated parameters arrive as a list: each value is looked at.
    expectInvalidCharacter(await call(t.app, partner, 'GET', '/groups?external_identifier=a&external_identifier=%00'), [{ parameter: 'external_identifier' }])
    expectInvalidCharacter(await call(t.app, partner, 'GET', '/groups?secret%00name=1'), [{ parameter: 'querystring' }], 'secret')
  })

  it('when a path value carries a NUL character, then 422 names the path parameter, on a route without a body schema too', async () => {
    expectInvalidCharacter(await call(t.app, partner, 'GET', '/groups/abc%00def'), [{ parameter: 'id' }])
    expectInvalidCharacter(await call(t.app, partner, 'DELETE', '/watchers/abc%00def'), [{ parameter: 'id' }])
  })

  it('when a text body (an X12 acknowledgement) carries a NUL character, then 422 points at the whole body', async () => {
    for (const contentType of ['text/plain', 'application/edi-x12']) {
      const res = await call(t.app, operator, 'POST', '/file_deliveries/0193a4b2-0000-7000-8000-000000000001/acknowledgements', `ISA*00*${NUL}~`, { 'content-type': contentType })
      expectInvalidCharacter(res, [{ pointer: '' }])
    }
  })

  it('when the request also breaks the schema, then the characters are named first, and nothing is stored', async () => {
    const res = await postJson(partner, '/groups', { group: { name: `x${NUL}`, unknown_field: true } })
    expectInvalidCharacter(res, [{ pointer: '/group/name' }])
    const list = await call(t.app, partner, 'GET', '/groups')
    expect(list.json().groups).toEqual([])
  })

  it('when unauthenticated, then 401 comes first: the check never runs for a caller the guard refuses', async () => {
    expectProblem(await postJson(null, '/groups', { group: { name: NUL } }), 401, 'missing_credentials')
  })

  it('when a body holds many bad strings, then at most 8 are named', async () => {
    const res = await postJson(partner, '/watchers', { watcher: { event_types: Array.from({ length: 50 }, () => NUL) } })
    expectProblem(res, 422, 'invalid_character')
    expect(res.json().errors).toHaveLength(8)
  })

  it('when non-ASCII text is sent escaped (\\u00e9, a surrogate pair), then it is not refused', async () => {
    const text = '{"group":{"name":"Caf\\u00e9 \\ud83d\\ude00"}}'
    const res = await call(t.app, partner, 'POST', '/groups', text, { 'content-type': 'application/json' })
    expect(res.json().code).not.toBe('invalid_character')
  })
})

describe('every operation of the OpenAPI document refuses unstorable text', () => {
  type Operation = { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string }
  const operations = async (): Promise<Operation[]> => {
    const document = (await t.app.swagger()) as { paths: Record<string, Record<string, unknown>> }
    return Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => ({ method: method.toUpperCase() as Operation['method'], path })),
    )
  }
  // Session-only routes refuse an API key before anything else (401); the acknowledgement route's
  // parser refuses JSON (415) before the body is looked at. Neither reaches the database.
  const refusedEarlier = (res: LightMyRequestResponse) => (res.statusCode === 401 && res.json().code === 'missing_credentials') || res.statusCode === 415

  it('when any path value or query value holds a NUL character, then every operation answers 422 invalid_character, none a 5xx', async () => {
    const all = await operations()
    expect(all.length).toBeGreaterThan(50)
    const early: string[] = []
    for (const { method, path } of all) {
      const url = path.replace(/\{[^}]+\}/g, 'a%00b')
      const res = await call(t.app, operator, method, `${url}?probe=%00`)
      if (refusedEarlier(res) && early.push(`${method} ${path}`)) continue
      expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(422)
      expect(res.json().code, `${method} ${path}`).toBe('invalid_character')
      const named = res.json().errors.map((e: { parameter?: string }) => e.parameter)
      expect(named, `${method} ${path}`).toContain('probe')
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) expect(named, `${method} ${path}`).toContain(name)
    }
    expect(early).toEqual(['GET /session', 'DELETE /session'])
  })

  it('when any body holds a NUL character or an unpaired surrogate, then every operation taking a body answers 422 invalid_character at its pointer', async () => {
    const all = (await operations()).filter(({ method }) => ['POST', 'PUT', 'PATCH'].includes(method))
    expect(all.length).toBeGreaterThan(20)
    const early: string[] = []
    for (const { method, path } of all) {
      const url = path.replace(/\{[^}]+\}/g, '0193a4b2-0000-7000-8000-000000000001')
      const res = await call(t.app, operator, method, url, JSON.stringify({ probe: { nul: NUL, lone: [LONE_SURROGATE] } }), { 'content-type': 'application/json' })
      if (refusedEarlier(res) && early.push(`${method} ${path}`)) continue
      expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(422)
      expect(res.json().errors.map((e: { pointer?: string }) => e.pointer), `${method} ${path}`).toEqual(['/probe/nul', '/probe/lone/0'])
    }
    expect(early).toEqual(['POST /file_deliveries/{id}/acknowledgements'])
  })
})

describe('every answer carries X-Request-Id and nosniff; the HTTP layer answers in problem+json', () => {
  it('when a JSON answer succeeds, then it carries nosniff and a request id', async () => {
    for (const res of [await call(t.app, partner, 'GET', '/groups'), await call(t.app, null, 'GET', '/healthz')]) {
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers['x-request-id']).toMatch(/\S/)
    }
  })

  it('when the path is unknown, the method wrong, the URL undecodable or the body too large, then problem+json with a request id and nosniff', async () => {
    const answers: Array<[LightMyRequestResponse, number, string]> = [
      [await call(t.app, null, 'GET', '/no/such/path'), 404, 'route_not_found'],
      [await call(t.app, partner, 'DELETE', '/groups'), 405, 'method_not_allowed'],
      [await call(t.app, partner, 'GET', '/groups/%E0%A4'), 400, 'malformed_url'],
      [await call(t.app, partner, 'POST', '/groups', 'x'.repeat(1024 * 1024 + 1), { 'content-type': 'application/json' }), 413, 'payload_too_large'],
    ]
    for (const [res, status, code] of answers) {
      expectProblem(res, status, code)
      expect(res.headers['x-content-type-options'], code).toBe('nosniff')
    }
  })
})

/** Writes raw bytes and collects everything the server sends until it closes the connection. */
async function rawExchange(port: number, ...writes: string[]): Promise<string> {
  const socket = connect(port, '127.0.0.1')
  let received = ''
  socket.on('data', (chunk) => (received += chunk.toString('latin1')))
  socket.on('error', () => undefined)
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()))
  for (const text of writes) socket.write(text)
  await closed
  return received
}

interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

function parseAnswer(raw: string): RawAnswer {
  const [head = '', ...rest] = raw.split('\r\n\r\n')
  const [statusLine = '', ...headerLines] = head.split('\r\n')
  const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') }
}

function expectRawProblem(raw: string, status: number, code: string) {
  const answer = parseAnswer(raw)
  expect(answer.status, raw).toBe(status)
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(answer.headers['x-content-type-options']).toBe('nosniff')
  expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  expect(JSON.parse(answer.body)).toMatchObject({ type: `urn:enrollsync:problem:${code}`, status, code, instance: answer.headers['x-request-id'] })
}

describe('on a real socket', () => {
  let port: number
  beforeAll(async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    port = (t.app.server.address() as { port: number }).port
  })

  it('when the URL is 20 kB, then 431 problem+json with a request id (not Fastify\'s application/json)', async () => {
    const raw = await rawExchange(port, `GET /groups?external_identifier=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
    expectRawProblem(raw, 431, 'request_header_too_large')
  })

  it.each([
    ['a chunk size that is not hexadecimal', 'Transfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n'],
    ['a Content-Length that is not a number', 'Content-Length: abc\r\n\r\n{}'],
    ['both Content-Length and Transfer-Encoding', 'Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n'],
  ])('when the body has %s, then 400 malformed_request problem+json and the connection closes', async (_name, framing) => {
    const raw = await rawExchange(port, `POST /session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${framing}`)
    expectRawProblem(raw, 400, 'malformed_request')
  })

  it('when the path is unknown, then 404 route_not_found problem+json with a request id and nosniff, on the socket too', async () => {
    expectRawProblem(await rawExchange(port, 'GET /no/such/path HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'), 404, 'route_not_found')
  })

  it('when the request line is not HTTP, then 400 malformed_request', async () => {
    expectRawProblem(await rawExchange(port, 'HELLO\r\n\r\n'), 400, 'malformed_request')
  })

  it('when Content-Length announces more than the body limit, then 413 problem+json with a request id and nosniff', async () => {
    const raw = await rawExchange(port, `POST /session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\nConnection: close\r\n\r\n{`)
    expectRawProblem(raw, 413, 'payload_too_large')
  })
})

describe('slow clients are cut off', () => {
  let slow: TestApp
  let port: number
  const slowLog: Array<{ level: number; msg: string }> = []
  beforeAll(async () => {
    slow = await startTestApp({
      database: t.database,
      serverLimits: { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, maxConnections: 100 },
      logger: { level: 'info', stream: { write: (line: string) => void slowLog.push(JSON.parse(line) as { level: number; msg: string }) } },
    })
    await slow.app.listen({ host: '127.0.0.1', port: 0 })
    port = (slow.app.server.address() as { port: number }).port
  })
  afterAll(async () => slow?.close())

  it('when the headers stop half-way, then 408 request_timeout problem+json and the connection closes', async () => {
    const raw = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Half: ')
    expectRawProblem(raw, 408, 'request_timeout')
  })

  it('when the body stops half-way, then 408 request_timeout problem+json and the connection closes', async () => {
    const raw = await rawExchange(port, 'POST /session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":')
    expectRawProblem(raw, 408, 'request_timeout')
    // The request Fastify was reading the body of ends quietly: no "request failed unexpectedly" (a 500).
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(slowLog.filter((line) => line.level >= 50).map((line) => line.msg)).toEqual([])
    expect(slowLog.map((line) => line.msg)).toContain('connection closed before the request was complete')
  })

  it('when a keep-alive connection sits idle after its answer, then the server closes it', async () => {
    const raw = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
    expect(parseAnswer(raw).status).toBe(200)
    // Only the one answer: the close was the idle timeout, not a second (408) answer.
    expect(raw.match(/HTTP\/1\.1 /g)).toHaveLength(1)
  })
})

describe('the connection cap', () => {
  let capped: TestApp
  let port: number
  const open: Socket[] = []
  beforeAll(async () => {
    capped = await startTestApp({ database: t.database, serverLimits: { headersTimeoutMs: 10_000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 10_000, maxConnections: 2 } })
    await capped.app.listen({ host: '127.0.0.1', port: 0 })
    port = (capped.app.server.address() as { port: number }).port
  })
  afterAll(async () => {
    for (const socket of open) socket.destroy()
    await capped?.close()
  })

  /** A keep-alive connection that has had one answer, so the server surely counts it. */
  async function connectedAndAnswered(): Promise<{ socket: Socket; answer: Promise<string> }> {
    const socket = connect(port, '127.0.0.1')
    open.push(socket)
    socket.on('error', () => undefined)
    let received = ''
    const answer = new Promise<string>((resolve) => {
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1')
        if (/\r\n\r\n[\s\S]*\}/.test(received)) resolve(received)
      })
      socket.on('close', () => resolve(received))
    })
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
    return { socket, answer }
  }

  it('when the cap is reached, then another connection is closed without an answer while the open ones keep working', async () => {
    const first = await connectedAndAnswered()
    const second = await connectedAndAnswered()
    expect(parseAnswer(await first.answer).status).toBe(200)
    expect(parseAnswer(await second.answer).status).toBe(200)

    const refused = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
    expect(refused).toBe('')

    // The two connections in use still answer.
    const again = new Promise<string>((resolve) => {
      let received = ''
      first.socket.on('data', (chunk) => {
        received += chunk.toString('latin1')
        if (/\r\n\r\n[\s\S]*\}/.test(received)) resolve(received)
      })
    })
    first.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')
    expect(parseAnswer(await again).status).toBe(200)
  })
})

describe('the access log', () => {
  it('when a path segment is an SSN (plain, dashed or percent-encoded), then the request completed line shows it masked', async () => {
    const lines: string[] = []
    const logged = await startTestApp({ database: t.database, logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } } })
    try {
      const key = await logged.newPartner()
      for (const path of ['/groups/123456789', '/members/123-45-6789/coverage', '/groups/123%2D45%2D6789', '/groups/0193a4b2-0000-7000-8000-000000000001']) {
        await call(logged.app, key, 'GET', path)
      }
    } finally {
      await logged.close()
    }
    const paths = lines.map((line) => JSON.parse(line) as { msg: string; path?: string }).filter((line) => line.msg === 'request completed').map((line) => line.path)
    expect(paths).toEqual(['/groups/***-**-6789', '/members/***-**-6789/coverage', '/groups/***-**-6789', '/groups/0193a4b2-0000-7000-8000-000000000001'])
    expect(lines.join('\n')).not.toMatch(/123-?45-?6789|123%2D45/i)
  })

  it('when an unknown path or a wrong method carries an SSN-shaped segment, then the 404/405 detail shows it masked', async () => {
    const unknown = await call(t.app, partner, 'GET', '/no/such/123-45-6789/path')
    expectProblem(unknown, 404, 'route_not_found')
    expect(unknown.json().detail).toBe('No endpoint answers GET /no/such/***-**-6789/path.')
    const wrongMethod = await call(t.app, partner, 'POST', '/groups/123456789')
    expectProblem(wrongMethod, 405, 'method_not_allowed')
    expect(wrongMethod.body).not.toMatch(/123-?45-?6789/)
    expect(wrongMethod.json().detail).toContain('/groups/***-**-6789 does not answer POST')
  })
})

describe('configuration', () => {
  it('when HTTP_* variables are set, then the limits take them; unset, the defaults (10 s, 60 s, 72 s, 4096)', () => {
    const config = loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '120000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000', HTTP_MAX_CONNECTIONS: '100' })
    expect(config.serverLimits).toEqual({ headersTimeoutMs: 5000, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 65_000, maxConnections: 100 })
    expect(loadConfig({}).serverLimits).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 72_000, maxConnections: 4096 })
  })

  it('when the header timeout exceeds the request timeout, or a value is not a number, then the start is refused', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '70000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS/)
    expect(() => loadConfig({ HTTP_MAX_CONNECTIONS: 'many' })).toThrow(/HTTP_MAX_CONNECTIONS/)
  })
})
