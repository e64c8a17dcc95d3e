// `npm run bench:webhooks` (issue 15, point 3): one account cannot hold up another's webhooks.
//
// The built service (dist/, `serve` with its in-process workers, NODE_ENV=production, the default
// WEBHOOK_CONCURRENCY, WEBHOOK_TIMEOUT_MS and back-off settings, WEBHOOK_ALLOW_PRIVATE_URLS=true
// so loopback receivers are allowed) on PostgreSQL, in a database of its own created afresh. Account
// "stuck" has 25 watchers (the default limit; a 26th is refused) pointing at a black hole: a local
// TCP server that accepts connections and never answers, so each attempt holds its slot for the
// whole timeout. Account "fine" has one watcher on a healthy local receiver. A steady stream of
// events is raised for both for BENCH_SECONDS (90 s), each in a transaction of its own through the
// service's own emitEvent (as the API's changes raise them); every event of "stuck" queues 25
// deliveries. Measured: the event-to-receipt latency of "fine"'s deliveries (receipt time minus the
// event's `timestamp`), p50 and p99; target p99 under 5 s. Also printed: how many attempts the
// black hole got, and its back-off state. Exits non-zero only when the benchmark itself breaks.
import { createServer as createHttpServer } from 'node:http'
import { createServer as createTcpServer } from 'node:net'
import os from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { createPartner, importDist, isRunning, openServiceDatabase, PG_SERVER, recreateDatabase, startService, stopAll } from './lib.mjs'

const env = process.env
const DB_NAME = 'enrollsync_bench_webhooks'
const DATABASE_URL = `${PG_SERVER}/${DB_NAME}`
const SECONDS = Number(env.BENCH_SECONDS ?? 90)
// Events per second for each account; each of the stuck account's events queues 25 deliveries.
const STUCK_EVENTS_PER_SECOND = Number(env.BENCH_STUCK_EVENTS_PER_SECOND ?? 2)
const FINE_EVENTS_PER_SECOND = Number(env.BENCH_FINE_EVENTS_PER_SECOND ?? 2)
const STUCK_WATCHERS = 25
const DRAIN_SECONDS = 15
const TARGET_P99_MS = 5000

const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a')

/** Two partner accounts with a key each, through the service's own code; the database is migrated first. */
async function seedAccounts() {
  const { handle, services } = await openServiceDatabase(DATABASE_URL)
  try {
    return { stuck: await createPartner(services, 'bench stuck'), fine: await createPartner(services, 'bench fine') }
  } finally {
    await handle.close()
  }
}

