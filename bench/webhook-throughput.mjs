// `npm run bench:webhook-throughput` (issue 16, point 3): webhook delivery speed, measured on its own.
//
// PostgreSQL, a database of its own (dropped and created afresh). 10,000 deliveries are seeded
// while no worker runs: one partner account, one watcher (on `error.created`) pointing at a
// receiver in this process, and 10,000 events raised in one transaction through the service's own
// emitEvents (the watcher_deliveries rows and their `webhook.deliver` jobs exactly as a change
// would queue them), then ANALYZE (autovacuum is off on the bench server; it would have done so
// after such an insert). Then a worker process (`dist/main/worker.js`, defaults for every
// WORKER_* and WEBHOOK_* setting except WEBHOOK_ALLOW_PRIVATE_URLS=true) is started, and the run is
// timed from its "worker started" line to the 10,000th distinct webhook-id received. The receiver
// verifies every Standard Webhooks signature (`standardwebhooks`) and counts webhook-ids received
// more than once. Target: all 10,000 under 10 s (at least 1,000 a second), no duplicate, no bad
// signature. Also printed, to say what limits the speed: CPU of the worker, of the PostgreSQL
// backends serving it and of this process (the receiver); how the worker's connections spent the
// run (sampled from pg_stat_activity); the job and HTTP times recorded by the service; and the
// transactions and row writes per delivery. Prints only; figures go into RESULTS.md by hand.
// Exits non-zero only when the benchmark itself breaks.
import { createServer } from 'node:http'
import os from 'node:os'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { Webhook } from 'standardwebhooks'
import { cpuDelta, cpuSnapshot, createPartner, dropDatabase, errorCreatedEvents, importDist, isRunning, processCpuSeconds, openServiceDatabase, PG_SERVER, recreateDatabase, SERVICE_DIST, startWorkerProcess, stopAll, stopChild, systemActor } from './lib.mjs'

const env = process.env
const DB_NAME = 'enrollsync_bench_webhook_throughput'
const DATABASE_URL = `${PG_SERVER}/${DB_NAME}`
const DELIVERIES = Number(env.BENCH_DELIVERIES ?? 10_000)
const TIMEOUT_SECONDS = Number(env.BENCH_TIMEOUT_SECONDS ?? 90)
const TARGET_SECONDS = 10
const TARGET_PER_SECOND = 1000
const SAMPLE_MS = 50

// The worker runs with the service's defaults; these, when set, are passed through to try others.
const PASSED_THROUGH = ['WEBHOOK_CONCURRENCY', 'WORKER_POLL_MS', 'WORKER_CONCURRENCY', 'DATABASE_POOL_SIZE', 'LOG_LEVEL', 'WORKER_HEARTBEAT_MS']
const passedThrough = Object.fromEntries(PASSED_THROUGH.filter((name) => env[name] !== undefined).map((name) => [name, env[name]]))
// BENCH_WORKER_NODE_OPTIONS becomes the worker's NODE_OPTIONS, to see where its time goes (an --import
// that starts node:inspector's profiler: --cpu-prof itself is refused in NODE_OPTIONS).
if (env.BENCH_WORKER_NODE_OPTIONS) passedThrough.NODE_OPTIONS = env.BENCH_WORKER_NODE_OPTIONS

const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a')

