// `npm run bench:errors` (also the second half of `npm run bench`): issue 4's benchmark.
//
// One run, PostgreSQL mode: a coverage period created through the API of the service under test
// (group, coverage period, plan), then 100,000 errors (mixed statuses, assignees, severities,
// sources and parameters) with 5 comments on every hundredth, inserted with SQL because the
// measured requests are the reads, not the seeding. Then:
//   1. GET /coverage_periods/{id}/errors?status=unresolved&assignee=partner&per_page=100 at 20
//      connections: p99 under 50 ms.
//   2. GET /errors/{id} (with its comments) rotating through 1,000 errors, a tenth of them with
//      comments, interleaved with the bare-pg floor: at least 50% of the floor's throughput.
//   3. A burst of 10,000 POST /coverage_periods/{id}/errors (operator key) while a watcher points
//      at a receiver on 127.0.0.1 that verifies every signature: all 10,000 `error.created`
//      webhooks arrive within 60 s of the burst's start; duplicates (redeliveries) are counted.
// Appends a dated section to bench/RESULTS.md. Exits non-zero only when the bench itself breaks.
import { createServer } from 'node:http'
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { execFileSync } from 'node:child_process'
import autocannon from 'autocannon'
import pg from 'pg'
import { Webhook } from 'standardwebhooks'
import {
  BENCH_DB,
  BENCH_DIR,
  DATABASE_URL,
  ROOT,
  TMP_DIR,
  cpuDelta,
  cpuSnapshot,
  expectOk,
  isRunning,
  machineBusyCores,
  prepareDatabase,
  rssOf,
  startBareServer,
  startService,
  stopAll,
} from './lib.mjs'
import { createCoveragePeriod } from './members.mjs'

const RESULTS_FILE = join(BENCH_DIR, 'RESULTS.md')
const env = process.env
const ERROR_COUNT = Number(env.BENCH_ERROR_COUNT ?? 100_000)
const COMMENTED_EVERY = 100
const COMMENTS_EACH = 5
const BURST = Number(env.BENCH_WEBHOOK_BURST ?? 10_000)
const LIST_CONNECTIONS = 20
const READ_CONNECTIONS = 50
const WARMUP_SECONDS = 3
const WINDOW_SECONDS = 5
const ROUNDS = 2
const DELIVERY_DEADLINE_SECONDS = 60
const TARGETS = { listP99Ms: 50, readVsFloor: 0.5, deliverySeconds: 60 }

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const pct = (x) => `${(x * 100).toFixed(0)}%`
const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a')

// ---------------------------------------------------------------------------------------------
// Seeding.

async function importDist(path) {
  const file = join(ROOT, 'dist', path)
  if (!existsSync(file)) throw new Error(`${file} is missing: run through \`npm run bench:errors\`, which builds first`)
  return import(pathToFileURL(file).href)
}

/**
 * Jobs an earlier run left due (webhook deliveries to a receiver long gone, retrying on their
 * schedule) would be worked by this run's service and counted against its figures.
 */
async function forgetEarlierRunsJobs() {
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  try {
    await client.query(`update watcher_deliveries set status = 'failed', last_error = 'abandoned by a later benchmark run', next_attempt_at = null where status = 'pending'`)
    await client.query(`update watchers set status = 'disabled', disabled_reason = 'benchmark run over' where status = 'active'`)
    await client.query(`delete from jobs where status in ('pending', 'running')`)
  } finally {
    await client.end()
  }
}

/** An operator account with a key and an active user, through the service's own code. */
async function createOperator() {
  const { openDatabase } = await importDist('db/database.js')
  const { createServices } = await importDist('app.js')
  const handle = await openDatabase({ kind: 'postgres', url: DATABASE_URL, poolSize: 2 })
  try {
    const services = createServices(handle.db)
    const system = (accountId) => ({ accountId, accountKind: 'service', apiKeyId: null, apiKeyName: null, requestId: null, channel: 'system' })
    const account = await services.accounts.createAccount(system('00000000-0000-0000-0000-000000000000'), { name: `bench operator ${Date.now()}`, kind: 'service' })
    const key = await services.accounts.createApiKey(system(account.id), account.id, 'bench operator')
    return { accountId: account.id, apiKey: key.key }
  } finally {
    await handle.close()
  }
}

