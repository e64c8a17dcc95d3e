// `node bench/read-cpu.mjs`: the reads of `npm run bench` measured by the CPU they cost rather than
// by req/s, for a machine too busy for req/s to mean anything (issue 16, point 4).
//
// For each of the floor, GET /users/{id} (Service-Api-Key and Bearer) and GET /subscribers/{id}
// (rotating through 1,000 of 5,000 subscribers created first, as run.mjs does), autocannon drives
// it for a window and the CPU time of exactly the processes serving it is read from /proc: the
// server process, the PostgreSQL backends connected to BENCH_DB (use a database of your own, so
// no one else's backends are counted) and this process (autocannon). On a machine where the two
// sides saturate the same cores, req/s goes as 1 / (CPU per request), so the ratio of the floor's
// total to a read's total is what `npm run bench` would find on an idle machine, whatever else
// runs meanwhile. Windows alternate between the scenarios (ABBA), BENCH_ROUNDS times.
//
//   BENCH_DB=enrollsync_bench_mine node bench/read-cpu.mjs            # dist/
//   BENCH_SERVICE_DIST=/path/to/other/dist BENCH_DB=... node bench/read-cpu.mjs
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import pg from 'pg'
import { BENCH_DB, DATABASE_URL, POOL_SIZE, SERVICE_DIST, expectOk, prepareDatabase, startBareServer, startService, stopAll } from './lib.mjs'
import { buildBulkBody, createGroup, pickReadIds, rotatingRequests, sendBulk } from './members.mjs'

const env = process.env
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50)
const WARMUP_SECONDS = Number(env.BENCH_WARMUP_SECONDS ?? 3)
const WINDOW_SECONDS = Number(env.BENCH_WINDOW_SECONDS ?? 6)
const ROUNDS = Number(env.BENCH_ROUNDS ?? 2)
const CLK_TCK = 100

/** utime + stime of a process, or undefined when it has gone. */
const cpuSecondsOfPid = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
  } catch {
    return undefined
  }
}

/**
 * The CPU the PostgreSQL backends spent between two snapshots. Pools open and close connections
 * between windows (idle timeouts): a backend that has gone by the end was idle through the
 * window (a busy one stays), and one that appeared during it spent all its CPU in it.
 */
function postgresDelta(before, after) {
  let seconds = 0
  for (const [pid, t] of after) if (t !== undefined) seconds += t - (before.get(pid) ?? 0)
  return seconds
}

