// `node bench/snapshot-ab.mjs`: two builds compared on the same data, runs alternated. A dev tool
// for work on the full file and the census (issue 16): on a 2-core machine one run of a step
// varies by about 20% over half an hour, so a change is judged only against the build before it,
// measured in turns on identical data, never against a figure recorded earlier.
//
//   node bench/snapshot-ab.mjs seed [families]        seeds the snapshots once (default 50,000 families)
//   node bench/snapshot-ab.mjs full <dist> [<dist>…]   the full 834, each build in turn
//   node bench/snapshot-ab.mjs census <dist> [<dist>…] the census, each build in turn
//   node bench/snapshot-ab.mjs census-834 <dist> [<dist>…]       the full file sent back as the census, as the body
//   node bench/snapshot-ab.mjs census-834-json <dist> [<dist>…]  ... as {"census_request":{"x12_834": "..."}}
//
// `seed` makes two template databases as bench:scale makes its data: enrollsync_snap_full (the
// group installed, the work order in checking: the full file's starting point) and
// enrollsync_snap_census (after the full file was sent and settled, vacuumed: the census's), and
// writes the census body and what the runs need to bench/.tmp/snapshot/. Each run copies a
// template (CREATE DATABASE … TEMPLATE, a few seconds) and starts the service from the given
// `dist` directory (build an older commit in a worktree and pass its dist). Knobs:
// SNAPSHOT_ROUNDS (default 2: A B A B), BENCH_SERVICE_NODE_OPTIONS (default
// --max-old-space-size=1024, the heap of a 2 GiB container, as bench:scale is recorded). Prints a
// line per run: wall seconds, RSS growth, the service's CPU seconds and the CPU seconds of the
// PostgreSQL backends of the run's own database (not the server's other work), then with two
// rounds or more a line per build: the median and range of each. Records nothing.
// The census-834 steps send the carrier the full file the census snapshot sent (fetched once
// into bench/.tmp/snapshot/full.834), so every member matches and nothing differs: they measure
// reading an 834 census, in the two forms a client may send it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import { rssSampler } from './carrier-changes.mjs'
import { PG_SERVER, TMP_DIR, dropDatabase, processCpuSeconds, startService, stopAll, stopChild } from './lib.mjs'
import {
  SSN_ENCRYPTION_KEYS,
  SSN_HASH_KEY,
  buildCensus,
  buildFamilies,
  createGroupThroughApi,
  distImport,
  measureCensus,
  measureFullFile,
  migrateAndCreateAccounts,
  openWorkOrderForChecking,
  recreateCarrierDatabase,
  seedMembers,
  serviceEnv,
  vacuumAnalyze,
  waitForSettledFullFile,
} from './carrier-data.mjs'

const env = process.env
const FULL_TEMPLATE = 'enrollsync_snap_full'
const CENSUS_TEMPLATE = 'enrollsync_snap_census'
const RUN_DB = 'enrollsync_snap_run'
const STATE_DIR = join(TMP_DIR, 'snapshot')
const STATE_FILE = join(STATE_DIR, 'state.json')
const CENSUS_FILE = join(STATE_DIR, 'census.json')
const ROUNDS = Number(env.SNAPSHOT_ROUNDS ?? 2)
const NODE_OPTIONS = (env.BENCH_SERVICE_NODE_OPTIONS ?? '--max-old-space-size=1024').split(' ').filter(Boolean)
const outboundDir = mkdtempSync(join(os.tmpdir(), 'enrollsync-snapshot-'))

function service(database, label, dist, nodeOptions = []) {
  return startService('info', {
    label,
    nodeOptions,
    ...(dist ? { dist: resolve(dist) } : {}),
    extraEnv: serviceEnv(`${PG_SERVER}/${database}`, outboundDir, { TRANSACTION_BATCH_DELAY_MS: '3600000', CENSUS_BODY_LIMIT_BYTES: String(1024 * 1024 * 1024) }),
  })
}

