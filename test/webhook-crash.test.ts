import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exitOf, startProcessUntil } from './helpers/processes.js'
import { call, startTestApp, TEST_SSN_ENCRYPTION_KEYS, TEST_SSN_HASH_KEY, TEST_TOKEN_SECRET, type TestApp } from './helpers/test-app.js'
import { emitTestEvent, openIsolatedDatabase, startReceiver, testWebhookSettings, waitFor, type IsolatedDatabase, type Receiver } from './helpers/webhooks.js'

const WORKER = 'dist/main/worker.js'

// Two processes share the outbox: PostgreSQL only (PGlite is one process's).
describe.runIf(!!process.env.DATABASE_URL)('a worker killed in the middle of deliveries', () => {
  let isolated: IsolatedDatabase
  let t: TestApp
  let receiver: Receiver | undefined
  const children: ChildProcessWithoutNullStreams[] = []

  beforeAll(async () => {
    isolated = await openIsolatedDatabase()
    t = await startTestApp({ database: isolated.handle, webhooks: testWebhookSettings() })
  })
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await Promise.all(children.map((child) => exitOf(child)))
    await receiver?.close()
    await t?.close()
    await isolated?.close()
  })

  function startWorker() {
    return startProcessUntil(
      WORKER,
      {
        DATABASE_URL: isolated.url!,
        TOKEN_SIGNING_SECRET: TEST_TOKEN_SECRET,
        SSN_ENCRYPTION_KEYS: TEST_SSN_ENCRYPTION_KEYS,
        SSN_HASH_KEY: TEST_SSN_HASH_KEY,
        LOG_LEVEL: 'info',
        WORKER_POLL_MS: '50',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        // Long enough to hold the requests open until the kill; the stale limit must exceed it.
        WEBHOOK_TIMEOUT_MS: '3000',
        WORKER_STALE_AFTER_MS: '4500',
        // The killed worker's jobs come back once it has been silent this long.
        WORKER_HEARTBEAT_MS: '500',
        WORKER_DEAD_AFTER_MS: '2000',
        WEBHOOK_RETRY_SCHEDULE_SECONDS: '0,1,1',
        // Enough slots that a receiver not yet known to answer (a quarter of them) holds all five.
        WEBHOOK_CONCURRENCY: '20',
      },
      /worker started/,
    ).then((started) => {
      children.push(started.child)
      return started
    })
  }

  it('when the worker is SIGKILLed while receivers hold its requests, then a new worker delivers every event at least once', async () => {
    let holding = true
    // The application behind the receiver: what it accepted (answered 2xx), by webhook-id.
    const accepted = new Map<string, number>()
    receiver = await startReceiver((_n, request) => {
      if (holding) return 'hang'
      const id = String(request.headers['webhook-id'])
      accepted.set(id, (accepted.get(id) ?? 0) + 1)
      return 200
    })
    const partner = await t.newPartner()
    const created = await call(t.app, partner, 'POST', '/watchers', { watcher: { url: `${receiver.origin}/hook`, event_types: ['error.created'] } })
    expect(created.statusCode, created.body).toBe(201)
    for (let n = 0; n < 5; n++) await emitTestEvent(t.db, partner.accountId)

    const first = await startWorker()
    // The worker started; five deliveries reach the receiver within a few polls, or seconds on a loaded machine.
    await receiver.received(5, 20_000)
    first.child.kill('SIGKILL')
    await exitOf(first.child)
    // Events raised while no worker runs wait in the outbox.
    for (let n = 0; n < 2; n++) await emitTestEvent(t.db, partner.accountId)
    holding = false

    await startWorker()
    const deliveries = await waitFor(
      async () => {
        const rows = await t.db.selectFrom('watcher_deliveries').select(['id', 'status', 'attempts']).where('account_id', '=', partner.accountId).execute()
        return rows.length === 7 && rows.every((row) => row.status === 'succeeded') ? rows : undefined
      },
      20_000,
      'every delivery to succeed',
    )
    expect(new Set(accepted.keys())).toEqual(new Set(deliveries.map((d) => d.id)))
    // The killed attempts were never recorded: each delivery shows the one attempt that completed.
    expect(deliveries.every((d) => d.attempts === 1)).toBe(true)
    const held = new Set(receiver.requests.slice(0, 5).map((r) => String(r.headers['webhook-id'])))
    // The worker records a job's own attempt just after the handler has recorded the delivery's.
    const jobs = await waitFor(async () => {
      const rows = await t.db.selectFrom('jobs').select(['payload', 'attempts', 'status']).where('name', '=', 'webhook.deliver').execute()
      return rows.every((row) => row.status !== 'running') ? rows : undefined
    })
    expect(jobs).toHaveLength(7)
    for (const job of jobs) {
      const { delivery_id: id } = job.payload as { delivery_id: string }
      // Jobs the dead worker held were released once it stopped beating, and run a second time.
      expect(job, id).toMatchObject({ status: 'succeeded', attempts: held.has(id) ? 2 : 1 })
    }
    // Two worker processes start (up to 30 s each) and the waits allow 50 s more: 5.7 s in CI.
  }, 120_000)
})
