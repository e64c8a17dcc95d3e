import { sql } from 'kysely'
import type { FastifyReply } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PassThrough, Writable } from 'node:stream'
import { keysetCsvExport } from '../src/db/csv-export.js'
import { maskPiiPathSegments } from '../src/http/access-log.js'
import { sendCsv } from '../src/http/csv-response.js'
import { DEFAULT_EVENT_STREAM_SETTINGS } from '../src/modules/event-stream/event-stream.settings.js'
import { StreamClient } from './helpers/event-stream-client.js'
import { uuidv7 } from '../src/lib/ids.js'
import { raiseByHand, registerUser } from './helpers/error-fixtures.js'
import { insertReadySetup, type ReadySetup } from './helpers/setup-factories.js'
import { call, expectProblem, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * Issue 17's queue API under inputs a careless or hostile client sends: ids in another case,
 * headers the service did not expect, instants JavaScript cannot hold, Accept values that
 * refuse a type. Every one answers a precise problem or a normal answer, never a 500.
 */

let t: TestApp
let operator: Credential
beforeAll(async () => {
  t = await startTestApp()
  operator = await t.newOperator()
})
afterAll(async () => t?.close())

interface Queue {
  partner: Credential
  setup: ReadySetup
  user: { id: string; email: string }
  errorIds: string[]
}

/** A partner with a user and two errors held by the partner. */
async function queue(): Promise<Queue> {
  const partner = await t.newPartner()
  const setup = await insertReadySetup(t.db, partner.accountId)
  const user = await registerUser(t, partner, `edge-${uuidv7()}@example.com`)
  const errorIds: string[] = []
  for (const parameter of ['gender', 'region']) {
    const res = await raiseByHand(t, operator, setup.coveragePeriod.id, { source: 'manual', discrepancy: { parameter, carrier: 'a', platform: 'b' }, assignee: 'partner' })
    expect(res.statusCode, res.body).toBe(201)
    errorIds.push(res.json().error.id as string)
  }
  return { partner, setup, user, errorIds }
}

describe('bulk assignment and the case of ids', () => {
  it('when a bulk assignment names errors by upper-case ids, then they are assigned as with lower-case ones', async () => {
    const q = await queue()
    // Every other route takes an upper-case UUID (the format is case-insensitive): so must this one.
    const res = await call(t.app, q.partner, 'POST', '/errors/assignments', { assignment: { user_id: q.user.id, error_ids: q.errorIds.map((id) => id.toUpperCase()) } })
    expect(res.statusCode, res.body).toBe(200)
    const errors = res.json().errors as { id: string; assigned_user: { id: string } | null }[]
    expect(errors.map((e) => e.id)).toEqual(q.errorIds)
    expect(errors.map((e) => e.assigned_user?.id)).toEqual([q.user.id, q.user.id])
  })

  it('when one error is named twice in different case, then 422 at the repeat, as for an exact repeat, and nothing changes', async () => {
    const q = await queue()
    const [first] = q.errorIds
    const res = await call(t.app, q.partner, 'POST', '/errors/assignments', { assignment: { user_id: q.user.id, error_ids: [first!, first!.toUpperCase()] } })
    expectProblem(res, 422, 'validation_failed')
    expect(res.json().errors).toEqual([expect.objectContaining({ pointer: '/assignment/error_ids/1', code: 'invalid_uniqueitems' })])
    const after = await call(t.app, q.partner, 'GET', `/errors/${first}`)
    expect(after.json().error.assigned_user).toBeNull()
  })

  it("when upper-case ids mix with another account's, then only the foreign one is refused, at its pointer", async () => {
    const q = await queue()
    const other = await queue()
    const res = await call(t.app, q.partner, 'POST', '/errors/assignments', {
      assignment: { user_id: q.user.id, error_ids: [q.errorIds[0]!.toUpperCase(), other.errorIds[0]!.toUpperCase()] },
    })
    expectProblem(res, 422, 'validation_failed')
    expect(res.json().errors).toEqual([expect.objectContaining({ pointer: '/assignment/error_ids/1', code: 'error_not_found' })])
  })
})

describe('work-order assignment and the case of ids', () => {
  it('when the assigned operator user is named again in upper case, then nothing changes and nothing is recorded', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId, { carrierName: 'sandbox_manual' })
    const opened = await call(t.app, partner, 'POST', `/coverage_periods/${setup.coveragePeriod.id}/complete_setup`)
    expect(opened.statusCode, opened.body).toBe(201)
    const workOrderId = opened.json().work_order.id as string
    const user = await registerUser(t, operator, `ops-${uuidv7()}@example.com`, ['operations'])
    const assign = (userId: string) => call(t.app, operator, 'PUT', `/work_orders/${workOrderId}/assignment`, { assignment: { user_id: userId } })
    const first = await assign(user.id)
    expect(first.statusCode, first.body).toBe(200)
    const audited = async () =>
      (await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', workOrderId).where('action', 'like', 'work_order.%assigned').execute()).length
    expect(await audited()).toBe(1)
    // "The same assignee again changes nothing": the same user, written in the other case.
    const again = await assign(user.id.toUpperCase())
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().work_order.updated_at).toBe(first.json().work_order.updated_at)
    expect(again.json().work_order.assigned_user).toEqual(first.json().work_order.assigned_user)
    expect(await audited()).toBe(1)
  })
})

