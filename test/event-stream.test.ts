import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHousekeeping } from '../src/jobs/housekeeping.js'
import { emitEvents } from '../src/modules/events/events.js'
import { formatEventCursor } from '../src/modules/event-stream/event-cursor.js'
import { DEFAULT_EVENT_STREAM_SETTINGS } from '../src/modules/event-stream/event-stream.settings.js'
import { consoleUser, SESSION_COOKIE, signIn } from './helpers/console-session.js'
import { StreamClient } from './helpers/event-stream-client.js'
import { insertReadySetup, type ReadySetup } from './helpers/setup-factories.js'
import { call, expectProblem, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * GET /events/stream over real connections: events caused through the API arrive, a reconnection
 * with Last-Event-ID misses nothing and repeats nothing, tenancy and filters are the watchers',
 * and an event of a transaction that commits late is still delivered in its place.
 */
let t: TestApp
let base: string
const clients: StreamClient[] = []

beforeAll(async () => {
  t = await startTestApp({ eventStream: { ...DEFAULT_EVENT_STREAM_SETTINGS, pollMs: 50, heartbeatMs: 300, streamsPerAccount: 3 } })
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 })
  base = address
})
afterAll(async () => {
  for (const client of clients) client.close()
  await t?.close()
})

async function open(who: Pick<Credential, 'apiKey'> | null, query = '', headers: Record<string, string> = {}): Promise<StreamClient> {
  const client = await StreamClient.open(`${base}/events/stream${query}`, { ...(who ? { 'service-api-key': who.apiKey } : {}), ...headers })
  clients.push(client)
  if (client.status === 200) await client.until((c) => c.lastEventId !== undefined, 10_000, 'the start position')
  return client
}

/** An operator raises an error on the partner's coverage period through the API: one error.created of the partner's account. */
async function raiseError(operator: Credential, setup: ReadySetup): Promise<string> {
  const res = await call(t.app, operator, 'POST', `/coverage_periods/${setup.coveragePeriod.id}/errors`, {
    error: { source: 'manual', discrepancy: { parameter: 'gender', carrier: 'F', platform: 'M' } },
  })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().error.id as string
}

/** The events of these accounts only: on a shared PostgreSQL an operator's stream also carries other test files'. */
const ofAccounts = (client: StreamClient, ...accountIds: string[]) => client.payloads().filter((event) => accountIds.includes(event.account_id))