/**
 * ERROR_COUNT errors in the coverage period, statuses 50% unresolved / 30% resolved / 20%
 * returned, assignees alternating, and COMMENTS_EACH comments on every COMMENTED_EVERY-th error.
 * Answers the ids the read scenario rotates through (a tenth of them commented).
 */
async function seedErrors({ accountId, groupId, coveragePeriodId, planId, userId }) {
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  try {
    const parameters = ['birth_date', 'gender', 'marital_status', 'employment_status', 'residential_address', 'plan_id', 'coverage', 'emails']
    await client.query(
      `insert into errors (id, account_id, coverage_period_id, group_id, member_id, plan_id, assignee, severity, status, source,
                           message, discrepancy_parameter, discrepancy_kind, discrepancy_carrier, discrepancy_platform,
                           resolution_message, resolved_at, resolved_by, transaction_ids, created_at, updated_at)
       select gen_random_uuid(), $1, $2, $3, null, case when n % 2 = 0 then $4::uuid end,
              case when n % 3 = 0 then 'service' else 'partner' end,
              (array['failure', 'warning', 'info'])[1 + n % 3],
              case when n % 10 < 5 then 'unresolved' when n % 10 < 8 then 'resolved' else 'returned' end,
              (array['reconciliation', 'api', 'manual', 'error_report'])[1 + n % 4],
              'The carrier and the platform hold different values.', ($5::text[])[1 + n % ${parameters.length}], 'carrier_value_differs',
              to_jsonb('carrier-' || n), to_jsonb('platform-' || n),
              case when n % 10 between 5 and 7 then 'Confirmed with the carrier.' end,
              case when n % 10 between 5 and 7 then now() end,
              case when n % 10 between 5 and 7 then 'bench' end,
              '[]', now() - make_interval(secs => $6::int - n), now()
       from generate_series(1, $6::int) as n`,
      [accountId, coveragePeriodId, groupId, planId, parameters, ERROR_COUNT],
    )
    await client.query(
      `insert into error_comments (id, account_id, error_id, message, created_by_user_id, sent_by, created_at)
       select gen_random_uuid(), $1, e.id, 'Comment ' || c || ' on this error.', $2, case when c % 2 = 0 then 'service' else 'partner' end,
              e.created_at + make_interval(secs => c)
       from (select id, created_at, row_number() over (order by created_at, id) as n from errors where coverage_period_id = $3) e,
            generate_series(1, $4::int) as c
       where e.n % $5 = 0`,
      [accountId, userId, coveragePeriodId, COMMENTS_EACH, COMMENTED_EVERY],
    )
    // What autovacuum does on a production server (it is off on some development ones): without
    // it the visibility map stays empty and every index scan also visits the heap.
    await client.query('vacuum analyze errors')
    await client.query('vacuum analyze error_comments')
    await client.query('vacuum analyze error_counts')
    const commented = await client.query(
      `select distinct error_id as id from error_comments c join errors e on e.id = c.error_id where e.coverage_period_id = $1 limit 100`,
      [coveragePeriodId],
    )
    const plain = await client.query(`select id from errors where coverage_period_id = $1 order by random() limit 900`, [coveragePeriodId])
    const ids = [...commented.rows.map((r) => r.id), ...plain.rows.map((r) => r.id)]
    // Shuffle, so commented errors are spread over the rotation.
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1))
      ;[ids[i], ids[j]] = [ids[j], ids[i]]
    }
    return ids
  } finally {
    await client.end()
  }
}

// ---------------------------------------------------------------------------------------------
// Measurement (the same method as run.mjs: warm-up, then interleaved windows).

function scenario(name, { url, headers = {}, pid, connections, requests }) {
  return { name, url, headers, pid, connections, requests, windows: [], cpu: { server: 0, postgres: 0, loadgen: 0, rest: 0, wall: 0 } }
}

const fire = (s, duration, skipAggregateResult) =>
  autocannon({ url: s.url, headers: s.headers, requests: s.requests?.(), connections: s.connections, duration, skipAggregateResult })

