// `npm run bench:scale` (issue 16, point 5): the carrier side's three big steps at several group
// sizes, PostgreSQL mode, against the built service as a child process, in one table:
//
//   - the full 834: from the operator's POST /work_orders/{id}/transitions {status: submitted} to
//     the delivery `sent` (as bench/carrier.mjs measures it);
//   - the census: POST /coverage_periods/{id}/census_requests with a JSON census of every family,
//     1% of them with one differing parameter, until its answer; exactly the planted errors;
//   - the change file of 5% of the families (life events posted through the API, not measured):
//     from the waiting gathering made due to the change delivery `sent`.
//
// For each: the time and the server's RSS growth (peak VmRSS sampled every 50 ms minus the reading
// before). Each step runs on a service started afresh for it, so each growth is measured from the
// same starting point. Checks, per step: the time grows no faster than linearly (the largest size's
// time at most 4.5x the 50,000 one's, or proportionally for other sizes: the time per family at
// most 1.125x the reference's) and the RSS growth stays flat (the largest within 1.3x the smallest).
//
// Knobs: SCALE_SIZES (default 10000,50000,200000); SCALE_CENSUS_SIZES (the sizes the census runs
// at, default SCALE_SIZES; the census held everything in memory until issue 16 point 1, and at
// 200,000 families may not fit); SCALE_STEPS (full,census,change by default). Its own database,
// enrollsync_bench_scale, recreated for each size and dropped at the end (BENCH_KEEP_DB=1 keeps the
// last). Prints the table and one JSON line; figures go into RESULTS.md by hand.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { PG_SERVER, dropDatabase, expectOk, isRunning, machineDescription, startService, stopAll, stopChild, waitForQuietMachine } from './lib.mjs'
import { CHANGE_SHARE, applyChanges, measureChangeFile, planChanges } from './carrier-changes.mjs'
import {
  CARRIER,
  SSN_ENCRYPTION_KEYS,
  SSN_HASH_KEY,
  TIMEOUT_SECONDS,
  buildCensus,
  buildFamilies,
  createGroupThroughApi,
  distImport,
  measureCensus,
  openWorkOrderForChecking,
  measureFullFile,
  migrateAndCreateAccounts,
  recreateCarrierDatabase,
  round,
  seedMembers,
  serviceEnv,
  vacuumAnalyze,
  waitForSettledFullFile,
} from './carrier-data.mjs'

const env = process.env
// SCALE_DB_NAME: another database name, so two engineers' runs on one server do not drop each other's.
const DB_NAME = env.SCALE_DB_NAME ?? 'enrollsync_bench_scale'
const DATABASE_URL = `${PG_SERVER}/${DB_NAME}`
const sizesOf = (text) => text.split(',').map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && n > 0)
const SIZES = sizesOf(env.SCALE_SIZES ?? '10000,50000,200000').sort((a, b) => a - b)
const CENSUS_SIZES = new Set(sizesOf(env.SCALE_CENSUS_SIZES ?? SIZES.join(',')))
const STEPS = new Set((env.SCALE_STEPS ?? 'full,census,change').split(',').map((s) => s.trim()))
/** The size the linear check is made against, when it is run and is not the largest (else the smallest). */
const REFERENCE_SIZE = 50_000
const LINEAR = { factor: 4.5, over: 4 } // 200,000 families at most 4.5x the time of 50,000
const RSS_FLAT = 1.3
// Member changes wait this long before they are gathered into a change file (all in one file);
// the bench makes the gathering due once they are all posted. The most the setting accepts.
const TRANSACTION_BATCH_DELAY_MS = 3_600_000
// A census of 200,000 families is about 250 MB of JSON.
const CENSUS_BODY_LIMIT_BYTES = 1024 * 1024 * 1024

