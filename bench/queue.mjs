// `npm run bench:queue`: issue 17's benchmark, the operators' daily queue, PostgreSQL mode.
//
// One coverage period created through the API (group, coverage period, plan), 20,000 members
// with generated names and 100,000 errors about them (mixed statuses, severities, parameters,
// sources; every tenth assigned to a person), seeded with SQL because the measured requests are
// the reads. Then, each at 20 connections (3 s warm-up, 2 windows of 5 s):
//   1. sort pages: GET /coverage_periods/{id}/errors?sort=…&per_page=100, rotating through
//      -age, severity, -parameter, status and -age with status=unresolved (the console default):
//      p99 under 100 ms;
//   2. search pages: …?q=<a last name or a member's external identifier>&sort=-age&per_page=100,
//      rotating: p99 under 100 ms;
//   3. counts: GET /coverage_periods/{id}/errors/counts, plain and with status=unresolved and a
//      search, rotating: p99 under 50 ms;
//   4. the CSV export of all 100,000 errors (Accept: text/csv), alone, on a service started afresh
//      for it (and, recorded only, right after the load): under 5 s, server RSS
//      growth under 50 MB, every row present.
// The console's first page (the fourth target) is bench/console.mjs (`npm run bench:console`).
// Counts are also measured on one connection, since their target names no concurrency.
// Its own database, enrollsync_bench_queue, dropped and created afresh at every start.
// Appends a dated section to bench/RESULTS.md. Exits non-zero only when the bench itself breaks.
import { execFileSync } from 'node:child_process'
import { appendFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import pg from 'pg'
import { rssSampler } from './carrier-changes.mjs'
import {
  BENCH_DIR,
  ROOT,
  cpuDelta,
  cpuSnapshot,
  expectOk,
  isRunning,
  machineBusyCores,
  machineDescription,
  prepareDatabase,
  startService,
  stopAll,
} from './lib.mjs'
import { createCoveragePeriod } from './members.mjs'

const RESULTS_FILE = join(BENCH_DIR, 'RESULTS.md')
const env = process.env
// Its own database, dropped and created at every start (BENCH_QUEUE_DB names another).
const QUEUE_DB = env.BENCH_QUEUE_DB ?? 'enrollsync_bench_queue'
const ERROR_COUNT = Number(env.BENCH_ERROR_COUNT ?? 100_000)
const MEMBER_COUNT = Number(env.BENCH_MEMBER_COUNT ?? 20_000)
const CONNECTIONS = 20
const WARMUP_SECONDS = 3
const WINDOW_SECONDS = 5
const ROUNDS = 2
const TARGETS = { pageP99Ms: 100, countsP99Ms: 50, csvSeconds: 5, csvRssMb: 50 }
const FIRST_NAMES = ['Maria', 'James', 'Aiyana', 'Chen', 'Fatima', 'Olivia', 'Kwame', 'Sofia', 'Liam', 'Noor', 'Mateo', 'Hana', 'Ezra', 'Zoë', 'Ravi', 'Ingrid']
const LAST_NAMES = ['Lopez', 'Okafor', 'Nguyen', 'Schmidt', 'Haddad', 'Kowalski', 'Tanaka', 'Brennan', 'Silva', 'Petrov', 'Mensah', 'Larsen', 'Dubois', 'Rossi', 'Yilmaz', 'Fischer', 'Moreau', 'Novak', 'Ibrahim', 'Andersson']

const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a')

/** The members and errors; answers a few members' external identifiers to search for. */
async function seed(databaseUrl, { accountId, groupId, coveragePeriodId, planId, userId }, runTag) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query(
      `insert into members (id, account_id, group_id, subscriber_id, kind, external_identifier, first_name, last_name, birth_date, gender, emails, phone_numbers)
       select gen_random_uuid(), $1, $2, null, 'subscriber', 'emp-' || $3 || '-' || n, ($4::text[])[1 + n % array_length($4::text[], 1)],
              ($5::text[])[1 + (n / 7) % array_length($5::text[], 1)] || case when n % 3 = 0 then '-' || (n % 97) else '' end,
              date '1960-01-01' + (n % 15000), 'female', '[]', '[]'
         from generate_series(1, $6::int) as n`,
      [accountId, groupId, runTag, FIRST_NAMES, LAST_NAMES, MEMBER_COUNT],
    )
    const parameters = ['birth_date', 'gender', 'marital_status', 'employment_status', 'residential_address', 'plan_id', 'coverage', 'emails']
    await client.query(
      `with m as (select id, row_number() over (order by id) as k from members where group_id = $3)
       insert into errors (id, account_id, coverage_period_id, group_id, member_id, plan_id, assignee, severity, status, source,
                           message, discrepancy_parameter, discrepancy_kind, discrepancy_carrier, discrepancy_platform,
                           resolution_message, resolved_at, resolved_by, transaction_ids, assigned_user_id, created_at, updated_at, aged_from)
       select gen_random_uuid(), $1, $2, $3, m.id, case when n % 2 = 0 then $4::uuid end,
              case when n % 3 = 0 then 'service' else 'partner' end,
              (array['failure', 'warning', 'info'])[1 + n % 3],
              case when n % 10 < 5 then 'unresolved' when n % 10 < 8 then 'resolved' else 'returned' end,
              (array['reconciliation', 'api', 'manual', 'error_report'])[1 + n % 4],
              'The carrier and the platform hold different values.', ($5::text[])[1 + n % ${parameters.length}], 'carrier_value_differs',
              to_jsonb('carrier-' || n), to_jsonb('platform-' || n),
              case when n % 10 between 5 and 7 then 'Confirmed with the carrier.' end,
              case when n % 10 between 5 and 7 then now() end,
              case when n % 10 between 5 and 7 then 'bench' end,
              '[]', case when n % 10 = 1 and n % 3 <> 0 then $7::uuid end,
              now() - make_interval(secs => $6::int - n), now(), now() - make_interval(secs => ($6::int - n) + (n * 7919) % 86400)
         from generate_series(1, $6::int) as n join m on m.k = 1 + (n * 31) % $8::int`,
      [accountId, coveragePeriodId, groupId, planId, parameters, ERROR_COUNT, userId, MEMBER_COUNT],
    )
    for (const table of ['members', 'groups', 'errors', 'error_counts']) await client.query(`vacuum analyze ${table}`)
    const sample = await client.query(`select external_identifier from members where group_id = $1 order by random() limit 20`, [groupId])
    return sample.rows.map((row) => row.external_identifier)
  } finally {
    await client.end()
  }
}