/** Answers 204 at once; verifies each signature and notes each webhook-id's receipts. */
async function startReceiver() {
  const seen = new Map() // webhook-id -> times received
  const state = { verifier: undefined, badSignatures: 0, firstAt: NaN, lastNewAt: NaN, arrivals: [] }
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      try {
        state.verifier.verify(body, req.headers)
      } catch {
        state.badSignatures += 1
      }
      const id = String(req.headers['webhook-id'])
      const at = Date.now()
      if (!seen.has(id)) state.lastNewAt = at
      if (Number.isNaN(state.firstAt)) state.firstAt = at
      seen.set(id, (seen.get(id) ?? 0) + 1)
      state.arrivals.push(at)
      res.writeHead(204).end()
    })
  })
  // The sender keeps its connections alive (up to WEBHOOK_CONCURRENCY); a build from before that
  // opened one per delivery, and a deep backlog kept a burst of them from being refused.
  await new Promise((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 1024 }, resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    seen,
    state,
    useSecret: (secret) => (state.verifier = new Webhook(secret)),
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

/** The database, one account, one watcher on the receiver, and DELIVERIES pending deliveries; no worker runs. */
async function seed(receiver) {
  await recreateDatabase(DB_NAME)
  const { createWatchersService } = await importDist('modules/watchers/watchers.service.js')
  const { DEFAULT_WEBHOOK_SETTINGS } = await importDist('modules/watchers/webhook-settings.js')
  const { emitEvents } = await importDist('modules/events/events.js')
  const { handle, services } = await openServiceDatabase(DATABASE_URL)
  try {
    const { accountId } = await createPartner(services, 'bench webhook throughput')
    const watchers = createWatchersService({ db: handle.db, settings: { ...DEFAULT_WEBHOOK_SETTINGS, allowPrivateUrls: true, allowLoopbackUrls: true } })
    const watcher = await watchers.createWatcher(systemActor(accountId), { url: receiver.url, event_types: ['error.created'] })
    receiver.useSecret(watcher.secret)
    const events = errorCreatedEvents(accountId, DELIVERIES)
    const started = performance.now()
    const queued = await handle.db.transaction().execute((tx) => emitEvents(tx, events))
    const seedSeconds = (performance.now() - started) / 1000
    if (queued !== DELIVERIES) throw new Error(`emitEvents queued ${queued} deliveries, expected ${DELIVERIES}`)
    return { seedSeconds }
  } finally {
    await handle.close()
  }
}

function startWorker() {
  return startWorkerProcess({ label: 'webhook-throughput-worker', databaseUrl: DATABASE_URL, extraEnv: passedThrough, dist: SERVICE_DIST })
}

/**
 * CPU seconds of the given PostgreSQL backends. A backend that exited counts 0: its time is lost
 * (counted in the all-PostgreSQL figure until then).
 */
function backendCpu(pids) {
  let total = 0
  for (const pid of pids) total += processCpuSeconds(pid)
  return total
}

/**
 * Samples the bench database's connections (other than the sampler's) every SAMPLE_MS: what each
 * is doing, so the run says whether the worker waits on PostgreSQL, on locks, or on itself.
 */
function startActivitySampler(client, ownPid) {
  const counts = new Map() // "state/wait" -> samples
  const byStatement = new Map() // "wait: statement" -> samples, for active connections
  const backends = new Set()
  let samples = 0
  let active = 0
  let connections = 0
  let stopped = false
  const done = (async () => {
    while (!stopped) {
      const { rows } = await client.query(
        `select pid, state, coalesce(wait_event_type || ':' || wait_event, '') as wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 48) as statement from pg_stat_activity where datname = $1 and pid <> $2 and backend_type = 'client backend'`,
        [DB_NAME, ownPid],
      )
      samples += 1
      connections += rows.length
      for (const row of rows) {
        backends.add(row.pid)
        if (row.state === 'active') active += 1
        const key = row.state === 'active' ? `active${row.wait ? ` (${row.wait})` : ''}` : row.state
        counts.set(key, (counts.get(key) ?? 0) + 1)
        if (row.state === 'active') {
          const what = `${row.wait || 'running'}: ${row.statement}`
          byStatement.set(what, (byStatement.get(what) ?? 0) + 1)
        }
      }
      await delay(SAMPLE_MS)
    }
  })()
  return {
    backends,
    stop: async () => {
      stopped = true
      await done
      return { samples, meanConnections: connections / samples, meanActive: active / samples, states: [...counts].sort((a, b) => b[1] - a[1]).map(([key, n]) => `${key} ${fmt(n / samples, 2)}`),
        statements: [...byStatement].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([key, n]) => `${fmt(n / samples, 2)}  ${key}`),
      }
    },
  }
}