describe('GET /events/stream', () => {
  it('when an API call causes an event, then it arrives; reconnecting with Last-Event-ID receives exactly the events caused meanwhile, in order, once', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)

    const first = await open(partner, '', { 'accept-encoding': 'br, gzip' })
    expect(first.response.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    // Compressed, events would wait in the compressor's buffer.
    expect(first.response.headers['content-encoding']).toBeUndefined()
    expect(first.response.headers['cache-control']).toBe('no-store')
    expect(first.blocks[0]).toMatchObject({ retry: String(DEFAULT_EVENT_STREAM_SETTINGS.retryMs) })
    const errorId = await raiseError(operator, setup)
    await first.until((c) => c.events.length === 1, 10_000, 'the first event')
    const [received] = first.events
    expect(received!.event).toBe('error.created')
    const payload = JSON.parse(received!.data!)
    expect(payload).toMatchObject({ type: 'error.created', account_id: partner.accountId, data: { error_id: errorId } })
    expect(Object.keys(payload)).toEqual(['id', 'type', 'timestamp', 'account_id', 'data'])
    // The payload id is the event id watchers' deliveries would carry: the one in the log.
    const logged = await t.db.selectFrom('event_log').select('id').where('account_id', '=', partner.accountId).execute()
    expect(logged.map((row) => row.id)).toEqual([payload.id])
    const resumeFrom = first.lastEventId!
    expect(resumeFrom).toBe(received!.id)
    first.close()

    const missed = [await raiseError(operator, setup), await raiseError(operator, setup), await raiseError(operator, setup)]
    const resumed = await open(partner, '', { 'last-event-id': resumeFrom })
    await resumed.until((c) => c.events.length >= 3, 10_000, 'the missed events')
    const after = await raiseError(operator, setup)
    await resumed.until((c) => c.events.length >= 4, 10_000, 'the new event')
    // Nothing more comes: a duplicate would arrive within a few polls.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(resumed.payloads().map((event) => event.data.error_id)).toEqual([...missed, after])
    const ids = resumed.events.map((block) => block.id)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('when no Last-Event-ID is sent, then the stream starts with new events, and its first id resumes from there', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    await raiseError(operator, setup)

    const client = await open(partner)
    const start = client.lastEventId!
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(client.events).toEqual([])
    client.close()
    const later = await raiseError(operator, setup)
    // The query parameter, for clients that cannot send headers.
    const resumed = await open(partner, `?last_event_id=${encodeURIComponent(start)}`)
    await resumed.until((c) => c.events.length >= 1)
    expect(resumed.payloads().map((event) => event.data.error_id)).toEqual([later])
  })

  it('when several accounts cause events, then a partner receives only its own and an operator every account\'s', async () => {
    const operator = await t.newOperator()
    const a = await t.newPartner('Partner A')
    const b = await t.newPartner('Partner B')
    const setupA = await insertReadySetup(t.db, a.accountId)
    const setupB = await insertReadySetup(t.db, b.accountId)
    const streamA = await open(a)
    const streamB = await open(b)
    const streamOperator = await open(operator)

    const fromA = await raiseError(operator, setupA)
    const fromB = await raiseError(operator, setupB)
    await streamOperator.until((c) => ofAccounts(c, a.accountId, b.accountId).length === 2, 10_000, 'both accounts\' events')
    await streamA.until((c) => c.events.length >= 1)
    await streamB.until((c) => c.events.length >= 1)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(streamA.payloads().map((event) => event.data.error_id)).toEqual([fromA])
    expect(streamB.payloads().map((event) => event.data.error_id)).toEqual([fromB])
    expect(ofAccounts(streamOperator, a.accountId, b.accountId).map((event) => event.data.error_id)).toEqual([fromA, fromB])
  })

  it('when filters are given, then only the events they select arrive, and another account\'s ids match nothing', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const other = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const second = await insertReadySetup(t.db, partner.accountId)
    const othersSetup = await insertReadySetup(t.db, other.accountId)
    const byType = await open(partner, '?event_types=error.resolved,error.returned&event_types=coverage_period.state_changed')
    const byPeriod = await open(partner, `?coverage_period_id=${second.coveragePeriod.id}`)
    const byGroup = await open(partner, `?group_id=${setup.group.id}&event_types=error.created`)

    const inFirst = await raiseError(operator, setup)
    const inSecond = await raiseError(operator, second)
    const resolved = await call(t.app, partner, 'POST', `/errors/${inFirst}/resolution`, { message: 'Fixed on our side.' })
    expect(resolved.statusCode, resolved.body).toBe(200)
    await byType.until((c) => c.events.length >= 1)
    await byPeriod.until((c) => c.events.length >= 1)
    await byGroup.until((c) => c.events.length >= 1)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(byType.payloads().map((event) => [event.type, event.data.error_id])).toEqual([['error.resolved', inFirst]])
    expect(byPeriod.payloads().map((event) => [event.type, event.data.error_id])).toEqual([['error.created', inSecond]])
    expect(byGroup.payloads().map((event) => [event.type, event.data.error_id])).toEqual([['error.created', inFirst]])
    for (const client of [byType, byPeriod, byGroup]) client.close()

    // Streams close asynchronously; the account's count must have room again before the next three.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const foreign = await open(partner, `?coverage_period_id=${othersSetup.coveragePeriod.id}&last_event_id=0-0`)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(foreign.events).toEqual([])
  })

  it('when the cursor or a filter is malformed, or credentials are missing, then the answer is a problem naming it, not a stream', async () => {
    const partner = await t.newPartner()
    for (const [query, headers] of [
      ['', { 'last-event-id': 'abc' }],
      ['?last_event_id=12', {}],
      ['?last_event_id=12-3-4', {}],
      ['?last_event_id=1-1', { 'last-event-id': '01-1' }],
    ] as const) {
      const res = await call(t.app, partner, 'GET', `/events/stream${query}`, undefined, headers)
      expectProblem(res, 400, 'invalid_last_event_id')
      expect(res.json().detail).toContain('last-event-id' in headers ? 'Last-Event-ID' : 'last_event_id')
    }
    // A position the database has not reached (another deployment's id).
    expectProblem(await call(t.app, partner, 'GET', '/events/stream', undefined, { 'last-event-id': '18446744073709551615-1' }), 400, 'invalid_last_event_id')
    // HEAD answers as GET would, without opening a stream.
    expect((await call(t.app, partner, 'HEAD', '/events/stream', undefined, { 'last-event-id': '18446744073709551615-1' })).statusCode).toBe(400)
    const badType = await call(t.app, partner, 'GET', '/events/stream?event_types=error.created,error.deleted')
    expectProblem(badType, 422, 'validation_failed')
    expect(badType.json().errors).toEqual([expect.objectContaining({ parameter: 'event_types', code: 'invalid_value' })])
    expectProblem(await call(t.app, partner, 'GET', '/events/stream?group_id=nope'), 422, 'validation_failed')
    expectProblem(await call(t.app, partner, 'GET', '/events/stream?colour=blue'), 422, 'validation_failed')
    expectProblem(await call(t.app, null, 'GET', '/events/stream'), 401, 'missing_credentials')
    // HEAD answers the headers and opens no stream: one nobody reads would hold a slot for an hour.
    for (let i = 0; i < 5; i++) {
      const head = await call(t.app, partner, 'HEAD', '/events/stream')
      expect(head.statusCode).toBe(200)
      expect(head.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    }
    expect((await open(partner)).status).toBe(200)
  })

  it('when an account opens more streams than it may, then the next answers 429 until one closes', async () => {
    const partner = await t.newPartner()
    const streams = [await open(partner), await open(partner), await open(partner)]
    const refused = await open(partner)
    expect(refused.status).toBe(429)
    expect(JSON.parse(await refused.body())).toMatchObject({ code: 'event_stream_limit_reached' })
    expect((await call(t.app, partner, 'HEAD', '/events/stream')).statusCode).toBe(429)
    streams[0]!.close()
    await new Promise((resolve) => setTimeout(resolve, 100))
    const again = await open(partner)
    expect(again.status).toBe(200)
  })

  it('when a console user opens the stream with the session cookie (EventSource), then it is served with the account\'s events', async () => {
    const partner = await t.newPartner()
    const user = await consoleUser(t, partner)
    const signedIn = await signIn(t.app, user.email, user.password)
    expect(signedIn.statusCode, signedIn.body).toBe(201)
    const cookie = signedIn.cookies.find((c) => c.name === SESSION_COOKIE)!
    const client = await open(null, '', { cookie: `${SESSION_COOKIE}=${cookie.value}` })
    expect(client.status).toBe(200)
  })

  it('when the stream is quiet, then keep-alive comments arrive', async () => {
    const client = await open(await t.newPartner())
    await client.until((c) => c.comments.includes('keep-alive'), 5000, 'a heartbeat')
  })

  it('when an event is logged by a transaction that has not ended, then it is held back, and what committed before it is not skipped', async () => {
    // The embedded database has one connection, so the transaction still running is played by a
    // row naming a transaction id far ahead (none older than it may be handed out yet).
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const client = await open(partner)
    const horizon = await sql<{ next: string }>`select pg_snapshot_xmax(pg_current_snapshot())::text as next`.execute(t.db)
    const running = (BigInt(horizon.rows[0]!.next) + 1_000_000n).toString()
    try {
      await sql`insert into event_log (id, account_id, type, payload, tx_id) values (gen_random_uuid(), ${partner.accountId}, 'error.created', '{}', ${running}::xid8)`.execute(t.db)
      const committed = await raiseError(operator, setup)
      await client.until((c) => c.events.length >= 1)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(client.payloads().map((event) => event.data.error_id)).toEqual([committed])
    } finally {
      await sql`delete from event_log where tx_id = ${running}::xid8`.execute(t.db)
    }
  })

  it.runIf(process.env.DATABASE_URL)(
    'when a transaction that began first commits after a later one, then both arrive in cursor order, neither skipped, also on resumption',
    async () => {
      const partner = await t.newPartner()
      const operator = await t.newOperator()
      const setup = await insertReadySetup(t.db, partner.accountId)
      const client = await open(partner)
      const start = client.lastEventId!

      let began!: () => void
      let release!: () => void
      const hasBegun = new Promise<void>((resolve) => (began = resolve))
      const released = new Promise<void>((resolve) => (release = resolve))
      // The slow transaction takes its id first, then waits while another change commits.
      const slow = t.db.transaction().execute(async (tx) => {
        await sql`select pg_current_xact_id()`.execute(tx)
        began()
        await released
        await emitEvents(tx, [{ type: 'error.commented', accountId: partner.accountId, coveragePeriodId: setup.coveragePeriod.id, groupId: setup.group.id, data: { error_id: 'slow' } }])
      })
      await hasBegun
      const fast = await raiseError(operator, setup)
      // Committed, but behind a transaction still running: not handed out yet.
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(client.events).toEqual([])
      release()
      await slow
      await client.until((c) => c.events.length >= 2, 10_000, 'both events')
      expect(client.payloads().map((event) => event.data.error_id)).toEqual(['slow', fast])

      const resumed = await open(partner, '', { 'last-event-id': start })
      await resumed.until((c) => c.events.length >= 2, 10_000, 'both events again')
      expect(resumed.events.map((block) => block.id)).toEqual(client.events.map((block) => block.id))
    },
  )

  it('when a cursor is older than the retention, then the stream resumes from the oldest event kept', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const gone = await raiseError(operator, setup)
    const kept = await raiseError(operator, setup)
    const [purged] = await t.db.selectFrom('event_log').select(['tx_id', 'seq']).where('account_id', '=', partner.accountId).orderBy('tx_id').orderBy('seq').execute()
    await t.db.deleteFrom('event_log').where('account_id', '=', partner.accountId).where(sql<boolean>`payload->'data'->>'error_id' = ${gone}`).execute()
    const olderCursor = formatEventCursor({ txId: BigInt(purged!.tx_id) - 1n, seq: 0n })
    const resumed = await open(partner, '', { 'last-event-id': olderCursor })
    await resumed.until((c) => c.events.length >= 1)
    expect(resumed.payloads().map((event) => event.data.error_id)).toEqual([kept])
  })
})