function rotating(paths) {
  let next = 0
  return [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }]
}

async function measure(name, serviceUrl, headers, pid, paths, connections = CONNECTIONS) {
  const fire = (duration) => autocannon({ url: serviceUrl, headers, requests: rotating(paths), connections, duration, skipAggregateResult: true })
  console.log(`\n${name}: warm-up`)
  await fire(WARMUP_SECONDS)
  const windows = []
  const cpu = { server: 0, postgres: 0, loadgen: 0, rest: 0, wall: 0 }
  for (let round = 0; round < ROUNDS; round++) {
    const before = cpuSnapshot(pid)
    const raw = await fire(WINDOW_SECONDS)
    const delta = cpuDelta(before, cpuSnapshot(pid))
    for (const key of Object.keys(cpu)) cpu[key] += delta[key]
    windows.push(raw)
    console.log(`  ${String(Math.round(raw.totalCompletedRequests / Math.max(1, raw.samples))).padStart(6)} req/s  non-2xx ${raw.non2xx}  errors ${raw.errors}`)
  }
  const merged = autocannon.aggregateResult(windows, { url: serviceUrl, connections })
  const total = windows.reduce((n, w) => n + w.totalCompletedRequests, 0)
  const seconds = windows.reduce((n, w) => n + w.samples, 0)
  return {
    name,
    rps: total / seconds,
    p50: merged.latency.p50,
    p99: merged.latency.p99,
    non2xx: merged.non2xx,
    errors: merged.errors,
    serverUs: (cpu.server * 1e6) / total,
    postgresUs: (cpu.postgres * 1e6) / total,
  }
}

/** The whole coverage period as CSV, read as a client would, with the server's RSS sampled. */
async function exportCsv(serviceUrl, headers, pid, coveragePeriodId) {
  const rss = rssSampler(pid)
  const started = performance.now()
  const response = await fetch(`${serviceUrl}/coverage_periods/${coveragePeriodId}/errors`, { headers: { ...headers, accept: 'text/csv' } })
  if (response.status !== 200) throw new Error(`CSV export answered ${response.status}: ${(await response.text()).slice(0, 300)}`)
  let lines = 0
  let bytes = 0
  for await (const chunk of response.body) {
    bytes += chunk.length
    for (const byte of chunk) if (byte === 0x0a) lines++
  }
  const seconds = (performance.now() - started) / 1000
  return { seconds, rows: lines - 1, megabytes: bytes / 1024 ** 2, ...rss.stop() }
}