async function createWatcher(serviceUrl, apiKey, url) {
  const res = await fetch(`${serviceUrl}/watchers`, {
    method: 'POST',
    headers: { 'service-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ watcher: { url, event_types: ['error.created'] } }),
  })
  return { status: res.status, body: await res.json() }
}

/** Accepts connections and never answers: every attempt waits for the whole timeout. */
async function startBlackHole() {
  const sockets = new Set()
  let connections = 0
  const server = createTcpServer((socket) => {
    connections += 1
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    connections: () => connections,
    close: () => {
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(resolve))
    },
  }
}

/** Answers 200 at once and records, per event id, how long after the event its delivery arrived. */
async function startReceiver() {
  const latencies = new Map() // event id -> ms from the event's timestamp to receipt
  let duplicates = 0
  const server = createHttpServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const receivedAt = Date.now()
      const event = JSON.parse(body)
      if (latencies.has(event.id)) duplicates += 1
      else latencies.set(event.id, receivedAt - Date.parse(event.timestamp))
      res.writeHead(200).end('ok')
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}`, latencies, duplicates: () => duplicates, close: () => new Promise((resolve) => server.close(resolve)) }
}

/** Raises `perSecond` events a second for the account until `until`, each in its own transaction. */
async function raiseEvents(db, emitEvent, accountId, perSecond, until) {
  let raised = 0
  const interval = 1000 / perSecond
  const start = performance.now()
  while (performance.now() < until) {
    const event = { type: 'error.created', accountId, coveragePeriodId: null, groupId: null, data: { error_id: crypto.randomUUID(), status: 'unresolved', assignee: 'partner' } }
    await db.transaction().execute((tx) => emitEvent(tx, event))
    raised += 1
    const next = start + raised * interval
    const wait = next - performance.now()
    if (wait > 0) await delay(wait)
  }
  return raised
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

async function main() {
  console.log(`Webhook fairness: ${STUCK_WATCHERS} watchers of one account on a black hole, one of another on a healthy receiver, ${SECONDS} s of events`)
  await recreateDatabase(DB_NAME)
  const accounts = await seedAccounts()
  const blackHole = await startBlackHole()
  const receiver = await startReceiver()
  const service = await startService('warn', { label: 'webhook-fairness', extraEnv: { DATABASE_URL, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } })
  const { openDatabase } = await importDist('db/database.js')
  const { emitEvent } = await importDist('modules/events/events.js')
  const handle = await openDatabase({ kind: 'postgres', url: DATABASE_URL, poolSize: 4 })
  try {
    for (let n = 0; n < STUCK_WATCHERS; n++) {
      const created = await createWatcher(service.url, accounts.stuck.apiKey, `${blackHole.url}/hook-${n}`)
      if (created.status !== 201) throw new Error(`POST /watchers answered ${created.status}: ${JSON.stringify(created.body)}`)
    }
    const over = await createWatcher(service.url, accounts.stuck.apiKey, `${blackHole.url}/one-too-many`)
    if (over.status !== 422 || over.body.code !== 'watcher_limit_reached') throw new Error(`watcher ${STUCK_WATCHERS + 1} answered ${over.status} ${over.body.code}`)
    const fineWatcher = await createWatcher(service.url, accounts.fine.apiKey, `${receiver.url}/hook`)
    if (fineWatcher.status !== 201) throw new Error(`POST /watchers answered ${fineWatcher.status}`)
    console.log(`  watcher ${STUCK_WATCHERS + 1} of one account: ${over.status} ${over.body.code}`)

    const startedAt = new Date()
    const until = performance.now() + SECONDS * 1000
    const [stuckEvents, fineEvents] = await Promise.all([
      raiseEvents(handle.db, emitEvent, accounts.stuck.accountId, STUCK_EVENTS_PER_SECOND, until),
      raiseEvents(handle.db, emitEvent, accounts.fine.accountId, FINE_EVENTS_PER_SECOND, until),
    ])
    // The last events' deliveries are given time to arrive; one still missing then counts as lost.
    const drainUntil = performance.now() + DRAIN_SECONDS * 1000
    while (receiver.latencies.size < fineEvents && performance.now() < drainUntil) await delay(100)
    if (!isRunning(service.child)) throw new Error(`The service died during the run; see ${service.logFile}`)

    const latencies = [...receiver.latencies.values()].sort((a, b) => a - b)
    const p50 = percentile(latencies, 50)
    const p99 = percentile(latencies, 99)
    const client = new pg.Client({ connectionString: DATABASE_URL })
    await client.connect()
    let stuck
    let health
    try {
      stuck = (
        await client.query(
          `select count(*)::int as deliveries, count(*) filter (where status = 'pending')::int as pending,
                  count(*) filter (where attempts = 0)::int as untried, coalesce(sum(attempts), 0)::int as attempts
           from watcher_deliveries where account_id = $1`,
          [accounts.stuck.accountId],
        )
      ).rows[0]
      health = (await client.query('select consecutive_failures, blocks, blocked_until from destination_health where destination = $1', [blackHole.url])).rows[0]
    } finally {
      await client.end()
    }

    console.log(`\nResults (${startedAt.toISOString()}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}):`)
    console.log(`  healthy account: ${fineEvents} events, ${receiver.latencies.size} delivered, ${receiver.duplicates()} duplicates`)
    console.log(`  event -> receipt: p50 ${fmt(p50)} ms, p99 ${fmt(p99)} ms, max ${fmt(latencies.at(-1))} ms  (target p99 < ${TARGET_P99_MS} ms: ${p99 < TARGET_P99_MS && receiver.latencies.size === fineEvents ? 'PASS' : 'FAIL'})`)
    console.log(`  stuck account: ${stuckEvents} events, ${stuck.deliveries} deliveries, ${stuck.pending} pending, ${stuck.untried} never tried, ${stuck.attempts} attempts recorded; black hole got ${blackHole.connections()} connections`)
    console.log(`  black hole back-off: ${health ? `${health.consecutive_failures} consecutive failures, block ${health.blocks}, blocked until ${health.blocked_until?.toISOString() ?? '-'}` : 'none recorded'}`)
  } finally {
    await handle.close()
    await stopAll()
    await blackHole.close()
    await receiver.close()
  }
}

main().catch(async (error) => {
  console.error(error)
  await stopAll()
  process.exit(1)
})