describe('event log retention', () => {
  it('when housekeeping runs, then events older than EVENT_LOG_RETENTION_DAYS are deleted and newer ones kept', async () => {
    const partner = await t.newPartner()
    const insert = (createdAt: Date) =>
      sql`insert into event_log (id, account_id, type, payload, created_at) values (gen_random_uuid(), ${partner.accountId}, 'error.created', '{}', ${createdAt})`.execute(t.db)
    const now = Date.now()
    await insert(new Date(now - 3 * 86_400_000 - 60_000))
    await insert(new Date(now - 86_400_000))
    await createHousekeeping(t.db, { eventLogRetentionDays: 3 }, () => now)()
    const left = await t.db.selectFrom('event_log').select('created_at').where('account_id', '=', partner.accountId).execute()
    expect(left.map((row) => row.created_at.getTime())).toEqual([now - 86_400_000])
  })
})

describe('GET /events/stream on shutdown', () => {
  it('when the app closes with streams open, then they end and close() does not wait for their clients', async () => {
    const second = await startTestApp({ database: t.database })
    const address = await second.app.listen({ host: '127.0.0.1', port: 0 })
    const partner = await t.newPartner()
    const client = await StreamClient.open(`${address}/events/stream`, { 'service-api-key': partner.apiKey })
    clients.push(client)
    await client.until((c) => c.lastEventId !== undefined)
    const started = Date.now()
    await second.app.close()
    expect(Date.now() - started).toBeLessThan(3000)
    await client.until((c) => c.ended, 3000, 'the stream to end')
  })
})