async function interleave(title, order) {
  console.log(`\n${title}: warm-up`)
  for (const s of order) await fire(s, WARMUP_SECONDS, false)
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of round % 2 === 0 ? order : [...order].reverse()) {
      const before = cpuSnapshot(s.pid)
      const raw = await fire(s, WINDOW_SECONDS, true)
      const cpu = cpuDelta(before, cpuSnapshot(s.pid))
      for (const key of Object.keys(s.cpu)) s.cpu[key] += cpu[key]
      s.windows.push(raw)
      console.log(`  ${s.name.padEnd(60)} ${String(Math.round(raw.totalCompletedRequests / Math.max(1, raw.samples))).padStart(6)} req/s  non-2xx ${raw.non2xx}  errors ${raw.errors}  (rest of machine ${(cpu.rest / cpu.wall).toFixed(2)} cores)`)
    }
  }
}

function summarise(s) {
  const merged = autocannon.aggregateResult(s.windows, { url: s.url, connections: s.connections })
  const total = s.windows.reduce((n, w) => n + w.totalCompletedRequests, 0)
  const seconds = s.windows.reduce((n, w) => n + w.samples, 0)
  return {
    name: s.name,
    connections: s.connections,
    rps: total / seconds,
    p50: merged.latency.p50,
    p99: merged.latency.p99,
    mean: merged.latency.average,
    non2xx: merged.non2xx,
    errors: merged.errors,
    serverUs: total > 0 ? (s.cpu.server * 1e6) / total : NaN,
    postgresUs: total > 0 ? (s.cpu.postgres * 1e6) / total : NaN,
    rest: s.cpu.rest / s.cpu.wall,
  }
}

function rotating(paths) {
  let next = 0
  return [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }]
}

// ---------------------------------------------------------------------------------------------
// Webhook burst.

