// `npm run bench`: the foundation benchmark. See bench/README.md for what it measures and why.
//
// One run: seed a dedicated PostgreSQL database, start the processes under test on loopback (a
// bare Fastify hello, a bare Fastify + pg "floor", and the service from dist/ once per log level),
// drive each with autocannon (50 connections; warm-up, then measured windows interleaved across
// the scenarios), then issue 3 on the `info` instance (one 5,000-subscriber request timed with the
// server's RSS sampled, then GET /subscribers/{id} interleaved with the floor again; see
// members.mjs), print a table and append a dated section to bench/RESULTS.md. Exits non-zero
// only when the bench itself breaks; a missed target is reported, not fatal.
import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import {
  BENCH_DB,
  BENCH_DIR,
  DATABASE_URL,
  POOL_SIZE,
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
import { BULK_DEPENDENTS, BULK_SUBSCRIBERS, buildBulkBody, createGroup, pickReadIds, rotatingRequests, sendBulk } from './members.mjs'

const RESULTS_FILE = join(BENCH_DIR, 'RESULTS.md')
const env = process.env
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50)
const WARMUP_SECONDS = Number(env.BENCH_WARMUP_SECONDS ?? 3)
const DURATION_SECONDS = Number(env.BENCH_DURATION_SECONDS ?? 10) // measured, per scenario
const ROUNDS = Number(env.BENCH_ROUNDS ?? 2)
const WINDOW_SECONDS = Math.max(1, Math.round(DURATION_SECONDS / ROUNDS))
// The production default, whose verdicts count, and `warn` beside it, so the cost of the request
// log is on record in every run (see README "Log level").
const LOG_LEVELS = (env.BENCH_LOG_LEVELS ?? 'info,warn').split(',').map((s) => s.trim()).filter(Boolean)
// Other work on the machine (a test run, a build) distorts every figure: wait this long for it to
// calm down before starting, then go ahead and record how busy the machine was.
const WAIT_QUIET_SECONDS = Number(env.BENCH_WAIT_QUIET_SECONDS ?? 30)
// Issue 16 raised the reads' targets: the authenticated reads from 70% to 85% of the floor, the
// subscriber read from 60% to 75%.
const TARGETS = { readVsFloor: 0.85, healthVsHello: 0.8, p99Ms: 25, rssMb: 200 }
// Issue 3: the 5,000-subscriber request and the subscriber read.
const TARGETS3 = { bulkSeconds: 3, bulkRssMb: 400, subscriberVsFloor: 0.75, subscriberP99Ms: 30 }

// ---------------------------------------------------------------------------------------------
// Measurement.

const fire = (s, duration, skipAggregateResult) =>
  autocannon({ url: s.url, headers: s.headers, requests: s.requests?.(), connections: CONNECTIONS, duration, skipAggregateResult })

/**
 * A scenario is measured in ROUNDS windows, interleaved with the other scenarios (the order is
 * reversed every other round), so that load from elsewhere on the machine or a drift over the
 * run falls on every scenario alike instead of on whichever ran at a bad moment.
 */
function scenario(name, { url, headers = {}, pid, requests }) {
  return { name, url, headers, pid, requests, windows: [], cpu: { server: 0, postgres: 0, loadgen: 0, rest: 0, wall: 0 } }
}

async function warmUp(s) {
  process.stdout.write(`  warm-up ${WARMUP_SECONDS} s: ${s.name}\n`)
  await fire(s, WARMUP_SECONDS, false)
}

async function measureWindow(s, seconds) {
  const before = cpuSnapshot(s.pid)
  const raw = await fire(s, seconds, true)
  const cpu = cpuDelta(before, cpuSnapshot(s.pid))
  for (const key of Object.keys(s.cpu)) s.cpu[key] += cpu[key]
  s.windows.push(raw)
  const rps = raw.totalCompletedRequests / Math.max(1, raw.samples)
  console.log(
    `  ${s.name.padEnd(40)} ${String(Math.round(rps)).padStart(6)} req/s  non-2xx ${raw.non2xx}  errors ${raw.errors}  ` +
      `(rest of machine ${(cpu.rest / cpu.wall).toFixed(2)} cores)`,
  )
}