/** A service started afresh for one step (its RSS growth measured from the same start each time). */
function startFresh(label, outboundDir) {
  return startService('info', {
    label: `scale-${label}`,
    nodeOptions: env.BENCH_SERVICE_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [],
    extraEnv: serviceEnv(DATABASE_URL, outboundDir, { TRANSACTION_BATCH_DELAY_MS: String(TRANSACTION_BATCH_DELAY_MS), CENSUS_BODY_LIMIT_BYTES: String(CENSUS_BODY_LIMIT_BYTES) }),
  })
}

async function finished(service) {
  if (!isRunning(service.child)) throw new Error(`The service died; see ${service.logFile}`)
  await stopChild(service.child)
  if (!env.BENCH_KEEP_LOGS) rmSync(service.logFile, { force: true })
}

const figures = (step) => ({ seconds: round(step.seconds), rssBeforeMb: step.rssBeforeMb, rssPeakMb: step.rssPeakMb, rssGrowthMb: step.rssGrowthMb, serverCpuSeconds: step.serverCpuSeconds, postgresCpuSeconds: step.postgresCpuSeconds, restOfMachineCores: step.restOfMachineCores })

/**
 * One size: seed, then each step on a fresh service; fills `result` with each step's figures and
 * whether it did what it must, as it goes (a size that breaks keeps what it measured).
 */