describe('the Link header and the Host header', () => {
  it('when the Host header is not a valid authority, then the paginated lists still answer, with relative links', async () => {
    const q = await queue()
    for (const host of ['bad host', 'example.com:99999', '[::1']) {
      for (const url of ['/errors?per_page=1', `/coverage_periods/${q.setup.coveragePeriod.id}/errors?per_page=1`, `/errors/${q.errorIds[0]}/history`]) {
        const res = await call(t.app, q.partner, 'GET', url, undefined, { host })
        expect(res.statusCode, `${host} ${url}: ${res.body}`).toBe(200)
        // RFC 8288 allows a relative reference; it resolves against the URL the client asked for.
        expect(res.headers.link, host).toMatch(/^<\/[^>]*page=1[^>]*>; rel="first"/)
      }
    }
    // A valid Host still gives absolute links.
    const normal = await call(t.app, q.partner, 'GET', '/errors?per_page=1', undefined, { host: 'queue.example.com' })
    expect(normal.headers.link).toContain('<http://queue.example.com/errors?per_page=1&page=1>; rel="first"')
  })
})

describe('audit log date range', () => {
  it('when created_after or created_before is a leap second, then 422 naming it, not a 500', async () => {
    for (const parameter of ['created_after', 'created_before']) {
      const res = await call(t.app, operator, 'GET', `/audit_events?${parameter}=2016-12-31T23:59:60Z`)
      expectProblem(res, 422, 'validation_failed')
      expect(res.json().errors).toEqual([expect.objectContaining({ parameter, code: 'invalid_format' })])
    }
    // Instants JavaScript holds still filter.
    expect((await call(t.app, operator, 'GET', '/audit_events?created_after=2016-12-31T23:59:59.999Z&created_before=0001-01-01T00:00:00Z')).statusCode).toBe(200)
  })
})

describe('CSV negotiation', () => {
  it('when Accept gives text/csv a q of 0 (not acceptable), then the lists answer JSON, not CSV', async () => {
    const q = await queue()
    for (const accept of ['text/csv;q=0', 'text/csv; q=0.000', 'application/json;q=0, text/csv;q=0']) {
      const errors = await call(t.app, q.partner, 'GET', '/errors', undefined, { accept })
      expect(errors.statusCode).toBe(200)
      expect(errors.headers['content-type'], accept).toMatch(/^application\/json/)
      const workOrders = await call(t.app, operator, 'GET', `/work_orders?account_id=${q.partner.accountId}`, undefined, { accept })
      expect(workOrders.headers['content-type'], `work orders, ${accept}`).toMatch(/^application\/json/)
    }
    // What was CSV stays CSV.
    for (const accept of ['text/csv', 'text/csv;q=0.1', 'application/json;q=0, text/csv;q=0.5', 'application/json;q=0.1, text/csv;q=0.2']) {
      const res = await call(t.app, q.partner, 'GET', '/errors', undefined, { accept })
      expect(res.headers['content-type'], accept).toMatch(/^text\/csv/)
    }
  })
})