function summarise(s) {
  const merged = autocannon.aggregateResult(s.windows, { url: s.url, connections: CONNECTIONS })
  const total = s.windows.reduce((n, w) => n + w.totalCompletedRequests, 0)
  const seconds = s.windows.reduce((n, w) => n + w.samples, 0)
  const perRequestUs = (cpuSeconds) => (total > 0 ? (cpuSeconds * 1e6) / total : NaN)
  return {
    name: s.name,
    rps: total / seconds, // the mean of autocannon's per-second counts over every window
    p50: merged.latency.p50,
    p99: merged.latency.p99,
    mean: merged.latency.average,
    max: merged.latency.max,
    total,
    non2xx: merged.non2xx,
    errors: merged.errors, // connection errors, timeouts included
    cpuUs: { server: perRequestUs(s.cpu.server), postgres: perRequestUs(s.cpu.postgres), loadgen: perRequestUs(s.cpu.loadgen) },
    cores: { server: s.cpu.server / s.cpu.wall, rest: s.cpu.rest / s.cpu.wall },
  }
}

/** Starts the service at one log level, checks its routes and answers its scenarios. */
async function serviceScenarios(logLevel, seed) {
  const service = await startService(logLevel, { nodeOptions: env.BENCH_SERVICE_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [] })
  const pid = service.child.pid
  const userUrl = `${service.url}/users/${seed.userId}`
  const keyHeaders = { 'service-api-key': seed.apiKey }
  const issued = await expectOk('token', `${service.url}/auth/token`, { method: 'POST', headers: keyHeaders }, (b) => typeof b?.token === 'string')
  const bearerHeaders = { authorization: `Bearer ${issued.token}` }
  await expectOk('healthz', `${service.url}/healthz`, {}, (b) => b?.status === 'ok')
  await expectOk('read (API key)', userUrl, { headers: keyHeaders }, (b) => b?.user?.id === seed.userId)
  await expectOk('read (Bearer)', userUrl, { headers: bearerHeaders }, (b) => b?.user?.id === seed.userId)
  return {
    logLevel,
    service,
    keyHeaders,
    healthz: scenario(`GET /healthz [${logLevel}]`, { url: `${service.url}/healthz`, pid }),
    apiKey: scenario(`GET /users/{id}, Service-Api-Key [${logLevel}]`, { url: userUrl, headers: keyHeaders, pid }),
    bearer: scenario(`GET /users/{id}, Bearer [${logLevel}]`, { url: userUrl, headers: bearerHeaders, pid }),
  }
}

// ---------------------------------------------------------------------------------------------
// Report.

const pct = (x) => `${(x * 100).toFixed(0)}%`
const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a')

function verdicts(pass, baseline) {
  const ours = [pass.healthz, pass.apiKey, pass.bearer]
  const all = [...ours, baseline.floor, baseline.hello]
  const worstP99 = Math.max(...ours.map((r) => r.p99))
  const failures = all.reduce((n, r) => n + r.non2xx + r.errors, 0)
  const ratio = (a, b) => a.rps / b.rps
  return [
    { target: `Read with Service-Api-Key >= ${pct(TARGETS.readVsFloor)} of floor`, value: pct(ratio(pass.apiKey, baseline.floor)), ok: ratio(pass.apiKey, baseline.floor) >= TARGETS.readVsFloor },
    { target: `Read with Bearer token >= ${pct(TARGETS.readVsFloor)} of floor`, value: pct(ratio(pass.bearer, baseline.floor)), ok: ratio(pass.bearer, baseline.floor) >= TARGETS.readVsFloor },
    { target: `/healthz >= ${pct(TARGETS.healthVsHello)} of bare hello`, value: pct(ratio(pass.healthz, baseline.hello)), ok: ratio(pass.healthz, baseline.hello) >= TARGETS.healthVsHello },
    { target: `p99 < ${TARGETS.p99Ms} ms (worst of our three)`, value: `${worstP99} ms`, ok: worstP99 < TARGETS.p99Ms },
    { target: 'Zero errors and non-2xx (these three and both baselines)', value: String(failures), ok: failures === 0 },
    { target: `Service RSS < ${TARGETS.rssMb} MB after the run`, value: `${fmt(pass.memory.rssMb)} MB (peak ${fmt(pass.memory.peakMb)} MB)`, ok: pass.memory.rssMb < TARGETS.rssMb },
  ]
}