async function databaseCounters(client) {
  const { rows } = await client.query(`select xact_commit::bigint as commits, tup_inserted::bigint as inserted, tup_updated::bigint as updated, tup_fetched::bigint as fetched from pg_stat_database where datname = $1`, [DB_NAME])
  return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]))
}

/** What the service recorded of the run: job and HTTP durations, claims, outcomes. */
async function serviceFigures(client) {
  const jobs = (
    await client.query(`
      select count(*)::int as attempts,
        avg(extract(epoch from finished_at - started_at) * 1000) as mean_ms,
        percentile_cont(0.5) within group (order by extract(epoch from finished_at - started_at) * 1000) as p50_ms,
        percentile_cont(0.99) within group (order by extract(epoch from finished_at - started_at) * 1000) as p99_ms,
        sum(extract(epoch from finished_at - started_at)) as busy_seconds,
        count(distinct date_trunc('milliseconds', started_at))::int as start_instants
      from job_attempts`)
  ).rows[0]
  const http = (await client.query(`select count(*)::int as attempts, avg(duration_ms) as mean_ms, percentile_cont(0.99) within group (order by duration_ms) as p99_ms from watcher_delivery_attempts`)).rows[0]
  const deliveries = (await client.query(`select status, count(*)::int as n from watcher_deliveries group by status order by status`)).rows
  const jobStatuses = (await client.query(`select status, count(*)::int as n from jobs group by status order by status`)).rows
  return { jobs, http, deliveries, jobStatuses }
}

function perSecond(arrivals, from) {
  const buckets = []
  for (const at of arrivals) {
    const second = Math.floor((at - from) / 1000)
    if (second >= 0) buckets[second] = (buckets[second] ?? 0) + 1
  }
  return Array.from(buckets, (n) => n ?? 0)
}

