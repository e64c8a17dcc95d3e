import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import net from 'node:net'
import type { LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import pino from 'pino'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../src/db/database.js'
import { defineJob, JobRegistry } from '../src/jobs/job-definition.js'
import { enqueueJob } from '../src/jobs/outbox.js'
import { Worker } from '../src/jobs/worker.js'
import { generateApiKeySecret } from '../src/lib/api-key-secret.js'
import { signIn } from './helpers/console-session.js'
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.js'
import { call, expectProblem, openTestDatabase, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

const postgresUrl = process.env.DATABASE_URL
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Shaped like a key (so it is looked up, not refused on sight), and known to no database. */
const unknownKey = { apiKey: generateApiKeySecret().secret }

/** 503 database_unavailable as problem+json, with Retry-After: what a client sees while the database is away. */
function expectDatabaseUnavailable(res: LightMyRequestResponse) {
  expectProblem(res, 503, 'database_unavailable')
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  // The body says what happened, never the driver's message or the server's address.
  expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|terminated/)
}

/**
 * A 503 of the outage, problem+json with Retry-After: database_unavailable, or service_unavailable
 * when a keyed POST's commit was cut off (its outcome unknown, the same key retried decides it).
 */
function expectOutageAnswer(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(503)
  expect(res.headers['content-type'], res.body).toMatch(/^application\/problem\+json/)
  expect(['database_unavailable', 'service_unavailable']).toContain(res.json().code)
  expect(res.json().instance).toBe(res.headers['x-request-id'])
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|terminated|queryable/)
}

async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as net.AddressInfo
  server.close()
  await once(server, 'close')
  return port
}

/**
 * The service pointed at a PostgreSQL that is not there: runs on both databases, since only the
 * client side is exercised (a refused loopback port, or a proxy that accepts and never answers).
 */