/** Issue 3's targets; the bulk request ran on the first (production-default) instance only. */
function verdicts3(pass, baseline, bulk) {
  const rows = []
  if (bulk.logLevel === pass.logLevel) {
    rows.push(
      { target: `${BULK_SUBSCRIBERS} subscribers + ${BULK_DEPENDENTS} dependents in one request < ${TARGETS3.bulkSeconds} s end to end`, value: `${bulk.seconds.toFixed(2)} s`, ok: bulk.seconds < TARGETS3.bulkSeconds },
      { target: `Server RSS < ${TARGETS3.bulkRssMb} MB during it (peak of VmRSS sampled every 50 ms)`, value: `${fmt(bulk.peakRssMb)} MB (${fmt(bulk.rssBeforeMb)} MB before)`, ok: bulk.peakRssMb < TARGETS3.bulkRssMb },
      {
        target: `It answers 201 with ${BULK_SUBSCRIBERS} subscribers, ${BULK_DEPENDENTS} dependents, SSNs masked`,
        value: `${bulk.status}, ${bulk.subscribers}, ${bulk.dependents}, ${bulk.masked ? 'masked' : 'NOT masked'}`,
        ok: bulk.status === 201 && bulk.subscribers === BULK_SUBSCRIBERS && bulk.dependents === BULK_DEPENDENTS && bulk.masked,
      },
    )
  }
  const ratio = pass.subscriber.rps / baseline.floor2.rps
  const failures = pass.subscriber.non2xx + pass.subscriber.errors + baseline.floor2.non2xx + baseline.floor2.errors
  rows.push(
    { target: `GET /subscribers/{id} (with dependents, SSN masked) >= ${pct(TARGETS3.subscriberVsFloor)} of floor (measured beside it)`, value: pct(ratio), ok: ratio >= TARGETS3.subscriberVsFloor },
    { target: `GET /subscribers/{id} p99 < ${TARGETS3.subscriberP99Ms} ms`, value: `${pass.subscriber.p99} ms`, ok: pass.subscriber.p99 < TARGETS3.subscriberP99Ms },
    { target: 'Zero errors and non-2xx (subscriber read and its floor)', value: String(failures), ok: failures === 0 },
  )
  return rows
}

function markdownTable(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n')
}

function scenarioTable(rows) {
  return markdownTable(
    ['Scenario', 'req/s', 'p50 ms', 'p99 ms', 'mean ms', 'non-2xx', 'errors', 'server CPU µs/req (cores)', 'PostgreSQL CPU µs/req', 'autocannon CPU µs/req', 'rest of machine, cores'],
    rows.map((r) => [
      r.name,
      fmt(r.rps),
      String(r.p50),
      String(r.p99),
      fmt(r.mean, 2),
      String(r.non2xx),
      String(r.errors),
      `${fmt(r.cpuUs.server)} (${fmt(r.cores.server, 2)})`,
      fmt(r.cpuUs.postgres),
      fmt(r.cpuUs.loadgen),
      fmt(r.cores.rest, 2),
    ]),
  )
}

function machine(postgresVersion) {
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? 'unknown'
  const git = (...args) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    } catch {
      return ''
    }
  }
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown'
  const dirty = git('status', '--porcelain') ? ' (with uncommitted changes)' : ''
  return { cpus: os.availableParallelism(), cpuModel, memoryGb: os.totalmem() / 1024 ** 3, node: process.version, postgres: postgresVersion, commit: commit + dirty }
}