async function runSize(subscribers, outboundDir, result) {
  console.log(`\n=== ${subscribers.toLocaleString('en')} families ===`)
  const postgres = await recreateCarrierDatabase(DB_NAME)
  const accounts = await migrateAndCreateAccounts(DATABASE_URL)
  let service = await startFresh(`${subscribers}-seed`, outboundDir)
  const ids = await createGroupThroughApi(service.url, accounts.partnerKey, subscribers)
  const seedStarted = performance.now()
  const { uuidv7 } = await distImport('lib/ids.js')
  const { SsnProtection } = await distImport('lib/ssn-protection.js')
  const families = buildFamilies(subscribers, uuidv7)
  const seeded = await seedMembers(DATABASE_URL, families, ids, accounts.partnerAccountId, uuidv7, SsnProtection.fromConfig(SSN_ENCRYPTION_KEYS, SSN_HASH_KEY))
  const operator = { 'service-api-key': accounts.operatorKey, 'content-type': 'application/json' }
  const workOrderId = await openWorkOrderForChecking(service.url, accounts, ids.coveragePeriodId)
  await vacuumAnalyze(DATABASE_URL)
  await finished(service)
  console.log(`  seeded ${seeded.subscribers} subscribers, ${seeded.dependents} dependents, ${seeded.spans} coverage spans in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`)
  const members = seeded.subscribers + seeded.dependents
  Object.assign(result, { members, postgres })

  // The full file: the census and the change file come after it (the carrier must hold the group).
  service = await startFresh(`${subscribers}-full`, outboundDir)
  await delay(1_000)
  const file = await measureFullFile(DATABASE_URL, service, ids, accounts.operatorKey, workOrderId, outboundDir)
  const fileOk = file.fileIntact && file.insSegments === members && file.memberCount === members
  result.full = { ...figures(file), jobs: file.jobs, fileMb: file.fileMb, ins: file.insSegments, ok: fileOk }
  console.log(`  full file: ${file.seconds.toFixed(2)} s, +${file.rssGrowthMb} MB (${file.rssBeforeMb} -> ${file.rssPeakMb}), ${file.insSegments} INS, complete: ${fileOk}; jobs ${JSON.stringify(file.jobs)}`)
  // What follows the sent file (carrier views, transmissions, installation transactions): not the
  // file's time, but it must keep up with the size too.
  result.full.settleSeconds = round(await waitForSettledFullFile(DATABASE_URL, file.deliveryId))
  console.log(`  settled (carrier.delivery_sent) in ${result.full.settleSeconds} s`)
  await finished(service)
  rmSync(file.path, { force: true })

  // Which families change, decided now while the families are at hand; the census body too.
  const plan = planChanges(families, { today: new Date().toISOString().slice(0, 10) })
  if (STEPS.has('census') && CENSUS_SIZES.has(subscribers)) {
    let census = buildCensus(families, ids.planIds)
    families.length = 0
    await vacuumAnalyze(DATABASE_URL) // the settling wrote a view per member
    service = await startFresh(`${subscribers}-census`, outboundDir)
    await delay(1_000)
    try {
      const reconciliation = await measureCensus(DATABASE_URL, service, ids, accounts.operatorKey, census)
      const exact = reconciliation.matchedExpected === reconciliation.expectedErrors && reconciliation.unexpectedCount === 0 && reconciliation.errorsOnCoveragePeriod === reconciliation.expectedErrors
      result.census = { ...figures(reconciliation), requestMb: reconciliation.requestMb, expectedErrors: reconciliation.expectedErrors, matched: reconciliation.matchedExpected, unexpected: reconciliation.unexpectedCount, ok: exact }
      console.log(`  census: ${reconciliation.seconds.toFixed(2)} s, +${reconciliation.rssGrowthMb} MB (${reconciliation.rssBeforeMb} -> ${reconciliation.rssPeakMb}), ${reconciliation.matchedExpected}/${reconciliation.expectedErrors} errors, ${reconciliation.unexpectedCount} unexpected`)
    } catch (error) {
      // A census that does not fit (the service killed by the kernel) is a result, not the end of the run.
      result.census = { error: error.message.slice(0, 300), serviceAlive: isRunning(service.child), ok: false }
      console.log(`  census failed: ${result.census.error}`)
    }
    census = null
    if (isRunning(service.child)) await finished(service)
  }
  families.length = 0

  if (STEPS.has('change')) {
    service = await startFresh(`${subscribers}-changes`, outboundDir)
    await expectOk(
      'POST /work_orders/{id}/transitions (completed)',
      `${service.url}/work_orders/${workOrderId}/transitions`,
      { method: 'POST', headers: operator, body: JSON.stringify({ status: 'completed', message: 'Installed by the carrier (benchmark).', carrier_group_number: `AET-BENCH-${subscribers}` }) },
      (b) => b?.work_order?.status === 'completed',
    )
    const posting = performance.now()
    const applied = await applyChanges(service.url, accounts.partnerKey, ids.coveragePeriodId, ids.planIds, plan)
    console.log(`  ${plan.changes.length} families changed: ${applied.events} life events, ${applied.dependents} dependents posted in ${((performance.now() - posting) / 1000).toFixed(1)} s (not measured)`)
    await finished(service)
    await vacuumAnalyze(DATABASE_URL)
    service = await startFresh(`${subscribers}-change`, outboundDir)
    await delay(1_000)
    const change = await measureChangeFile({ databaseUrl: DATABASE_URL, service, coveragePeriodId: ids.coveragePeriodId, outboundDir, carrier: CARRIER, timeoutSeconds: TIMEOUT_SECONDS, distImport })
    const changedIds = new Set(plan.changes.flatMap((c) => [c.family.sub.id, ...c.family.deps.map((d) => d.id), ...(c.newMemberId ? [c.newMemberId] : [])]))
    const foreign = change.memberIdsInFile.filter((id) => !changedIds.has(id)).length
    const ok = change.valid && change.changeDeliveries === 1 && change.transactionCount === change.pendingTransactions && change.insSegments === change.memberCount && foreign === 0
    result.change = { ...figures(change), buildSeconds: round(change.buildSeconds, 3), families: plan.changes.length, members: change.memberCount, ok }
    console.log(`  change file: ${change.seconds.toFixed(2)} s (build ${change.buildSeconds?.toFixed(2)} s), +${change.rssGrowthMb} MB, ${change.memberCount} members of ${plan.changes.length} families, valid: ${ok}`)
    await finished(service)
  }
}