describe('HEAD with Accept: text/csv', () => {
  it('when a list is asked for CSV with HEAD, then it answers the headers and no export runs', async () => {
    const q = await queue()
    for (const [who, url] of [
      [q.partner, '/errors'],
      [q.partner, `/coverage_periods/${q.setup.coveragePeriod.id}/errors`],
      [operator, `/work_orders?account_id=${q.partner.accountId}`],
    ] as const) {
      const res = await call(t.app, who, 'HEAD', url, undefined, { accept: 'text/csv' })
      expect(res.statusCode, url).toBe(200)
      expect(res.headers['content-type'], url).toBe('text/csv; charset=utf-8')
      expect(res.body, url).toBe('')
    }
    // Fastify reads a HEAD answer's stream to the end and drops it; the export's stream is
    // closed instead, which ends the export (db/csv-export.ts) before it reads a page.
    const exported = new PassThrough()
    const sent: unknown[] = []
    const reply = {
      request: { method: 'HEAD' },
      code: () => reply,
      type: () => reply,
      header: () => reply,
      send: (...payload: unknown[]) => (sent.push(...payload), reply),
    }
    sendCsv(reply as unknown as FastifyReply, exported, 'errors')
    expect(exported.destroyed).toBe(true)
    expect(sent).toEqual([])
  })
})

describe('the streamed export when the client goes away', () => {
  it('when the client disconnects while a page is being read, then the export ends and lets the database go', async () => {
    // The download's stream is destroyed (the client hung up) while the export reads a page in
    // its transaction; on the embedded database that transaction holds the only connection.
    let pagesRead = 0
    const stream = keysetCsvExport<{ text: string; keys: string }>(
      t.db,
      [['Text', (row) => row.text]],
      async (tx) => async (after, limit) => {
        await sql`select 1`.execute(tx)
        pagesRead++
        if (pagesRead === 2) {
          stream.destroy()
          // The page's statement outlasts the hang-up, as a real read of 1,000 rows does.
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        const start = after ? Number(after[0]) + 1 : 0
        return Array.from({ length: limit }, (_, i) => ({ text: 'x'.repeat(100), keys: JSON.stringify([String(start + i)]) }))
      },
      { pageRows: 10, stallMs: 300 },
    )
    stream.resume()
    await new Promise((resolve) => stream.once('close', resolve))
    // The transaction is over: the database answers another statement within a second, long
    // before a forgotten export would let go (never: it waited for a 'close' already past).
    const answered = await Promise.race([
      sql<{ one: number }>`select 1 as one`.execute(t.db).then((r) => r.rows[0]!.one),
      new Promise((resolve) => setTimeout(() => resolve('still held'), 2000)),
    ])
    expect(answered).toBe(1)
    expect(pagesRead).toBe(2)
  })
})

// Each way the paths below spell the date (request ids are hex, so no shorter pattern is safe).
const BIRTH_DATE_SPELLINGS = ['1985-03-14', '03-14-1985', '1985%2F03%2F14', '1985/03/14', '19850314']

describe('a birth date where an id goes', () => {
  it('when a path segment is a date, then neither the 404/405 detail nor the access log repeats it', async () => {
    const lines: string[] = []
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk))
        done()
      },
    })
    const logged = await startTestApp({ database: t.database, logger: { level: 'info', stream: sink } })
    try {
      const partner = await t.newPartner()
      // A client looking a member up by the wrong field puts the birth date where the id goes.
      const asked: [string, string][] = [
        ['PUT', '/errors/1985-03-14/history'],
        ['GET', '/errors/1985-03-14/assignment'],
        ['GET', '/errors/03-14-1985/history'],
        ['PUT', '/coverage_periods/1985%2F03%2F14/errors'],
        ['GET', '/no_such_route/19850314'],
      ]
      for (const [method, url] of asked) {
        const res = await call(logged.app, partner, method as 'GET', url, method === 'PUT' ? {} : undefined)
        expect([404, 405], url).toContain(res.statusCode)
        for (const shown of BIRTH_DATE_SPELLINGS) expect(res.body, url).not.toContain(shown)
      }
      const text = lines.join('')
      expect(text).toContain('request completed')
      for (const shown of BIRTH_DATE_SPELLINGS) expect(text).not.toContain(shown)
    } finally {
      await logged.close()
    }
  })

  it('when a segment only looks like a date in part, or is an id, then it is shown as it is', () => {
    expect(maskPiiPathSegments('/errors/1985-03-14/history')).toBe('/errors/****-**-**/history')
    expect(maskPiiPathSegments('/members/123-45-6789')).toBe('/members/***-**-6789')
    expect(maskPiiPathSegments('/errors/01a21bfc-d2e6-7378-acb5-304e4317f778/history')).toBe('/errors/01a21bfc-d2e6-7378-acb5-304e4317f778/history')
    expect(maskPiiPathSegments('/carriers/sandbox_edi')).toBe('/carriers/sandbox_edi')
    expect(maskPiiPathSegments('/things/12345678')).toBe('/things/12345678')
  })
})