async function main() {
  console.log(`Webhook delivery throughput: ${DELIVERIES} deliveries seeded pending, then a worker process (PostgreSQL, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`)
  const overrides = PASSED_THROUGH.filter((name) => env[name] !== undefined).map((name) => `${name}=${env[name]}`)
  console.log(`  worker settings: ${overrides.length > 0 ? overrides.join(' ') : 'the defaults'} (WEBHOOK_ALLOW_PRIVATE_URLS=true)${env.BENCH_SERVICE_DIST ? `; worker from ${env.BENCH_SERVICE_DIST}` : ''}`)
  const receiver = await startReceiver()
  let worker
  let client
  try {
    const { seedSeconds } = await seed(receiver)
    client = new pg.Client({ connectionString: DATABASE_URL })
    await client.connect()
    await client.query('analyze')
    const ownPid = (await client.query('select pg_backend_pid() as pid')).rows[0].pid
    const pending = (await client.query(`select count(*)::int as n from jobs where status = 'pending' and name = 'webhook.deliver'`)).rows[0].n
    console.log(`  seeded ${pending} pending webhook.deliver jobs in ${fmt(seedSeconds, 1)} s (emitEvents, one transaction); no worker ran`)

    const countersBefore = await databaseCounters(client)
    const sampler = startActivitySampler(client, ownPid)
    worker = await startWorker()
    const cpuBefore = cpuSnapshot(worker.child.pid)
    const deadline = worker.startedAt + TIMEOUT_SECONDS * 1000
    while (receiver.seen.size < DELIVERIES && Date.now() < deadline && isRunning(worker.child)) await delay(20)
    const doneAt = Date.now()
    const cpuAfter = cpuSnapshot(worker.child.pid)
    const backendSeconds = backendCpu(sampler.backends)
    await delay(1000) // late duplicates, if any
    const activity = await sampler.stop()
    if (!isRunning(worker.child)) throw new Error(`the worker died during the run; see ${worker.logFile}`)
    await stopChild(worker.child)
    const countersAfter = await databaseCounters(client)
    const figures = await serviceFigures(client)

    const delivered = receiver.seen.size
    const duplicates = [...receiver.seen.values()].reduce((n, count) => n + count - 1, 0)
    const windowSeconds = (receiver.state.lastNewAt - worker.startedAt) / 1000
    const rate = delivered / windowSeconds
    const cpu = cpuDelta(cpuBefore, cpuAfter)
    const pass = delivered === DELIVERIES && windowSeconds < TARGET_SECONDS && rate >= TARGET_PER_SECOND && duplicates === 0 && receiver.state.badSignatures === 0
    const delta = (key) => countersAfter[key] - countersBefore[key]
    const { jobs, http } = figures

    console.log(`\nResults (${new Date().toISOString()}):`)
    console.log(`  delivered:             ${delivered} of ${DELIVERIES}, ${duplicates} duplicates, ${receiver.state.badSignatures} invalid signatures`)
    console.log(`  time:                  ${fmt(windowSeconds, 2)} s from "worker started" to the last new webhook-id (worker spawn to "started": ${fmt((worker.startedAt - worker.spawnedAt) / 1000, 2)} s; first receipt after ${fmt((receiver.state.firstAt - worker.startedAt) / 1000, 2)} s)`)
    console.log(`  rate:                  ${fmt(rate)} deliveries/s  (target: all in < ${TARGET_SECONDS} s, >= ${TARGET_PER_SECOND}/s, none duplicated or badly signed: ${pass ? 'PASS' : 'FAIL'})`)
    console.log(`  per second:            ${perSecond(receiver.state.arrivals, worker.startedAt).join(' ')}`)
    console.log(`  CPU over the window:   worker ${fmt(cpu.server, 1)} s (${fmt(cpu.server / cpu.wall, 2)} cores, ${fmt((cpu.server * 1e6) / delivered)} µs/delivery); PostgreSQL backends of the bench database ${fmt(backendSeconds, 1)} s (${fmt(backendSeconds / cpu.wall, 2)} cores, ${fmt((backendSeconds * 1e6) / delivered)} µs/delivery), all PostgreSQL processes ${fmt(cpu.postgres, 1)} s; receiver (this process) ${fmt(cpu.loadgen, 1)} s; rest of machine ${fmt(cpu.rest / cpu.wall, 2)} cores`)
    console.log(`  worker connections:    ${fmt(activity.meanConnections, 1)} open, ${fmt(activity.meanActive, 2)} active on average (${activity.samples} samples every ${SAMPLE_MS} ms): ${activity.states.join(', ')}`)
    console.log(`  active connections by wait and statement (mean count):\n${activity.statements.map((line) => `    ${line}`).join('\n')}`)
    console.log(`  job attempts:          ${jobs.attempts}, handler time mean ${fmt(Number(jobs.mean_ms), 1)} ms, p50 ${fmt(Number(jobs.p50_ms), 1)} ms, p99 ${fmt(Number(jobs.p99_ms), 1)} ms; ${fmt(Number(jobs.busy_seconds) / windowSeconds, 1)} handlers running on average; ~${jobs.start_instants} distinct start instants (≈ claims)`)
    console.log(`  HTTP (sender's time):  ${http.attempts} attempts, mean ${fmt(Number(http.mean_ms), 1)} ms, p99 ${fmt(Number(http.p99_ms), 1)} ms`)
    console.log(`  database per delivery: ${fmt(delta('commits') / delivered, 1)} commits, ${fmt(delta('inserted') / delivered, 1)} rows inserted, ${fmt(delta('updated') / delivered, 1)} updated, ${fmt(delta('fetched') / delivered, 1)} fetched`)
    console.log(`  deliveries:            ${figures.deliveries.map((r) => `${r.status} ${r.n}`).join(', ')}; jobs: ${figures.jobStatuses.map((r) => `${r.status} ${r.n}`).join(', ')}`)
  } finally {
    if (worker) await stopChild(worker.child)
    await client?.end()
    await receiver.close()
    // Kept for inspection with BENCH_KEEP_DB=1; the next run drops it anyway.
    if (env.BENCH_KEEP_DB !== '1') await dropDatabase(DB_NAME).catch(() => {})
  }
}

main().catch(async (error) => {
  console.error(error)
  await stopAll()
  process.exit(1)
})