/** The PostgreSQL backends connected to BENCH_DB (the floor's and the service's pools). */
async function backendPids(admin) {
  const { rows } = await admin.query('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [BENCH_DB])
  return rows.map((r) => r.pid)
}

function snapshot(serverPid, pids) {
  const self = process.cpuUsage()
  return {
    server: cpuSecondsOfPid(serverPid) ?? 0,
    postgres: new Map(pids.map((pid) => [pid, cpuSecondsOfPid(pid)])),
    loadgen: (self.user + self.system) / 1e6,
  }
}

function scenario(name, target) {
  return { name, ...target, requests: 0, seconds: 0, cpu: { server: 0, postgres: 0, loadgen: 0 } }
}

async function measure(s, admin, seconds) {
  const before = snapshot(s.pid, await backendPids(admin))
  const result = await autocannon({ url: s.url, headers: s.headers, requests: s.requestsOf?.(), connections: CONNECTIONS, duration: seconds })
  const after = snapshot(s.pid, await backendPids(admin))
  if (result.non2xx + result.errors > 0) throw new Error(`${s.name}: ${result.non2xx} non-2xx and ${result.errors} errors`)
  s.requests += result.requests.total
  s.seconds += seconds
  s.cpu.server += after.server - before.server
  s.cpu.postgres += postgresDelta(before.postgres, after.postgres)
  s.cpu.loadgen += after.loadgen - before.loadgen
  console.log(`  ${s.name.padEnd(34)} ${String(Math.round(result.requests.total / seconds)).padStart(6)} req/s`)
}

const perRequest = (s) => {
  const us = (t) => (t * 1e6) / s.requests
  const server = us(s.cpu.server)
  const postgres = us(s.cpu.postgres)
  const loadgen = us(s.cpu.loadgen)
  return { server, postgres, loadgen, total: server + postgres + loadgen, rps: s.requests / s.seconds }
}

async function main() {
  const seed = await prepareDatabase()
  const admin = new pg.Client({ connectionString: DATABASE_URL })
  await admin.connect()
  try {
    const floor = await startBareServer('floor-server.mjs', { DATABASE_URL, DATABASE_POOL_SIZE: String(POOL_SIZE) })
    const service = await startService('info', { label: 'read-cpu' })
    const keyHeaders = { 'service-api-key': seed.apiKey }
    const { token } = await expectOk('token', `${service.url}/auth/token`, { method: 'POST', headers: keyHeaders })
    const runTag = Date.now().toString(36)
    const { groupId, locationId } = await createGroup(service.url, seed.apiKey, runTag)
    // The write side of the stored document: what the 5,000-subscriber request costs the service and PostgreSQL.
    const beforeBulk = snapshot(service.child.pid, await backendPids(admin))
    const bulk = await sendBulk(service.url, seed.apiKey, groupId, buildBulkBody(locationId, runTag), service.child.pid)
    const afterBulk = snapshot(service.child.pid, await backendPids(admin))
    if (bulk.status !== 201) throw new Error(`The bulk request answered ${bulk.status}: ${bulk.errorText}`)
    const bulkPostgres = postgresDelta(beforeBulk.postgres, afterBulk.postgres)
    const bulkLine =
      `bulk: ${bulk.seconds.toFixed(2)} s for 5,000 subscribers + 7,500 dependents; CPU: service ${(afterBulk.server - beforeBulk.server).toFixed(2)} s, ` +
      `PostgreSQL ${bulkPostgres.toFixed(2)} s (service ${SERVICE_DIST}, database ${BENCH_DB})`
    console.log(bulkLine)
    const ids = pickReadIds(bulk.ids)
    const userUrl = `${service.url}/users/${seed.userId}`
    const order = [
      scenario('floor', { url: `${floor.url}/users/${seed.userId}`, pid: floor.child.pid }),
      scenario('GET /users/{id}, Service-Api-Key', { url: userUrl, headers: keyHeaders, pid: service.child.pid }),
      scenario('GET /users/{id}, Bearer', { url: userUrl, headers: { authorization: `Bearer ${token}` }, pid: service.child.pid }),
      scenario('GET /subscribers/{id}', { url: service.url, headers: keyHeaders, pid: service.child.pid, requestsOf: () => rotatingRequests(ids) }),
    ]
    for (const s of order) await autocannon({ url: s.url, headers: s.headers, requests: s.requestsOf?.(), connections: CONNECTIONS, duration: WARMUP_SECONDS })
    for (let round = 0; round < ROUNDS; round++) {
      console.log(`round ${round + 1} of ${ROUNDS}`)
      for (const s of round % 2 === 0 ? order : [...order].reverse()) await measure(s, admin, WINDOW_SECONDS)
    }
    const floorCost = perRequest(order[0])
    console.log('\n| Scenario | req/s here | server µs/req | PostgreSQL µs/req | autocannon µs/req | total µs/req | floor total / this total |')
    console.log('|---|---:|---:|---:|---:|---:|---:|')
    for (const s of order) {
      const c = perRequest(s)
      const f = (x) => x.toFixed(0)
      console.log(`| ${s.name} | ${f(c.rps)} | ${f(c.server)} | ${f(c.postgres)} | ${f(c.loadgen)} | ${f(c.total)} | ${((100 * floorCost.total) / c.total).toFixed(0)}% |`)
    }
    console.log(bulkLine)
  } finally {
    await admin.end()
    await stopAll()
  }
}

try {
  await main()
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
} finally {
  await stopAll()
}