/** A receiver on 127.0.0.1 that verifies each delivery's signature and counts webhook ids. */
async function startReceiver() {
  const seen = new Map() // webhook-id -> times received
  const state = { secret: undefined, badSignatures: 0, lastAt: 0, verifier: undefined }
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      try {
        state.verifier.verify(body, req.headers)
      } catch {
        state.badSignatures++
      }
      const id = req.headers['webhook-id']
      seen.set(id, (seen.get(id) ?? 0) + 1)
      state.lastAt = performance.now()
      res.writeHead(204).end()
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    seen,
    state,
    useSecret: (secret) => (state.verifier = new Webhook(secret)),
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

async function webhookBurst(url, partnerKey, operatorKey, coveragePeriodId) {
  const receiver = await startReceiver()
  try {
    const watcher = await expectOk(
      'POST /watchers',
      `${url}/watchers`,
      {
        method: 'POST',
        headers: { 'service-api-key': partnerKey, 'content-type': 'application/json' },
        body: JSON.stringify({ watcher: { url: receiver.url, event_types: ['error.created'], coverage_period_id: coveragePeriodId, description: 'bench' } }),
      },
      (b) => typeof b?.watcher?.secret === 'string',
    )
    receiver.useSecret(watcher.watcher.secret)
    const body = JSON.stringify({ error: { source: 'manual', discrepancy: { parameter: 'gender', carrier: 'F', platform: 'M' }, severity: 'warning' } })
    console.log(`\nWebhook burst: ${BURST} POST /coverage_periods/{id}/errors, watcher on ${receiver.url} ...`)
    const started = performance.now()
    const created = await autocannon({
      url: `${url}/coverage_periods/${coveragePeriodId}/errors`,
      method: 'POST',
      headers: { 'service-api-key': operatorKey, 'content-type': 'application/json' },
      body,
      connections: 20,
      amount: BURST,
    })
    const createdSeconds = (performance.now() - started) / 1000
    console.log(`  ${created['2xx']} created in ${createdSeconds.toFixed(1)} s (non-2xx ${created.non2xx}, errors ${created.errors}); waiting for deliveries ...`)
    const deadline = started + DELIVERY_DEADLINE_SECONDS * 2 * 1000 // wait past the target, to report how late it was
    while (receiver.seen.size < created['2xx'] && performance.now() < deadline) await delay(100)
    await delay(1_000) // late duplicates, if any
    const duplicates = [...receiver.seen.values()].reduce((n, count) => n + count - 1, 0)
    return {
      requested: BURST,
      created: created['2xx'],
      createNon2xx: created.non2xx + created.errors,
      createdSeconds,
      delivered: receiver.seen.size,
      duplicates,
      badSignatures: receiver.state.badSignatures,
      deliveredSeconds: receiver.seen.size > 0 ? (receiver.state.lastAt - started) / 1000 : NaN,
    }
  } finally {
    await receiver.close()
  }
}

// ---------------------------------------------------------------------------------------------
// Report.

function markdownTable(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n')
}

function report({ started, host, loadBefore, list, read, floor, burst, rssMb, seededSeconds }) {
  const lines = []
  lines.push(`## ${started.toISOString().replace('T', ' ').slice(0, 16)} UTC: error queue (issue 4)`)
  lines.push('')
  lines.push(
    `Machine: ${host.cpus} CPUs (${host.cpuModel}), ${host.memoryGb.toFixed(1)} GB RAM, Node ${host.node}, PostgreSQL ${host.postgres}; ` +
      `service (NODE_ENV=production, LOG_LEVEL=info, WORKER=in-process, WEBHOOK_ALLOW_PRIVATE_URLS=true), PostgreSQL, autocannon and the webhook receiver share the machine over 127.0.0.1. ` +
      `Before the run: ${loadBefore}. Commit ${host.commit}.`,
  )
  lines.push('')
  lines.push(
    `Data: one coverage period with ${ERROR_COUNT.toLocaleString('en')} errors (50% unresolved, 30% resolved, 20% returned; a third assigned to the service), ` +
      `${COMMENTS_EACH} comments on every ${COMMENTED_EVERY}th, seeded with SQL in ${seededSeconds.toFixed(1)} s. Each scenario: ${WARMUP_SECONDS} s warm-up, ${ROUNDS} interleaved windows of ${WINDOW_SECONDS} s.`,
  )
  lines.push('')
  lines.push(
    markdownTable(
      ['Scenario', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'mean ms', 'non-2xx', 'errors', 'server CPU µs/req', 'PostgreSQL CPU µs/req', 'rest of machine, cores'],
      [list, floor, read].map((r) => [r.name, String(r.connections), fmt(r.rps), String(r.p50), String(r.p99), fmt(r.mean, 2), String(r.non2xx), String(r.errors), fmt(r.serverUs), fmt(r.postgresUs), fmt(r.rest, 2)]),
    ),
  )
  const ratio = read.rps / floor.rps
  const verdicts = [
    { target: `Error queue page (status=unresolved, assignee=partner, per_page=100) p99 < ${TARGETS.listP99Ms} ms at ${LIST_CONNECTIONS} connections`, value: `${list.p99} ms`, ok: list.p99 < TARGETS.listP99Ms && list.non2xx + list.errors === 0 },
    { target: `GET /errors/{id} with comments >= ${pct(TARGETS.readVsFloor)} of the bare pg floor measured beside it`, value: pct(ratio), ok: ratio >= TARGETS.readVsFloor && read.non2xx + read.errors === 0 },
    {
      target: `${BURST.toLocaleString('en')} error creations deliver ${BURST.toLocaleString('en')} signed webhooks within ${TARGETS.deliverySeconds} s, none lost`,
      value: `${burst.delivered} delivered in ${fmt(burst.deliveredSeconds, 1)} s (creations took ${fmt(burst.createdSeconds, 1)} s; ${burst.created} created)`,
      ok: burst.created === BURST && burst.delivered === BURST && burst.deliveredSeconds < TARGETS.deliverySeconds,
    },
    { target: 'Duplicated deliveries (beyond retries) and bad signatures', value: `${burst.duplicates} duplicates, ${burst.badSignatures} bad signatures`, ok: burst.duplicates === 0 && burst.badSignatures === 0 },
  ]
  lines.push('')
  lines.push(markdownTable(['Target', 'Measured', 'Verdict'], verdicts.map((v) => [v.target, v.value, v.ok ? 'PASS' : 'FAIL'])))
  lines.push('')
  lines.push(`Service RSS after the run: ${fmt(rssMb.rssMb)} MB (peak ${fmt(rssMb.peakMb)} MB).`)
  return lines.join('\n') + '\n'
}

function machine(postgresVersion) {
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown'
  let commit = 'unknown'
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
    if (execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).trim()) commit += ' (with uncommitted changes)'
  } catch {}
  return { cpus: os.availableParallelism(), cpuModel, memoryGb: os.totalmem() / 1024 ** 3, node: process.version, postgres: postgresVersion, commit }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const started = new Date()
  let busy = await machineBusyCores(1_000)
  for (let waited = 0; busy > 0.25 && waited < 30; waited += 2) {
    console.log(`  the machine is busy elsewhere (${busy.toFixed(2)} cores); waiting ...`)
    busy = await machineBusyCores(2_000)
  }
  const loadBefore = `${busy.toFixed(2)} cores busy (load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`
  const seed = await prepareDatabase()
  await forgetEarlierRunsJobs()
  const operator = await createOperator()
  const service = await startService('info', { label: 'errors', extraEnv: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } })
  const floorServer = await startBareServer('floor-server.mjs', { DATABASE_URL })
  const runTag = Date.now().toString(36)
  const cp = await createCoveragePeriod(service.url, seed.apiKey, `errors-${runTag}`)

  console.log(`Seeding ${ERROR_COUNT} errors ...`)
  const seedStarted = performance.now()
  const readIds = await seedErrors({ accountId: seed.accountId, userId: seed.userId, ...cp })
  const seededSeconds = (performance.now() - seedStarted) / 1000

  const headers = { 'service-api-key': seed.apiKey }
  const listPath = `/coverage_periods/${cp.coveragePeriodId}/errors?status=unresolved&assignee=partner&per_page=100`
  await expectOk('error queue page', `${service.url}${listPath}`, { headers }, (b) => Array.isArray(b?.errors) && b.errors.length === 100 && b.errors.every((e) => e.status === 'unresolved' && e.assignee === 'partner'))
  await expectOk('floor', `${floorServer.url}/users/${seed.userId}`, {}, (b) => b?.user?.id === seed.userId)
  const commentedId = readIds.find(Boolean)
  await expectOk('one error', `${service.url}/errors/${commentedId}`, { headers }, (b) => b?.error?.id === commentedId && Array.isArray(b.error.comments))

  const list = scenario(`GET ${listPath.replace(cp.coveragePeriodId, '{id}')}`, { url: `${service.url}${listPath}`, headers, pid: service.child.pid, connections: LIST_CONNECTIONS })
  await interleave('Error queue page', [list])
  const floor = scenario('floor: bare Fastify + pg, by id', { url: `${floorServer.url}/users/${seed.userId}`, pid: floorServer.child.pid, connections: READ_CONNECTIONS })
  const read = scenario(`GET /errors/{id}, ${readIds.length} ids, 10% with ${COMMENTS_EACH} comments`, {
    url: service.url,
    headers,
    pid: service.child.pid,
    connections: READ_CONNECTIONS,
    requests: () => rotating(readIds.map((id) => `/errors/${id}`)),
  })
  await interleave('Error read', [floor, read])

  const burst = await webhookBurst(service.url, seed.apiKey, operator.apiKey, cp.coveragePeriodId)
  console.log(`  ${burst.delivered} delivered in ${fmt(burst.deliveredSeconds, 1)} s; ${burst.duplicates} duplicates; ${burst.badSignatures} bad signatures`)
  if (!isRunning(service.child)) throw new Error(`The service died during the run; see ${service.logFile}`)
  const rssMb = rssOf(service.child.pid)
  await stopAll()

  const section = report({ started, host: machine(seed.postgresVersion), loadBefore, list: summarise(list), read: summarise(read), floor: summarise(floor), burst, rssMb, seededSeconds })
  console.log('\n' + section)
  if (!existsSync(RESULTS_FILE)) writeFileSync(RESULTS_FILE, '# Benchmark results\n')
  appendFileSync(RESULTS_FILE, '\n' + section)
  console.log(`Appended to ${RESULTS_FILE} (database ${BENCH_DB}).`)
}

try {
  await main()
} catch (error) {
  console.error('\nThe error-queue benchmark could not complete:', error instanceof Error ? error.message : error)
  console.error(`Service logs, if any: ${TMP_DIR}/`)
  process.exitCode = 1
} finally {
  await stopAll()
}