/** Time and RSS growth per size, and the two checks, for one step. */
function verdicts(results, step) {
  const rows = results.filter((r) => r[step] && !r[step].error && r[step].seconds !== undefined)
  if (rows.length < 2) return { linear: null, flat: null }
  const smallest = rows[0]
  const largest = rows.at(-1)
  // Against 50,000 families when it was run and is not the largest, else against the smallest.
  const reference = rows.find((r) => r.subscribers === REFERENCE_SIZE && r !== largest) ?? smallest
  let linear = null
  if (largest !== reference) {
    // 4.5x for 4x the families: the time per family may grow by 12.5% at most.
    const allowed = (LINEAR.factor / LINEAR.over) * (largest.subscribers / reference.subscribers)
    const measured = largest[step].seconds / reference[step].seconds
    linear = { from: reference.subscribers, to: largest.subscribers, measured: round(measured), allowed: round(allowed), pass: measured <= allowed }
  }
  const growths = rows.map((r) => r[step].rssGrowthMb)
  const spread = Math.max(...growths) / Math.min(...growths)
  return { linear, flat: { growthsMb: growths, spread: round(spread), allowed: RSS_FLAT, pass: spread <= RSS_FLAT } }
}

function table(results) {
  const cell = (s) => (!s ? '—' : s.error ? `failed: ${s.error.slice(0, 60)}` : `${s.seconds.toFixed(2)} s, +${s.rssGrowthMb} MB${s.ok ? '' : ' (**wrong result**)'}`)
  const full = (s) => (s && s.settleSeconds !== undefined ? `${cell(s)} (settled in ${s.settleSeconds} s)` : cell(s))
  const lines = ['| Families (members) | Full 834 | Census (1% discrepancies) | Change file (5% of families) |', '|---|---|---|---|']
  for (const r of results) {
    const members = r.members === null ? '' : ` (${r.members.toLocaleString('en')})`
    lines.push(`| ${r.subscribers.toLocaleString('en')}${members}${r.error ? ` **broke: ${r.error.slice(0, 80)}**` : ''} | ${full(r.full)} | ${cell(r.census)} | ${cell(r.change)} |`)
  }
  return lines.join('\n')
}

async function main() {
  if (SIZES.length === 0) throw new Error('SCALE_SIZES names no size')
  const date = new Date().toISOString()
  const loadBefore = await waitForQuietMachine()
  const outboundDir = mkdtempSync(join(os.tmpdir(), 'enrollsync-bench-scale-'))
  const results = []
  try {
    for (const size of SIZES) {
      const result = { subscribers: size, members: null }
      results.push(result)
      try {
        await runSize(size, outboundDir, result)
      } catch (error) {
        // Recorded with what was measured before it broke; the next size still runs.
        result.error = (error instanceof Error ? error.message : String(error)).slice(0, 300)
        console.log(`  ${size.toLocaleString('en')} families broke: ${result.error}`)
        await stopAll()
      }
    }
  } finally {
    await stopAll()
    rmSync(outboundDir, { recursive: true, force: true })
    if (!env.BENCH_KEEP_DB) await dropDatabase(DB_NAME)
  }
  const checks = { full: verdicts(results, 'full'), census: verdicts(results, 'census'), change: verdicts(results, 'change') }
  console.log(`\n${table(results)}\n`)
  for (const [step, check] of Object.entries(checks)) {
    const linear = check.linear ? `${check.linear.to.toLocaleString('en')} vs ${check.linear.from.toLocaleString('en')}: ${check.linear.measured}x the time (at most ${check.linear.allowed}x) ${check.linear.pass ? 'PASS' : 'FAIL'}` : 'not measured'
    const flat = check.flat ? `RSS growth ${check.flat.growthsMb.join(' / ')} MB: ${check.flat.spread}x (at most ${RSS_FLAT}x) ${check.flat.pass ? 'PASS' : 'FAIL'}` : 'not measured'
    console.log(`${step}: time ${linear}; ${flat}`)
  }
  console.log(JSON.stringify({ benchmark: 'scale', date, sizes: SIZES, censusSizes: [...CENSUS_SIZES], results, checks, machine: machineDescription(results[0]?.postgres ?? null, loadBefore) }))
}

try {
  await main()
} catch (error) {
  console.error('\nThe scale benchmark could not complete:', error instanceof Error ? (error.stack ?? error.message) : error)
  process.exitCode = 1
} finally {
  await stopAll()
}