async function admin(statement) {
  const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres` })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** CPU seconds of the PostgreSQL backends connected to `database` (their process titles name it). */
function backendCpuSeconds(database) {
  let seconds = 0
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    let title
    try {
      title = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    } catch {
      continue // the process ended between listing and reading
    }
    if (title.includes(` ${database} `)) seconds += processCpuSeconds(pid)
  }
  return seconds
}

async function seed(families) {
  await recreateCarrierDatabase(FULL_TEMPLATE)
  const url = `${PG_SERVER}/${FULL_TEMPLATE}`
  const accounts = await migrateAndCreateAccounts(url)
  let running = await service(FULL_TEMPLATE, 'snapshot-seed')
  const ids = await createGroupThroughApi(running.url, accounts.partnerKey, families)
  const { uuidv7 } = await distImport('lib/ids.js')
  const { SsnProtection } = await distImport('lib/ssn-protection.js')
  const built = buildFamilies(families, uuidv7)
  await seedMembers(url, built, ids, accounts.partnerAccountId, uuidv7, SsnProtection.fromConfig(SSN_ENCRYPTION_KEYS, SSN_HASH_KEY))
  const workOrderId = await openWorkOrderForChecking(running.url, accounts, ids.coveragePeriodId)
  await vacuumAnalyze(url)
  await stopChild(running.child)

  // The census's starting point: the full file sent and settled, on a copy.
  await dropDatabase(CENSUS_TEMPLATE)
  await admin(`CREATE DATABASE ${CENSUS_TEMPLATE} TEMPLATE ${FULL_TEMPLATE}`)
  const censusUrl = `${PG_SERVER}/${CENSUS_TEMPLATE}`
  running = await service(CENSUS_TEMPLATE, 'snapshot-seed-census')
  const file = await measureFullFile(censusUrl, running, ids, accounts.operatorKey, workOrderId, outboundDir)
  await waitForSettledFullFile(censusUrl, file.deliveryId)
  await stopChild(running.child)
  await vacuumAnalyze(censusUrl)

  mkdirSync(STATE_DIR, { recursive: true })
  const census = buildCensus(built, ids.planIds)
  writeFileSync(CENSUS_FILE, census.json)
  writeFileSync(STATE_FILE, JSON.stringify({ families, ids, operatorKey: accounts.operatorKey, workOrderId, expected: [...census.expected] }))
  console.log(`Seeded ${families} families: ${FULL_TEMPLATE} and ${CENSUS_TEMPLATE}; the census body in ${CENSUS_FILE}.`)
}

const STEPS = ['full', 'census', 'census-834', 'census-834-json']
const FULL_FILE = join(STATE_DIR, 'full.834')

/** The full file the census snapshot sent, as its content route gives it (fetched once, then kept beside the census body). */
async function fullFileText(url, running, state) {
  if (existsSync(FULL_FILE)) return readFileSync(FULL_FILE, 'utf8')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  let id
  try {
    id = (await client.query(`SELECT id FROM file_deliveries WHERE kind = 'full' ORDER BY created_at DESC LIMIT 1`)).rows[0].id
  } finally {
    await client.end()
  }
  const response = await fetch(`${running.url}/file_deliveries/${id}/content`, { headers: { 'service-api-key': state.operatorKey } })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`GET /file_deliveries/{id}/content answered ${response.status}: ${text.slice(0, 300)}`)
  writeFileSync(FULL_FILE, text)
  return text
}

/** The full file posted back as the census: every member matched, nothing differing. */
async function measure834Census(running, state, file, asJson) {
  const rss = rssSampler(running.child.pid)
  const cpuBefore = processCpuSeconds(running.child.pid)
  const started = performance.now()
  const response = await fetch(`${running.url}/coverage_periods/${state.ids.coveragePeriodId}/census_requests${asJson ? '' : '?as_of=2027-01-20'}`, {
    method: 'POST',
    headers: { 'service-api-key': state.operatorKey, 'content-type': asJson ? 'application/json' : 'application/edi-x12' },
    body: asJson ? JSON.stringify({ census_request: { as_of: '2027-01-20', x12_834: file } }) : file,
  })
  const text = await response.text()
  const memory = rss.stop()
  const seconds = (performance.now() - started) / 1000
  if (response.status !== 201) throw new Error(`the 834 census answered ${response.status}: ${text.slice(0, 1000)}`)
  const counts = JSON.parse(text).census_request
  return { seconds, rssGrowthMb: memory.rssGrowthMb, serverCpuSeconds: (processCpuSeconds(running.child.pid) - cpuBefore).toFixed(2), counts }
}

async function runOnce(step, dist, state, census) {
  await dropDatabase(RUN_DB)
  await admin(`CREATE DATABASE ${RUN_DB} TEMPLATE ${step === 'full' ? FULL_TEMPLATE : CENSUS_TEMPLATE}`)
  const url = `${PG_SERVER}/${RUN_DB}`
  const running = await service(RUN_DB, `snapshot-${step}`, dist, NODE_OPTIONS)
  try {
    await delay(1_000)
    // Fetched before the measurement: the content route decrypts the whole file.
    const file = step.startsWith('census-834') ? await fullFileText(url, running, state) : null
    const before = backendCpuSeconds(RUN_DB)
    let measured
    let outcome
    if (step === 'full') {
      measured = await measureFullFile(url, running, state.ids, state.operatorKey, state.workOrderId, outboundDir)
      outcome = `${measured.insSegments} INS, intact: ${measured.fileIntact}`
    } else if (step === 'census') {
      measured = await measureCensus(url, running, state.ids, state.operatorKey, census)
      outcome = `${measured.matchedExpected}/${measured.expectedErrors} errors, ${measured.unexpectedCount} unexpected`
    } else {
      measured = await measure834Census(running, state, file, step === 'census-834-json')
      outcome = `${measured.counts.matched_count} of ${measured.counts.member_count} members matched, ${measured.counts.discrepancy_count} discrepancies`
    }
    const backends = backendCpuSeconds(RUN_DB) - before
    console.log(`${step} ${dist}: ${measured.seconds.toFixed(2)} s, +${measured.rssGrowthMb} MB, service ${measured.serverCpuSeconds} CPU s, its database ${backends.toFixed(2)} CPU s; ${outcome}`)
    // What follows a sent full file runs in the service too: let it end before the next run starts.
    if (step === 'full') await waitForSettledFullFile(url, measured.deliveryId)
    return { seconds: measured.seconds, serviceCpu: Number(measured.serverCpuSeconds), databaseCpu: backends }
  } finally {
    await stopChild(running.child)
  }
}

async function main() {
  const [command, ...args] = process.argv.slice(2)
  if (command === 'seed') return seed(Number(args[0] ?? 50_000))
  if (!STEPS.includes(command) || args.length === 0) {
    console.error(`Usage: node bench/snapshot-ab.mjs seed [families] | ${STEPS.join('|')} <dist> [<dist>...]`)
    process.exitCode = 2
    return
  }
  const state = JSON.parse(readFileSync(STATE_FILE, 'utf8'))
  const census = command === 'census' ? { json: readFileSync(CENSUS_FILE, 'utf8'), expected: new Map(state.expected) } : null
  console.log(`${command}, ${state.families} families, ${ROUNDS} round(s) of ${args.join(' then ')}; service node options: ${NODE_OPTIONS.join(' ') || 'none'}`)
  const runs = new Map(args.map((dist) => [dist, []]))
  for (let round = 0; round < ROUNDS; round++) for (const dist of args) runs.get(dist).push(await runOnce(command, dist, state, census))
  await dropDatabase(RUN_DB)
  // One line per build: a change is worth keeping when its range leaves the other's, not when one run is lower.
  if (ROUNDS > 1) for (const [dist, measured] of runs) console.log(`${dist}: ${summary(measured.map((m) => m.seconds), 's')}; service ${summary(measured.map((m) => m.serviceCpu), 'CPU s')}; database ${summary(measured.map((m) => m.databaseCpu), 'CPU s')}`)
}

/** The median of some runs and their range. */
function summary(values, unit) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length / 2
  const median = sorted.length % 2 ? sorted[Math.floor(middle)] : (sorted[middle - 1] + sorted[middle]) / 2
  return `median ${median.toFixed(2)} ${unit} (${sorted[0].toFixed(2)}-${sorted.at(-1).toFixed(2)})`
}

try {
  await main()
} finally {
  await stopAll()
  rmSync(outboundDir, { recursive: true, force: true })
}