function machineLine(postgres, loadBefore) {
  const m = machineDescription(postgres, loadBefore)
  let commit = 'unknown'
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
    if (execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).trim()) commit += ' (with uncommitted changes)'
  } catch {}
  return (
    `Machine: ${m.cpus} CPUs (${m.cpuModel}), ${(m.memoryMb / 1024).toFixed(1)} GB RAM, Node ${m.node}, PostgreSQL ${m.postgres}; service (NODE_ENV=production, ` +
    `LOG_LEVEL=info), PostgreSQL and autocannon share the machine over 127.0.0.1. Before the run: ${m.loadBefore}. Commit ${commit}.`
  )
}

function markdownTable(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n')
}

async function main() {
  const started = new Date()
  const loadBefore = `${(await machineBusyCores(1_000)).toFixed(2)} cores busy (load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`
  // Created afresh each run: a search reads the members of every account, so members left by
  // earlier runs would make each run's searches dearer than the last.
  const database = await prepareDatabase({ name: QUEUE_DB, fresh: true })
  const service = await startService('info', { label: 'queue', extraEnv: { DATABASE_URL: database.databaseUrl } })
  const runTag = Date.now().toString(36)
  const cp = await createCoveragePeriod(service.url, database.apiKey, `queue-${runTag}`)
  console.log(`Seeding ${MEMBER_COUNT} members and ${ERROR_COUNT} errors ...`)
  const seedStarted = performance.now()
  const externalIds = await seed(database.databaseUrl, { accountId: database.accountId, userId: database.userId, ...cp }, runTag)
  const seededSeconds = (performance.now() - seedStarted) / 1000

  const headers = { 'service-api-key': database.apiKey }
  const base = `/coverage_periods/${cp.coveragePeriodId}/errors`
  const sortPaths = ['sort=-age', 'sort=severity', 'sort=-parameter', 'sort=status', 'status=unresolved&sort=-age'].map((q) => `${base}?${q}&per_page=100`)
  const searchPaths = [...LAST_NAMES.map((name) => name.toLowerCase()), ...externalIds].map((q) => `${base}?q=${encodeURIComponent(q)}&sort=-age&per_page=100`)
  const countPaths = [`${base}/counts`, `${base}/counts?status=unresolved`, `${base}/counts?q=${LAST_NAMES[3]}`, `${base}/counts?q=${encodeURIComponent(externalIds[0])}`]
  await expectOk('sort page', `${service.url}${sortPaths[0]}`, { headers }, (b) => b?.errors?.length === 100 && b.errors[0].member_name && b.errors[0].age_seconds >= b.errors[99].age_seconds)
  await expectOk('search page', `${service.url}${searchPaths[0]}`, { headers }, (b) => b?.errors?.length > 0 && b.errors.every((e) => e.member_name.toLowerCase().includes(LAST_NAMES[0].toLowerCase())))
  await expectOk('counts', `${service.url}${countPaths[0]}`, { headers }, (b) => b?.counts?.total === ERROR_COUNT)

  const sort = await measure('Sort pages (5 orders, per_page=100)', service.url, headers, service.child.pid, sortPaths)
  const search = await measure(`Search pages (${LAST_NAMES.length} last names, ${externalIds.length} member ids; sort=-age, per_page=100)`, service.url, headers, service.child.pid, searchPaths)
  const counts = await measure('Counts (plain, status=unresolved, two searches)', service.url, headers, service.child.pid, countPaths)
  // The counts target names no concurrency: one operator's call, measured alone too.
  const countsAlone = await measure('Counts, one connection', service.url, headers, service.child.pid, countPaths, 1)
  const report = (label, r) => console.log(`  ${label}: ${r.rows} rows, ${fmt(r.megabytes, 1)} MB in ${fmt(r.seconds, 2)} s; RSS ${r.rssBeforeMb} → peak ${r.rssPeakMb} MB (+${r.rssGrowthMb} MB)`)
  console.log('\nCSV export of every error ...')
  const afterLoad = await exportCsv(service.url, headers, service.child.pid, cp.coveragePeriodId)
  report('after the load above', afterLoad)
  if (!isRunning(service.child)) throw new Error(`The service died during the run; see ${service.logFile}`)
  await stopAll()
  // Again on a service started afresh for it, as bench:scale measures each step, and this one is
  // the verdict's: after the load above, the RSS the export starts from depends on when V8 last
  // gave memory back (147 to 233 MB in four runs of 2026-11-27, each peaking near 258 MB), and the
  // growth measured with it (+3 to +82 MB for the same code).
  const fresh = await startService('info', { label: 'queue-export', extraEnv: { DATABASE_URL: database.databaseUrl } })
  await expectOk('counts', `${fresh.url}${countPaths[0]}`, { headers }, (b) => b?.counts?.total === ERROR_COUNT)
  const csv = await exportCsv(fresh.url, headers, fresh.child.pid, cp.coveragePeriodId)
  report('on a service started afresh', csv)
  if (!isRunning(fresh.child)) throw new Error(`The service died during the export; see ${fresh.logFile}`)
  await stopAll()

  const page = (r) => [r.name, fmt(r.rps), String(r.p50), String(r.p99), String(r.non2xx + r.errors), fmt(r.serverUs), fmt(r.postgresUs)]
  const verdict = (ok) => (ok ? 'PASS' : '**FAIL**')
  const lines = [
    `## ${started.toISOString().replace('T', ' ').slice(0, 16)} UTC: the operators' queue (issue 17)`,
    '',
    machineLine(database.postgresVersion, loadBefore),
    '',
    `Data: one coverage period with ${ERROR_COUNT.toLocaleString('en')} errors about ${MEMBER_COUNT.toLocaleString('en')} members (50% unresolved, 30% resolved, 20% returned; a tenth assigned to a person), seeded with SQL in ${seededSeconds.toFixed(1)} s. ${CONNECTIONS} connections; ${WARMUP_SECONDS} s warm-up, ${ROUNDS} windows of ${WINDOW_SECONDS} s.`,
    '',
    markdownTable(['Scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx + errors', 'server CPU µs/req', 'PostgreSQL CPU µs/req'], [sort, search, counts, countsAlone].map(page)),
    '',
    markdownTable(
      ['Target', 'Measured', 'Verdict'],
      [
        [`Sort page p99 < ${TARGETS.pageP99Ms} ms at ${CONNECTIONS} connections`, `${sort.p99} ms`, verdict(sort.p99 < TARGETS.pageP99Ms && sort.non2xx + sort.errors === 0)],
        [`Search page p99 < ${TARGETS.pageP99Ms} ms at ${CONNECTIONS} connections`, `${search.p99} ms`, verdict(search.p99 < TARGETS.pageP99Ms && search.non2xx + search.errors === 0)],
        [`Counts < ${TARGETS.countsP99Ms} ms (p99, one connection)`, `${countsAlone.p99} ms (p50 ${countsAlone.p50} ms)`, verdict(countsAlone.p99 < TARGETS.countsP99Ms && countsAlone.non2xx + countsAlone.errors === 0)],
        [`... and at ${CONNECTIONS} connections (p99)`, `${counts.p99} ms (p50 ${counts.p50} ms)`, verdict(counts.p99 < TARGETS.countsP99Ms && counts.non2xx + counts.errors === 0)],
        [`CSV export of ${ERROR_COUNT.toLocaleString('en')} errors < ${TARGETS.csvSeconds} s, every row`, `${fmt(csv.seconds, 2)} s, ${csv.rows.toLocaleString('en')} rows, ${fmt(csv.megabytes, 1)} MB`, verdict(csv.seconds < TARGETS.csvSeconds && csv.rows === ERROR_COUNT)],
        [`... server RSS growth < ${TARGETS.csvRssMb} MB (a service started afresh for it)`, `+${csv.rssGrowthMb} MB (${csv.rssBeforeMb} → ${csv.rssPeakMb} MB)`, verdict(csv.rssGrowthMb < TARGETS.csvRssMb)],
        [`... the same export right after the load above (recorded, no verdict)`, `${fmt(afterLoad.seconds, 2)} s, +${afterLoad.rssGrowthMb} MB (${afterLoad.rssBeforeMb} → ${afterLoad.rssPeakMb} MB)`, 'recorded'],
      ],
    ),
  ]
  const section = lines.join('\n') + '\n'
  console.log('\n' + section)
  appendFileSync(RESULTS_FILE, '\n' + section)
  console.log(`Appended to ${RESULTS_FILE}.`)
}

try {
  await main()
} catch (error) {
  console.error('\nThe queue benchmark could not complete:', error instanceof Error ? error.message : error)
  process.exitCode = 1
} finally {
  await stopAll()
}