describe('a PostgreSQL the service cannot reach', () => {
  it('when nothing listens at its address, then calls answer 503 database_unavailable with Retry-After, /readyz 503 and /healthz 200', async () => {
    const port = await freeLoopbackPort()
    const database = await openDatabase({ kind: 'postgres', url: `postgres://postgres@127.0.0.1:${port}/absent`, poolSize: 2, connectTimeoutMs: 500 })
    const t = await startTestApp({ database })
    try {
      expectDatabaseUnavailable(await call(t.app, unknownKey, 'GET', '/users'))
      expectDatabaseUnavailable(await call(t.app, unknownKey, 'POST', '/users', { user: { email: 'a@example.com' } }))
      // Signing in reads the user: unauthenticated routes answer the same way.
      expectDatabaseUnavailable(await signIn(t.app, 'someone@example.com', 'a pass phrase long enough'))
      const ready = await call(t.app, null, 'GET', '/readyz')
      expectProblem(ready, 503, 'service_unavailable')
      expect(Number(ready.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect((await call(t.app, null, 'GET', '/healthz')).statusCode).toBe(200)
    } finally {
      await t.close()
      await database.close()
    }
  })

  it('when connections are accepted and never answered (packets dropped), then the pool gives up after DATABASE_CONNECT_TIMEOUT_MS and the call answers 503 instead of hanging', async () => {
    // The target is never reached: a black-holed proxy accepts and stays silent.
    const blackHole = await startTcpProxy('127.0.0.1', 9)
    await blackHole.cut('blackhole')
    const database = await openDatabase({ kind: 'postgres', url: `postgres://postgres@127.0.0.1:${blackHole.port}/silent`, poolSize: 2, connectTimeoutMs: 300 })
    const t = await startTestApp({ database })
    try {
      expectDatabaseUnavailable(await call(t.app, unknownKey, 'GET', '/users'))
      expectProblem(await call(t.app, null, 'GET', '/readyz'), 503, 'service_unavailable')
    } finally {
      await t.close()
      await database.close()
      await blackHole.close()
    }
  })
})

interface Outcome {
  email: string
  status: number
  res: LightMyRequestResponse
}

/**
 * Writers creating users as fast as the service answers, until stopped. Every other writer sends
 * an Idempotency-Key, so both ways a POST commits are exercised.
 */
function startWriters(app: TestApp['app'], partner: Credential, writers: number) {
  const outcomes: Outcome[] = []
  let stopped = false
  const run = async (writer: number) => {
    for (let n = 0; !stopped; n++) {
      const email = `outage-${randomUUID().slice(0, 8)}-${writer}-${n}@example.com`
      const headers: Record<string, string> = writer % 2 === 0 ? { 'idempotency-key': randomUUID() } : {}
      const res = await call(app, partner, 'POST', '/users', { user: { email } }, headers)
      outcomes.push({ email, status: res.statusCode, res })
      // A refused connection fails in microseconds: pace the loop so the outage is not a busy spin.
      await sleep(5)
    }
  }
  const running = Promise.all(Array.from({ length: writers }, (_, writer) => run(writer)))
  return {
    outcomes,
    created: () => outcomes.filter((outcome) => outcome.status === 201).length,
    async stop() {
      stopped = true
      await running
    },
  }
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

/** Every answer was a 201 or a 503 problem with Retry-After, and every 201's user is in the database. */
async function expectNoLostAcknowledgedWrite(direct: DatabaseHandle, partner: Credential, outcomes: Outcome[]) {
  for (const { status, res } of outcomes) {
    expect([201, 503], res.body).toContain(status)
    if (status === 503) expectOutageAnswer(res)
  }
  const acknowledged = outcomes.filter((outcome) => outcome.status === 201).map((outcome) => outcome.email)
  const stored = await direct.db.selectFrom('users').select('email').where('account_id', '=', partner.accountId).execute()
  const storedEmails = new Set(stored.map((row) => row.email))
  expect(acknowledged.filter((email) => !storedEmails.has(email))).toEqual([])
}

// PostgreSQL only: the embedded PGlite runs inside the process, with no connection to cut or
// server to end. These skip without DATABASE_URL.
describe.runIf(!!postgresUrl)('PostgreSQL going away under load and coming back (through a TCP proxy)', () => {
  let direct: DatabaseHandle
  let proxy: TcpProxy
  let proxied: DatabaseHandle
  let t: TestApp
  const applicationName = `enrollsync-outage-${randomUUID().slice(0, 8)}`

  beforeAll(async () => {
    direct = await openTestDatabase()
    const target = new URL(postgresUrl!)
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432))
    const url = new URL(proxy.urlFor(postgresUrl!))
    url.searchParams.set('application_name', applicationName)
    proxied = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 4, connectTimeoutMs: 1000 })
    t = await startTestApp({ database: proxied })
  })

  afterAll(async () => {
    await t?.close()
    await proxied?.close()
    await proxy?.close()
    await direct?.close()
  })

  it('when the connection is cut mid-load, then calls answer 503 with Retry-After (never 500), /readyz 503; restored, writes succeed again without a restart and no acknowledged write is lost', async () => {
    const partner = await t.newPartner('Outage partner')
    const writers = startWriters(t.app, partner, 4)
    try {
      await waitFor(() => writers.created() >= 20, 'writes before the cut')
      await proxy.cut('refuse')
      const cutAt = writers.outcomes.length
      await waitFor(() => writers.outcomes.slice(cutAt).filter((outcome) => outcome.status === 503).length >= 20, '503s during the cut')
      const ready = await call(t.app, null, 'GET', '/readyz')
      expectProblem(ready, 503, 'service_unavailable')
      expect(ready.headers['retry-after']).toBeDefined()

      await proxy.restore()
      const restoredCreated = writers.created()
      await waitFor(() => writers.created() >= restoredCreated + 20, 'writes after the restore')
      expect((await call(t.app, null, 'GET', '/readyz')).statusCode).toBe(200)
    } finally {
      await writers.stop()
    }
    await expectNoLostAcknowledgedWrite(direct, partner, writers.outcomes)
  })

  it('when PostgreSQL ends the service\'s connections (57P01, as at a restart) mid-load, then the calls caught answer 503 and the next ones succeed', async () => {
    const partner = await t.newPartner('Terminated partner')
    const writers = startWriters(t.app, partner, 4)
    try {
      await waitFor(() => writers.created() >= 20, 'writes before the terminations')
      // Several rounds, so some land on connections in the middle of a transaction.
      for (let round = 0; round < 5; round++) {
        await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${applicationName}`.execute(direct.db)
        await sleep(50)
      }
      const after = writers.created()
      await waitFor(() => writers.created() >= after + 20, 'writes after the terminations')
    } finally {
      await writers.stop()
    }
    await expectNoLostAcknowledgedWrite(direct, partner, writers.outcomes)
  })

  it('when the database is away, then the in-process worker logs its failed polls and keeps polling; restored, it runs the jobs due', async () => {
    const lines: { msg: string }[] = []
    const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) })
    const ran: number[] = []
    const job = defineJob({
      name: `test.outage.${randomUUID()}`,
      payload: Type.Object({ n: Type.Integer() }),
      handle: async ({ n }) => void ran.push(n),
    })
    const worker = new Worker({ db: proxied.db, registry: new JobRegistry([job]), log, concurrency: 2, pollMs: 50 })
    worker.start()
    try {
      await enqueueJob(direct.db, job, { n: 1 })
      await waitFor(() => ran.includes(1), 'the job before the cut')
      await proxy.cut('refuse')
      await waitFor(() => lines.some((line) => line.msg === 'worker poll failed'), 'a failed poll to be logged')
      // Due while the database is away, from a writer that still reaches it.
      await enqueueJob(direct.db, job, { n: 2 })
      await sleep(300)
      await proxy.restore()
      await waitFor(() => ran.includes(2), 'the job due during the outage')
    } finally {
      await proxy.restore()
      await worker.stop()
    }
    expect(ran).toEqual([1, 2])
  })
})