function report({ started, seed, baseline, passes, bulk, host, loadBefore }) {
  const lines = []
  lines.push(`## ${started.toISOString().replace('T', ' ').slice(0, 16)} UTC`)
  lines.push('')
  lines.push(
    `Machine: ${host.cpus} CPUs (${host.cpuModel}), ${host.memoryGb.toFixed(1)} GB RAM, Node ${host.node}, PostgreSQL ${host.postgres}; ` +
      `service, baselines, PostgreSQL and autocannon share the machine, over 127.0.0.1. Before the run: ${loadBefore}. Commit ${host.commit}.`,
  )
  if (env.BENCH_SERVICE_DIST || env.BENCH_NOTE) {
    lines.push('')
    lines.push(`**Not the plain build:** service from \`${env.BENCH_SERVICE_DIST ?? 'dist'}\`. ${env.BENCH_NOTE ?? ''}`.trim())
  }
  lines.push('')
  lines.push(
    `Configuration: autocannon ${CONNECTIONS} connections; per scenario ${WARMUP_SECONDS} s warm-up, then ${ROUNDS} interleaved windows of ` +
      `${WINDOW_SECONDS} s (${ROUNDS * WINDOW_SECONDS} s measured). Service: NODE_ENV=production, DATABASE_POOL_SIZE=${POOL_SIZE} (floor pool the same), ` +
      `WORKER=in-process, memory rate-limit store with RATE_LIMIT_MAX raised to 1e9, API_KEY_CACHE_SECONDS=5 (default); ` +
      `database \`${BENCH_DB}\` with ${seed.userCount} users. LOG_LEVEL: ${passes.map((p) => `\`${p.logLevel}\``).join(' and ')} ` +
      `(verdicts at \`${passes[0].logLevel}\`, the production default, are the ones that count).`,
  )
  lines.push('')
  lines.push(
    scenarioTable([
      baseline.hello,
      ...passes.map((p) => p.healthz),
      baseline.floor,
      ...passes.flatMap((p) => [p.apiKey, p.bearer]),
      baseline.floor2,
      ...passes.map((p) => p.subscriber),
    ]),
  )
  const verdictTable = (rows) => markdownTable(['Target', 'Measured', 'Verdict'], rows.map((v) => [v.target, v.value, v.ok ? 'PASS' : 'FAIL']))
  for (const pass of passes) {
    lines.push('')
    lines.push(`Foundation targets at LOG_LEVEL=${pass.logLevel}:`)
    lines.push('')
    lines.push(verdictTable(verdicts(pass, baseline)))
  }
  lines.push('')
  lines.push(
    `Issue 3: one \`POST /groups/{id}/subscribers\` at LOG_LEVEL=${bulk.logLevel}, after the foundation windows, over a fresh fetch ` +
      `connection: ${BULK_SUBSCRIBERS} subscribers with ${BULK_DEPENDENTS} dependents (every subscriber and dependent with an SSN), ` +
      `request ${bulk.requestMb.toFixed(1)} MB, answer ${bulk.responseMb.toFixed(1)} MB, ${bulk.status} in ${bulk.seconds.toFixed(2)} s; ` +
      `server RSS ${fmt(bulk.rssBeforeMb)} MB before, peak ${fmt(bulk.peakRssMb)} MB during it, ${fmt(bulk.rssAfterMb)} MB after. ` +
      `Then \`GET /subscribers/{id}\` with \`Service-Api-Key\`, rotating through ${bulk.readIds} of those subscribers (half with 2 dependents, ` +
      `half with 1), interleaved with the floor measured again beside it. The floor reads one row of \`users\` by primary key, ` +
      `not a subscriber with its dependents: it is the same bare-pg baseline as the foundation's.`,
  )
  for (const pass of passes) {
    lines.push('')
    lines.push(`Issue 3 targets at LOG_LEVEL=${pass.logLevel}:`)
    lines.push('')
    lines.push(verdictTable(verdicts3(pass, baseline, bulk)))
  }
  lines.push('')
  lines.push(`Service RSS at the end of the run: ${passes.map((p) => `${fmt(p.memoryEnd.rssMb)} MB at \`${p.logLevel}\` (peak ${fmt(p.memoryEnd.peakMb)} MB)`).join(', ')}.`)
  lines.push('')
  lines.push(
    'CPU columns: CPU time used during the measured windows divided by the requests served; in brackets the cores the server ' +
      'process kept busy (1.00 = one core saturated). PostgreSQL counts all its processes. "Rest of machine" is the CPU used by ' +
      'everything else (other processes, kernel interrupt work) while the scenario ran: well above ~0.1 means the figures were ' +
      'disturbed. Latencies are autocannon\'s, in whole milliseconds.',
  )
  return lines.join('\n') + '\n'
}

// ---------------------------------------------------------------------------------------------

/** Waits (up to WAIT_QUIET_SECONDS) until the machine is nearly idle; answers how busy it was. */
async function waitForQuiet() {
  const deadline = Date.now() + WAIT_QUIET_SECONDS * 1000
  let busy = await machineBusyCores(1_000)
  while (busy > 0.25 && Date.now() < deadline) {
    process.stdout.write(`  the machine is busy elsewhere (${busy.toFixed(2)} cores); waiting for it to calm down ...\n`)
    busy = await machineBusyCores(2_000)
  }
  return busy
}

/** Warm-up, then ROUNDS measured windows, the order reversed every other round (ABBA). */
async function interleave(title, order) {
  console.log(`\n${title}: warm-up`)
  for (const s of order) await warmUp(s)
  for (let round = 0; round < ROUNDS; round++) {
    console.log(`\n${title}: round ${round + 1} of ${ROUNDS}`)
    for (const s of round % 2 === 0 ? order : [...order].reverse()) await measureWindow(s, WINDOW_SECONDS)
  }
}

async function main() {
  const started = new Date()
  console.log(`Enrollsync benchmark: ${CONNECTIONS} connections; ${WARMUP_SECONDS} s warm-up + ${ROUNDS} x ${WINDOW_SECONDS} s per scenario`)
  const busyBefore = await waitForQuiet()
  const loadBefore = `${busyBefore.toFixed(2)} cores busy (load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`
  const seed = await prepareDatabase()
  console.log(`Database ${BENCH_DB} ready (${seed.userCount} users; PostgreSQL ${seed.postgresVersion}).`)

  const hello = await startBareServer('hello-server.mjs', {})
  const floor = await startBareServer('floor-server.mjs', { DATABASE_URL, DATABASE_POOL_SIZE: String(POOL_SIZE) })
  await expectOk('hello', `${hello.url}/`, {}, (b) => b?.hello === 'world')
  await expectOk('floor', `${floor.url}/users/${seed.userId}`, {}, (b) => b?.user?.id === seed.userId)
  const base = {
    hello: scenario('bare Fastify hello', { url: `${hello.url}/`, pid: hello.child.pid }),
    floor: scenario('floor: bare Fastify + pg, by id', { url: `${floor.url}/users/${seed.userId}`, pid: floor.child.pid }),
  }
  const passes = []
  for (const level of LOG_LEVELS) passes.push(await serviceScenarios(level, seed))

  // Part 1, the foundation: each comparison's two sides next to each other, so they see the same machine.
  await interleave('Foundation', [base.hello, ...passes.map((p) => p.healthz), base.floor, ...passes.flatMap((p) => [p.apiKey, p.bearer])])
  const alive = (p) => {
    if (!isRunning(p.service.child)) throw new Error(`The service (${p.logLevel}) died during the run; see ${p.service.logFile}`)
  }
  // The foundation's RSS verdict: read now, before the bulk request grows the heap of the `info` instance.
  const memory = passes.map((p) => (alive(p), rssOf(p.service.child.pid)))

  // Part 2, issue 3: the 5,000-subscriber request on the `info` instance (the production default),
  // after the foundation windows so its heap growth and database writes do not disturb them.
  const bulkPass = passes[0]
  const runTag = `${Date.now().toString(36)}`
  const { groupId, locationId } = await createGroup(bulkPass.service.url, seed.apiKey, runTag)
  const body = buildBulkBody(locationId, runTag)
  console.log(`\nBulk request: POST /groups/{id}/subscribers with ${BULK_SUBSCRIBERS} subscribers and ${BULK_DEPENDENTS} dependents [${bulkPass.logLevel}] ...`)
  const bulk = await sendBulk(bulkPass.service.url, seed.apiKey, groupId, body, bulkPass.service.child.pid)
  console.log(
    `  ${bulk.status} in ${bulk.seconds.toFixed(2)} s; request ${bulk.requestMb.toFixed(1)} MB, answer ${bulk.responseMb.toFixed(1)} MB; ` +
      `${bulk.subscribers} subscribers and ${bulk.dependents} dependents answered; server RSS ${fmt(bulk.rssBeforeMb)} MB before, peak ${fmt(bulk.peakRssMb)} MB`,
  )
  if (bulk.status !== 201 || bulk.subscribers !== BULK_SUBSCRIBERS) {
    throw new Error(`The bulk request answered ${bulk.status} with ${bulk.subscribers} subscribers: ${bulk.errorText}`)
  }
  alive(bulkPass)

  // Part 3, issue 3: GET /subscribers/{id} rotating through READ_IDS of the subscribers just
  // created, interleaved with the floor measured again beside it (the ratio's two sides see the same machine).
  const readIds = pickReadIds(bulk.ids)
  for (const p of passes) {
    await expectOk('read subscriber', `${p.service.url}/subscribers/${readIds[1]}`, { headers: p.keyHeaders }, (b) =>
      b?.subscriber?.id === readIds[1] && b.subscriber.dependents.length > 0 && /^\*\*\*-\*\*-\d{4}$/.test(b.subscriber.social_security_number),
    )
    p.subscriber = scenario(`GET /subscribers/{id}, ${readIds.length} ids [${p.logLevel}]`, {
      url: p.service.url,
      headers: p.keyHeaders,
      pid: p.service.child.pid,
      requests: () => rotatingRequests(readIds),
    })
  }
  const floor2 = scenario('floor: bare Fastify + pg, by id (beside the subscriber read)', { url: base.floor.url, pid: base.floor.pid })
  await interleave('Subscriber read', [floor2, ...passes.map((p) => p.subscriber)])

  const baseline = { hello: summarise(base.hello), floor: summarise(base.floor), floor2: summarise(floor2) }
  const results = passes.map((p, i) => {
    alive(p)
    return {
      logLevel: p.logLevel,
      healthz: summarise(p.healthz),
      apiKey: summarise(p.apiKey),
      bearer: summarise(p.bearer),
      subscriber: summarise(p.subscriber),
      memory: memory[i],
      memoryEnd: rssOf(p.service.child.pid),
    }
  })
  await stopAll()

  const section = report({
    started,
    seed,
    baseline,
    passes: results,
    bulk: { ...bulk, logLevel: bulkPass.logLevel, readIds: readIds.length },
    host: machine(seed.postgresVersion),
    loadBefore,
  })
  console.log('\n' + section)
  if (!existsSync(RESULTS_FILE)) {
    writeFileSync(RESULTS_FILE, '# Benchmark results\n\n`npm run bench` appends one section per run (newest last). See README.md for the method.\n')
  }
  appendFileSync(RESULTS_FILE, '\n' + section)
  if (!env.BENCH_KEEP_LOGS) for (const p of passes) rmSync(p.service.logFile, { force: true })
  console.log(`Appended to ${RESULTS_FILE}.`)
}

try {
  await main()
} catch (error) {
  console.error('\nThe benchmark could not complete:', error instanceof Error ? error.message : error)
  console.error(`Service logs, if any: ${TMP_DIR}/`)
  process.exitCode = 1
} finally {
  await stopAll()
}