describe('live events and the case of filter ids', () => {
  it('when a stream filters by coverage period or group in upper case, then live events of it still arrive', async () => {
    const live = await startTestApp({ database: t.database, eventStream: { ...DEFAULT_EVENT_STREAM_SETTINGS, pollMs: 50 } })
    const base = await live.app.listen({ host: '127.0.0.1', port: 0 })
    const clients: StreamClient[] = []
    try {
      const q = await queue()
      const open = async (query: string) => {
        const client = await StreamClient.open(`${base}/events/stream?${query}`, { 'service-api-key': q.partner.apiKey })
        clients.push(client)
        expect(client.status).toBe(200)
        await client.until((c) => c.lastEventId !== undefined, 10_000, 'the start position')
        return client
      }
      // The same filters in both cases: the database compares uuids, so must the live feed.
      const byPeriod = await open(`coverage_period_id=${q.setup.coveragePeriod.id.toUpperCase()}`)
      const byGroup = await open(`group_id=${q.setup.group.id.toUpperCase()}`)
      const lower = await open(`coverage_period_id=${q.setup.coveragePeriod.id}`)
      const res = await call(t.app, q.partner, 'PUT', `/errors/${q.errorIds[0]}/assignment`, { assignment: { user_id: q.user.id } })
      expect(res.statusCode, res.body).toBe(200)
      // Waited for by type: the setup's own error.created events may still reach a stream opened
      // right after it (their event-log rows are written after the setup's answers, on PostgreSQL
      // with Redis), and they are of the same coverage period.
      const assigned = (c: StreamClient) => c.payloads().some((event) => event.type === 'error.assigned')
      await lower.until(assigned, 10_000, 'the event, lower-case filter')
      await byPeriod.until(assigned, 5_000, 'the event, upper-case coverage_period_id')
      await byGroup.until(assigned, 5_000, 'the event, upper-case group_id')
      for (const client of [byPeriod, byGroup]) expect(client.payloads().map((event) => event.type).filter((type) => type !== 'error.created')).toEqual(['error.assigned'])
    } finally {
      for (const client of clients) client.close()
      await live.close()
    }
  })
})

describe('search text that is only white space', () => {
  // The error queue searches `first_name || ' ' || last_name || ' ' || external_identifier` (so a
  // full name is found), which a space alone matches for every error: refused, as an empty q is.
  it('when q is only white space, then 422 at q on the error and work-order lists and counts', async () => {
    for (const url of ['/errors?q=%20', '/errors/counts?q=%20%20', '/errors?q=%09', '/work_orders?q=%20', '/work_orders/counts?q=%20']) {
      const res = await call(t.app, operator, 'GET', url)
      expectProblem(res, 422, 'validation_failed')
      expect(res.json().errors.map((e: { parameter: string }) => e.parameter), url).toEqual(['q'])
    }
    // Text with spaces inside is a search as any other.
    expect((await call(t.app, operator, 'GET', '/errors?q=%20a%20')).statusCode).toBe(200)
  })
})

describe('paging values that are not whole numbers written in digits', () => {
  it('when page or per_page is a decimal, hexadecimal or exponent, then 422 names it instead of reading it as another number', async () => {
    for (const [query, parameter] of [
      ['per_page=1.5', 'per_page'],
      ['per_page=0x10', 'per_page'],
      ['per_page=1e1', 'per_page'],
      ['page=1e6', 'page'],
      ['page=2.0', 'page'],
      ['page=%201', 'page'],
    ]) {
      for (const path of ['/errors', '/work_orders', '/audit_events']) {
        const res = await call(t.app, operator, 'GET', `${path}?${query}`)
        expectProblem(res, 422, 'validation_failed')
        expect(res.json().errors.map((e: { parameter: string }) => e.parameter), `${path}?${query}`).toEqual([parameter])
      }
    }
    // Digits, leading zeros included, are the number they spell.
    const res = await call(t.app, operator, 'GET', '/errors?per_page=007&page=01')
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['per-page']).toBe('7')
  })
})
