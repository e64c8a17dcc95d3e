import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_CARRIER_SETTINGS, type CarrierSettings } from '../../src/modules/carrier-delivery/carrier-settings.js'
import { CarrierCatalog } from '../../src/modules/carriers/carriers.catalog.js'
import { testSsnProtection } from './test-app.js'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import pino from 'pino'
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js'
import { migrate } from '../../src/db/migrator.js'
import type { Db } from '../../src/db/schema.js'
import type { ResolveHost } from '../../src/lib/outbound-url.js'
import { createWorkers, type Workers } from '../../src/main/workers.js'
import { emitEvent, type DomainEvent } from '../../src/modules/events/events.js'
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../../src/modules/watchers/webhook-settings.js'

/**
 * A database no other test file touches. Webhook tests run workers, and a worker claims every
 * due `webhook.deliver` job of its database: on a shared PostgreSQL database it would send
 * another file's deliveries with its own settings. PGlite: a fresh in-memory database. PostgreSQL:
 * a schema of its own in DATABASE_URL's database (search_path set in the URL, so a child process
 * given `url` works in it too), dropped on close.
 */
export interface IsolatedDatabase {
  handle: DatabaseHandle
  /** DATABASE_URL for a child process (PostgreSQL only). */
  url: string | undefined
  close(): Promise<void>
}

async function admin(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await client.connect()
  try {
    await work(client)
  } finally {
    await client.end()
  }
}

export async function openIsolatedDatabase(): Promise<IsolatedDatabase> {
  const base = process.env.DATABASE_URL
  if (!base) {
    const handle = await openDatabase({ kind: 'memory' })
    await migrate(handle.db)
    return { handle, url: undefined, close: () => handle.close() }
  }
  const schema = `webhook_test_${randomBytes(6).toString('hex')}`
  await admin((client) => client.query(`create schema ${schema}`))
  const url = new URL(base)
  url.searchParams.set('options', `-c search_path=${schema}`)
  const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 5 })
  await migrate(handle.db)
  return {
    handle,
    url: url.toString(),
    async close() {
      await handle.close()
      await admin((client) => client.query(`drop schema if exists ${schema} cascade`))
    },
  }
}

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
  at: number
}

/** What the receiver does with the n-th request (1-based): answer a status, or hold it open. */
export type Behaviour = (n: number, request: ReceivedRequest) => number | 'hang'

export interface Receiver {
  /** http://127.0.0.1:<port> */
  origin: string
  port: number
  requests: ReceivedRequest[]
  behave(behaviour: Behaviour): void
  /** Resolves when `count` requests have arrived. */
  received(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>
  close(): Promise<void>
}

/** A real HTTP receiver on loopback that records every request. Answers 200 unless told otherwise. */
export async function startReceiver(behaviour: Behaviour = () => 200): Promise<Receiver> {
  let behave = behaviour
  const requests: ReceivedRequest[] = []
  const held: ServerResponse[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now() }
      requests.push(request)
      const answer = behave(requests.length, request)
      if (answer === 'hang') return void held.push(res)
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer >= 400 ? `receiver says ${answer}` : 'ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    behave: (next) => void (behave = next),
    received: (count, timeoutMs = 10_000) => waitFor(() => (requests.length >= count ? requests.slice(0, count) : undefined), timeoutMs, `${count} requests`),
    async close() {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Polls until `check` answers something other than undefined. */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000, what = 'the condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

type CarrierSideOptions = Parameters<typeof createWorkers>[0]['carrierSide']

/** Carrier settings for tests: files in a fresh temporary directory, no batching window, sandboxes acting at once. */
export function testCarrierSettings(overrides: Partial<CarrierSettings> = {}): CarrierSettings {
  return {
    ...DEFAULT_CARRIER_SETTINGS,
    outboundDirectory: mkdtempSync(join(tmpdir(), 'enrollsync-outbound-')),
    transactionBatchDelayMs: 0,
    sandboxDelayMs: 0,
    ...overrides,
  }
}

/** Settings for tests: loopback receivers allowed, a short timeout and schedule. */
export function testWebhookSettings(overrides: Partial<WebhookSettings> = {}): WebhookSettings {
  return { ...DEFAULT_WEBHOOK_SETTINGS, allowPrivateUrls: true, timeoutMs: 2000, retryScheduleSeconds: [0, 0, 0], ...overrides }
}

/** The workers serve and worker build, polling fast. Stop them in afterEach/afterAll. */
export function startWorkers(db: Db, webhooks: WebhookSettings, resolveHost?: ResolveHost, carrierSide: Partial<CarrierSideOptions> = {}): Workers {
  const workers = createWorkers({
    carrierSide: { ssn: testSsnProtection(), carriers: new CarrierCatalog(), settings: testCarrierSettings(), ...carrierSide },
    db,
    log: pino({ level: 'silent' }),
    worker: { concurrency: 2, pollMs: 20 },
    staleAfterMs: 300_000,
    webhooks,
    housekeeping: false,
    ...(resolveHost ? { resolveHost } : {}),
  })
  workers.start()
  return workers
}

/** Emits an event the way the error endpoints do: inside a transaction of its own. */
export async function emitTestEvent(db: Db, accountId: string, overrides: Partial<DomainEvent> = {}): Promise<number> {
  const event: DomainEvent = {
    type: 'error.created',
    accountId,
    coveragePeriodId: null,
    groupId: null,
    data: { error_id: '0193a4b2-0000-7000-8000-000000000090', status: 'unresolved', assignee: 'partner' },
    ...overrides,
  }
  return db.transaction().execute((tx) => emitEvent(tx, event))
}

/** A resolver with fixed answers, for host names in tests (no DNS needed). */
export function fakeResolver(answers: Record<string, string[]>): ResolveHost {
  return async (hostname) => {
    const addresses = answers[hostname]
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
}
