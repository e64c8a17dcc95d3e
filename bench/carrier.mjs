// `npm run bench:carrier` (also the last part of `npm run bench`): the carrier side's two targets,
// PostgreSQL mode, against the built service (dist/main/serve.js) as a child process.
//
//   1. The full 834 of a group of 50,000 subscribers and 75,000 dependents: from the operator's
//      POST /work_orders/{id}/transitions {status: submitted} to the file delivery's status
//      `sent` (jobs carrier.build_file then carrier.send_file, run by the service's in-process
//      worker, the file written to OUTBOUND_DIR/aetna): under 10 s, server RSS growth (peak of
//      VmRSS sampled every 50 ms, minus the reading before) under 150 MB. Then the same data
//      through node-x12's generator, for the ratio (see "node-x12 on the same data" below).
//   2. A census of the same 50,000 families with exactly 1% of the subscribers (500) given one
//      differing parameter, posted as JSON to POST /coverage_periods/{id}/census_requests
//      (operator key; reconciled synchronously): under 20 s, and exactly the 500 expected
//      errors (source reconciliation), each on the expected member, parameter and plan.
//
// Seeding is not measured: a group, its coverage period and plans through the API (partner
// key), then the members, life events, elections and coverages with SQL (jsonb_to_recordset,
// as the service's own bulk insert does), SSNs sealed with the service's code and keys, then
// complete_setup and the move to in_progress through the API, then VACUUM ANALYZE.
//
// Its own database, enrollsync_bench_carrier, dropped and created afresh at every start.
// Prints one JSON line per target (`{"benchmark":"carrier",...}`) with PASS/FAIL; exits
// non-zero only when the bench itself breaks. Knobs: see bench/README.md.
import { createHash } from 'node:crypto'
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { PG_SERVER, TMP_DIR, expectOk, isRunning, machineDescription, startService, waitForQuietMachine, stopAll, stopChild, startBareServer, track } from './lib.mjs'
import {
  CHANGE_SHARE,
  READ_AS_OF,
  applyChanges,
  changedReadIds,
  measureChangeFile,
  measureCoverageRead,
  planChanges,
  readConfiguration,
  rosterMatchesTruth,
  vmRssMb,
} from './carrier-changes.mjs'
import { ACK_TARGETS, acknowledgementVerdict, measureAcknowledgements } from './carrier-acks.mjs'
import {
  CARRIER,
  CENSUS_CARRIER_IDS,
  COVERAGE_END,
  COVERAGE_START,
  SSN_ENCRYPTION_KEYS,
  SSN_HASH_KEY,
  TIMEOUT_SECONDS,
  buildCensus,
  buildFamilies,
  createGroupThroughApi,
  distImport,
  mb,
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
const DB_NAME = 'enrollsync_bench_carrier'
const DATABASE_URL = `${PG_SERVER}/${DB_NAME}`
const SUBSCRIBERS = Number(env.BENCH_CARRIER_SUBSCRIBERS ?? 50_000)
const RUN_NODE_X12 = env.BENCH_CARRIER_NODE_X12 !== '0'
const CHILD_HEAP_MB = Number(env.BENCH_EDI_HEAP_MB ?? 12_288) // as bench/edi-834-generator.mjs: node-x12 holds every segment as objects
// Part 3: member changes wait this long before they are gathered into a change file, so that all
// of them travel in one; the bench makes the gathering due once they are all posted.
const TRANSACTION_BATCH_DELAY_MS = 3_600_000 // the most TRANSACTION_BATCH_DELAY_MS accepts
const CARRIER_GROUP_NUMBER = 'AET-BENCH-50000'
const POOL_SIZE = 10 // the service's default DATABASE_POOL_SIZE; the floor's pool the same
const TARGETS = { fileSeconds: 10, fileRssGrowthMb: 150, censusSeconds: 20, changeBuildSeconds: 3, coverageReadVsFloor: 0.6 }
const FULL_SIZE = 50_000 // the size the targets are defined for
const FAMILY_PAGE = 200 // file-builder.ts pages families by 200: the node-x12 side reads them the same way

// ---------------------------------------------------------------------------------------------
// node-x12 on the same data: each side in its own child process (this script with
// `--x12-side`), reading the coverage period's families from the database exactly as
// file-builder.ts does (pages of 200 through members/enrollment-read-model.js, members composed by
// edi-834-members.js, SSNs opened), with the envelope and header of the delivery the service
// sent (its GS04/GS05 time read back from the file). `ours` streams them through the service's
// writer into a file; `node-x12` builds node-x12's object model as bench/edi-834-generator.mjs
// does and serialises it at the end. Both files must equal the service's byte for byte.

async function x12Child(side, file, deliveryId) {
  const [{ openDatabase }, { SsnProtection }, loader, { fullFileMembers }, { PRODUCT_LINES_ON_834 }, { CarrierCatalog }, build, { write834 }] = await Promise.all([
    distImport('db/database.js'),
    distImport('lib/ssn-protection.js'),
    distImport('modules/members/enrollment-read-model.js'),
    distImport('modules/carrier-delivery/edi-834-members.js'),
    distImport('modules/edi-834/edi-834.codes.js'),
    distImport('modules/carriers/carriers.catalog.js'),
    distImport('modules/edi-834/edi-834.build.js'),
    distImport('modules/edi-834/edi-834.writer.js'),
  ])
  const X12 = side === 'node-x12' ? await import('node-x12') : null
  const ssn = SsnProtection.fromConfig(SSN_ENCRYPTION_KEYS, SSN_HASH_KEY)
  const handle = await openDatabase({ kind: 'postgres', url: DATABASE_URL, poolSize: 2 })
  const db = handle.db
  // The createdAt the service stamped, to the minute (all the file shows): GS04 and GS05.
  const gs = /(?:^|~\s*)GS\*[^*]*\*[^*]*\*[^*]*\*(\d{8})\*(\d{4})\*/.exec(readFileSync(env.BENCH_CARRIER_SERVICE_FILE, 'utf8').slice(0, 2000))
  const createdAt = new Date(`${gs[1].slice(0, 4)}-${gs[1].slice(4, 6)}-${gs[1].slice(6)}T${gs[2].slice(0, 2)}:${gs[2].slice(2)}:00Z`)

  let peak = process.memoryUsage.rss()
  const sample = () => (peak = Math.max(peak, process.memoryUsage.rss()))
  const baseline = peak
  const timer = setInterval(sample, 10)
  const started = performance.now()

  const delivery = await db.selectFrom('file_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirstOrThrow()
  const cp = await db.selectFrom('coverage_periods').selectAll().where('id', '=', delivery.coverage_period_id).executeTakeFirstOrThrow()
  const group = await db.selectFrom('groups').selectAll().where('id', '=', cp.group_id).executeTakeFirstOrThrow()
  const producers = await db.selectFrom('producers_of_record').selectAll().where('group_id', '=', group.id).orderBy('position').limit(2).execute()
  const carrier = new CarrierCatalog().find(cp.carrier_name)
  const window = { coveragePeriodId: cp.id, startDate: cp.coverage_start_date, endDate: cp.coverage_end_date }
  const today = createdAt.toISOString().slice(0, 10)
  const context = { ssn, groupPolicyNumber: cp.carrier_group_number, window, today, plans: await loader.plansOfPeriod(db, cp.id) }
  const totals = await loader.countEnrolled(db, window, PRODUCT_LINES_ON_834)
  async function* members() {
    let page = []
    const flush = async function* () {
      for (const family of await loader.loadFamilies(db, window, page, { today })) {
        const sendable = { ...family, spans: family.spans.filter((span) => PRODUCT_LINES_ON_834.includes(span.product_line)) }
        yield* fullFileMembers(sendable, context).members
      }
      page = []
    }
    for await (const id of loader.enrolledSubscriberIds(db, cp.id)) {
      page.push(id)
      if (page.length === FAMILY_PAGE) yield* flush()
    }
    if (page.length > 0) yield* flush()
  }
  const header = {
    reference: delivery.id.replace(/-/g, '').slice(0, 30),
    action: 'replace',
    masterPolicyNumber: cp.carrier_group_number,
    effectiveDate: cp.coverage_start_date,
    totals,
    sponsor: { name: group.organization_name, fein: group.fein, groupExternalIdentifier: group.external_identifier },
    payer: { name: carrier?.display_name ?? cp.carrier_name, carrierName: cp.carrier_name },
    brokers: producers.map((p) => ({ name: [p.first_name, p.last_name].filter(Boolean).join(' '), nationalProducerNumber: p.national_producer_number })),
  }
  const receiver = cp.carrier_name.toUpperCase().slice(0, 15)
  const envelope = {
    senderQualifier: env.EDI_SENDER_QUALIFIER || 'ZZ',
    senderId: env.EDI_SENDER_ID || 'ENROLLSYNC',
    receiverQualifier: 'ZZ',
    receiverId: receiver,
    applicationSenderCode: env.EDI_SENDER_ID || 'ENROLLSYNC',
    applicationReceiverCode: receiver,
    interchangeControlNumber: delivery.interchange_control_number,
    usage: carrier?.sandbox ? 'T' : 'P',
    createdAt,
  }

  if (side === 'ours') {
    const out = createWriteStream(file)
    for await (const chunk of write834(envelope, header, members())) {
      if (!out.write(chunk)) await once(out, 'drain')
    }
    out.end()
    await once(out, 'finish')
  } else {
    // As bench/edi-834-generator.mjs: same separators and layout as ours.
    const interchange = new X12.X12Interchange({ elementDelimiter: '*', segmentTerminator: '~', subElementDelimiter: ':', repetitionDelimiter: '^', endOfLine: '\n', format: true })
    const control = build.controlNumbers(envelope)
    const { isa, gs: gsSegment, st } = build.envelopeSegments(envelope, control)
    interchange.setHeader(isa.slice(1))
    const fg = interchange.addFunctionalGroup()
    fg.setHeader(gsSegment.slice(1))
    const transaction = fg.addTransaction()
    transaction.setHeader(st.slice(1))
    for (const seg of build.headerSegments(header, createdAt)) transaction.addSegment(seg[0], seg.slice(1))
    for await (const member of members()) {
      for (const seg of build.memberSegments(member)) transaction.addSegment(seg[0], seg.slice(1))
    }
    sample()
    const text = `${interchange.toString()}\n` // node-x12 puts no newline after the last segment
    sample()
    writeFileSync(file, text)
    sample()
  }
  const ms = performance.now() - started
  clearInterval(timer)
  sample()
  await handle.close()
  process.send({ side, ms: Math.round(ms), baselineRssMb: mb(baseline), peakRssMb: mb(peak), rssGrowthMb: mb(peak - baseline), maxRssMb: mb(process.resourceUsage().maxRSS * 1024) })
}

function runX12Child(side, file, deliveryId, serviceFile) {
  return new Promise((resolveRun) => {
    const child = track(
      fork(fileURLToPath(import.meta.url), ['--x12-side', side, file, deliveryId], {
        execArgv: [`--max-old-space-size=${CHILD_HEAP_MB}`],
        env: { ...env, BENCH_CARRIER_SERVICE_FILE: serviceFile },
        stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      }),
    )
    let result = null
    let stderr = ''
    const timer = setTimeout(() => void stopChild(child), TIMEOUT_SECONDS * 1000)
    child.stderr.on('data', (data) => (stderr += data))
    child.on('message', (message) => (result = message))
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      resolveRun(result ?? { side, error: `exited with ${signal ?? code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}` })
    })
  })
}

async function sha256Of(file) {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk)
  return hash.digest('hex')
}

async function sameDataComparison(file) {
  const stamp = `${process.pid}-${Date.now()}`
  const files = { ours: join(os.tmpdir(), `carrier834-ours-${stamp}.x12`), nodeX12: join(os.tmpdir(), `carrier834-node-x12-${stamp}.x12`) }
  try {
    console.log('node-x12 on the same data: our writer in a child process ...')
    const ours = await runX12Child('ours', files.ours, file.deliveryId, file.path)
    console.log(`  ${ours.error ?? `${ours.ms} ms, RSS growth ${ours.rssGrowthMb} MB`}`)
    console.log('node-x12 on the same data: node-x12 in a child process ...')
    const nodeX12 = await runX12Child('node-x12', files.nodeX12, file.deliveryId, file.path)
    console.log(`  ${nodeX12.error ?? `${nodeX12.ms} ms, RSS growth ${nodeX12.rssGrowthMb} MB`}`)
    const same = async (name) => (existsSync(files[name]) ? (await sha256Of(files[name])) === file.sha256 : null)
    return { ours, nodeX12, oursIdenticalToServiceFile: ours.error ? null : await same('ours'), nodeX12IdenticalToServiceFile: nodeX12.error ? null : await same('nodeX12') }
  } finally {
    for (const f of Object.values(files)) rmSync(f, { force: true })
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * Part 3: the operator completes the work order (the coverage period goes to production), 5% of
 * the families change through the API, then the change file, the check of what the carrier then
 * holds, and the coverage read against the floor.
 */
async function changeFilePart({ ids, accounts, workOrderId, outboundDir, plan, fullFilePath }) {
  // What autovacuum would have done by now (it is off on this server): carrier_views went from
  // empty to one row per member with the full file, and the census rewrote every member.
  await vacuumAnalyze(DATABASE_URL)
  const service = await startService('info', {
    label: 'carrier-changes',
    nodeOptions: env.BENCH_SERVICE_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [],
    extraEnv: serviceEnv(DATABASE_URL, outboundDir, { TRANSACTION_BATCH_DELAY_MS: String(TRANSACTION_BATCH_DELAY_MS) }),
  })
  const operator = { 'service-api-key': accounts.operatorKey, 'content-type': 'application/json' }
  await expectOk(
    'POST /work_orders/{id}/transitions (completed)',
    `${service.url}/work_orders/${workOrderId}/transitions`,
    { method: 'POST', headers: operator, body: JSON.stringify({ status: 'completed', message: 'Installed by the carrier (benchmark).', carrier_group_number: CARRIER_GROUP_NUMBER }) },
    (b) => b?.work_order?.status === 'completed',
  )
  await expectOk(
    'GET /coverage_periods/{id}',
    `${service.url}/coverage_periods/${ids.coveragePeriodId}`,
    { headers: { 'service-api-key': accounts.partnerKey } },
    (b) => b?.coverage_period?.state === 'production' && b.coverage_period.carrier_group_number === CARRIER_GROUP_NUMBER,
  )

  console.log(`Part 3: ${plan.changes.length.toLocaleString('en')} families (${CHANGE_SHARE * 100}%) change by life events through the API: ${JSON.stringify(plan.byKind)} ...`)
  const applyStarted = performance.now()
  const applied = await applyChanges(service.url, accounts.partnerKey, ids.coveragePeriodId, ids.planIds, plan)
  const applySeconds = (performance.now() - applyStarted) / 1000
  console.log(`  ${applied.dependents} dependents and ${applied.events} life events posted in ${applySeconds.toFixed(1)} s (not measured)`)
  if (!isRunning(service.child)) throw new Error(`The service died while the changes were posted; see ${service.logFile}`)

  console.log('Target 3: the change file (the pending gathering made due, until the change delivery is sent) ...')
  await delay(1_000) // let the service settle after the posting
  const change = await measureChangeFile({ databaseUrl: DATABASE_URL, service, coveragePeriodId: ids.coveragePeriodId, outboundDir, carrier: CARRIER, timeoutSeconds: TIMEOUT_SECONDS, distImport })
  // Every member loop belongs to a changed family, and every changed family is in the file.
  const familyOf = new Map()
  for (const c of plan.changes) for (const id of [c.family.sub.id, ...c.family.deps.map((d) => d.id), ...(c.newMemberId ? [c.newMemberId] : [])]) familyOf.set(id, c.family.sub.id)
  change.foreignMembers = change.memberIdsInFile.filter((id) => !familyOf.has(id)).length
  change.familiesInFile = new Set(change.memberIdsInFile.map((id) => familyOf.get(id)).filter(Boolean)).size
  console.log(
    `  sent in ${change.seconds.toFixed(2)} s; carrier.build_file ${change.buildSeconds?.toFixed(3)} s; ${change.memberCount} members (${change.insSegments} INS) of ${change.familiesInFile} families, ` +
      `${change.fileKb} KB, valid: ${change.valid}; server RSS ${change.rssBeforeMb} -> peak ${change.rssPeakMb} MB`,
  )

  console.log('Checking what the carrier holds (full file + change file through the Edi834Roster) against the coverage spans ...')
  const changedSubscriberIds = plan.changes.map((c) => c.family.sub.id)
  // And as many families left alone, so a change file that touched them would show.
  const alsoSubscriberIds = [...new Set(plan.unchangedReadIds)].slice(0, changedSubscriberIds.length)
  const roster = await rosterMatchesTruth({
    databaseUrl: DATABASE_URL,
    coveragePeriodId: ids.coveragePeriodId,
    files: [fullFilePath, change.path],
    changedSubscriberIds,
    alsoSubscriberIds: await subscribersOf(alsoSubscriberIds),
    period: { start: COVERAGE_START, end: COVERAGE_END },
    distImport,
  })
  console.log(`  ${roster.membersCompared} members on ${roster.datesCompared} dates: ${roster.mismatchCount} mismatches (${roster.seconds} s)`)

  console.log(`Target 4: GET /members/{id}/coverages?as_of=${READ_AS_OF} against the floor ...`)
  const readIds = []
  const changedIds = changedReadIds(plan)
  for (let k = 0; k < Math.max(changedIds.length, plan.unchangedReadIds.length); k++) {
    if (k < changedIds.length) readIds.push(changedIds[k])
    if (k < plan.unchangedReadIds.length) readIds.push(plan.unchangedReadIds[k])
  }
  const floor = await startBareServer('floor-server.mjs', { DATABASE_URL, DATABASE_POOL_SIZE: String(POOL_SIZE) })
  const floorPath = `/users/${accounts.floorUserId}`
  await expectOk('floor', `${floor.url}${floorPath}`, {}, (b) => b?.user?.id === accounts.floorUserId)
  await expectOk(
    'GET /members/{id}/coverages',
    `${service.url}/members/${readIds[0]}/coverages?as_of=${READ_AS_OF}`,
    { headers: { 'service-api-key': accounts.partnerKey } },
    (b) => b?.as_of === READ_AS_OF && Array.isArray(b.coverages),
  )
  await delay(1_000)
  const read = await measureCoverageRead({ service, floor, partnerKey: accounts.partnerKey, readIds, floorPath })
  read.readIds = readIds.length
  if (!isRunning(service.child)) throw new Error(`The service died during the read; see ${service.logFile}`)
  read.read.serverRssAfterMb = round(vmRssMb(service.child.pid), 1)
  await stopChild(floor.child)
  await stopChild(service.child)
  if (!env.BENCH_KEEP_LOGS) rmSync(service.logFile, { force: true })
  return { change, roster, read, applied, applySeconds }
}

/** The subscribers of these members (the read's unchanged members are subscribers and dependents). */
async function subscribersOf(memberIds) {
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  try {
    const { rows } = await client.query(`select distinct coalesce(subscriber_id, id) as id from members where id = any($1::uuid[])`, [memberIds])
    return rows.map((r) => r.id)
  } finally {
    await client.end()
  }
}

async function main() {
  const date = new Date().toISOString()
  const loadBefore = await waitForQuietMachine()

  const postgres = await recreateCarrierDatabase(DB_NAME)
  const accounts = await migrateAndCreateAccounts(DATABASE_URL)
  const outboundDir = mkdtempSync(join(os.tmpdir(), 'enrollsync-bench-outbound-'))
  try {
    const service = await startService('info', {
      label: 'carrier',
      nodeOptions: env.BENCH_SERVICE_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [], // e.g. --cpu-prof --cpu-prof-dir=bench/.tmp
      extraEnv: serviceEnv(DATABASE_URL, outboundDir),
    })
    const ids = await createGroupThroughApi(service.url, accounts.partnerKey, SUBSCRIBERS)

    console.log(`Seeding ${SUBSCRIBERS.toLocaleString('en')} families with SQL ...`)
    const seedStarted = performance.now()
    const { uuidv7 } = await distImport('lib/ids.js')
    const { SsnProtection } = await distImport('lib/ssn-protection.js')
    const families = buildFamilies(SUBSCRIBERS, uuidv7)
    const seeded = await seedMembers(DATABASE_URL, families, ids, accounts.partnerAccountId, uuidv7, SsnProtection.fromConfig(SSN_ENCRYPTION_KEYS, SSN_HASH_KEY))
    const partner = { 'service-api-key': accounts.partnerKey }
    const workOrderId = await openWorkOrderForChecking(service.url, accounts, ids.coveragePeriodId)
    await expectOk('GET /coverage_periods/{id}', `${service.url}/coverage_periods/${ids.coveragePeriodId}`, { headers: partner }, (b) => b?.coverage_period?.state === 'configuration')
    await vacuumAnalyze(DATABASE_URL)
    const seedSeconds = (performance.now() - seedStarted) / 1000
    console.log(`  ${seeded.subscribers} subscribers, ${seeded.dependents} dependents, ${seeded.coverages} coverages, ${seeded.spans} coverage spans in ${seedSeconds.toFixed(1)} s (SSNs sealed, work order in_progress, vacuum analyze)`)

    console.log(`Target 1: full 834 (work order -> submitted, until the delivery is sent) ...`)
    const file = await measureFullFile(DATABASE_URL, service, ids, accounts.operatorKey, workOrderId, outboundDir)
    console.log(`  sent in ${file.seconds.toFixed(2)} s, ${file.fileMb} MB, server RSS ${file.rssBeforeMb} -> peak ${file.rssPeakMb} MB (+${file.rssGrowthMb})`)
    // Now, before the census: the census teaches the platform the carrier's member ids, which
    // every later file carries (REF*23), so the same data is only there until then. The service
    // is idle meanwhile (the carrier is not a sandbox: nothing follows the send).
    const sameData = RUN_NODE_X12 ? await sameDataComparison(file) : null

    console.log(`Target 2: census of ${SUBSCRIBERS.toLocaleString('en')} subscribers, 1% with one differing parameter ...`)
    const census = buildCensus(families, ids.planIds)
    // Which families part 3 changes, and how: decided now, while the families are at hand.
    const plan = planChanges(families, { today: new Date().toISOString().slice(0, 10) })
    families.length = 0 // the bench process needs only the body and the plan from here on
    await delay(1_000) // let the service settle after the file
    // What follows the sent file (carrier.delivery_sent: the carrier's views, transmissions and the
    // families' installation transactions) finishes before the census is measured and before this
    // service stops: part 3's change file waits for the views it takes.
    await waitForSettledFullFile(DATABASE_URL, file.deliveryId)
    const reconciliation = await measureCensus(DATABASE_URL, service, ids, accounts.operatorKey, census)
    console.log(`  answered ${reconciliation.status} in ${reconciliation.seconds.toFixed(2)} s; ${reconciliation.matchedExpected}/${reconciliation.expectedErrors} expected errors found, ${reconciliation.unexpectedCount} unexpected; server RSS ${reconciliation.rssBeforeMb} -> peak ${reconciliation.rssPeakMb} MB`)

    if (!isRunning(service.child)) throw new Error(`The service died during the run; see ${service.logFile}`)
    await stopChild(service.child)
    if (!env.BENCH_KEEP_LOGS) rmSync(service.logFile, { force: true }) // kept when the run breaks
    census.json = null

    // Part 3 (issue 13): the carrier installs the group, 5% of the families change, and the one
    // change file that carries every change is built. A fresh instance whose member changes wait
    // an hour before they are gathered, so that all of them travel in one file whatever the
    // posting takes; the bench then makes that gathering due itself.
    const changes = await changeFilePart({ ids, accounts, workOrderId, outboundDir, plan, fullFilePath: file.path })

    // Target 5 last, on a service of its own: its 999 rejects the full file, and a rejected file is
    // taken back (its views rolled back, docs/decisions.md "A rejected file is taken back"), which
    // the change file above must not be built on.
    const ackService = await startService('info', {
      label: 'carrier-acks',
      nodeOptions: env.BENCH_SERVICE_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [],
      extraEnv: serviceEnv(DATABASE_URL, outboundDir),
    })
    console.log(`Target 5: the full 834 acknowledged (TA1 and 999 generated as sandbox_edi does, then ingested), and a 999 rejecting ${ACK_TARGETS.rejectedLoops.toLocaleString('en')} member loops ...`)
    const acks = await measureAcknowledgements({
      service: ackService,
      operatorKey: accounts.operatorKey,
      deliveryId: file.deliveryId,
      filePath: file.path,
      coveragePeriodId: ids.coveragePeriodId,
      databaseUrl: DATABASE_URL,
      distImport,
    })
    console.log(
      `  generated in ${acks.generationSeconds.toFixed(2)} s, ingested in ${(acks.ingestion.ta1Seconds + acks.ingestion.ack999Seconds).toFixed(2)} s; ` +
        `${acks.rejection.loops} loops rejected: ${acks.rejection.errors.count} errors in ${acks.rejection.seconds.toFixed(2)} s`,
    )
    if (!isRunning(ackService.child)) throw new Error(`The service died while the acknowledgements were ingested; see ${ackService.logFile}`)
    await stopChild(ackService.child)
    if (!env.BENCH_KEEP_LOGS) rmSync(ackService.logFile, { force: true })

    const host = machineDescription(postgres, loadBefore)
    const scaledDown = SUBSCRIBERS !== FULL_SIZE
    const fileOk = { time: file.seconds < TARGETS.fileSeconds, rss: file.rssGrowthMb < TARGETS.fileRssGrowthMb, complete: file.fileIntact && file.insSegments === seeded.subscribers + seeded.dependents && file.memberCount === file.insSegments }
    const ratio = (a, b) => (a && b ? round(a / b) : null)
    console.log(
      JSON.stringify({
        benchmark: 'carrier',
        target: 'full_834',
        date,
        subscribers: seeded.subscribers,
        dependents: seeded.dependents,
        scaledDown,
        thresholds: { seconds: TARGETS.fileSeconds, rssGrowthMb: TARGETS.fileRssGrowthMb },
        ...file,
        path: undefined,
        sameData,
        ratio: sameData && {
          nodeX12VsOursTime: ratio(sameData.nodeX12.ms, sameData.ours.ms),
          nodeX12VsOursRssGrowth: ratio(sameData.nodeX12.rssGrowthMb, sameData.ours.rssGrowthMb),
          nodeX12VsServiceEndToEnd: ratio(sameData.nodeX12.ms, file.seconds * 1000),
        },
        pass: fileOk,
        verdict: fileOk.time && fileOk.rss && fileOk.complete ? 'PASS' : 'FAIL',
        seedSeconds: round(seedSeconds, 1),
        machine: host,
      }),
    )
    const censusOk = {
      time: reconciliation.seconds < TARGETS.censusSeconds,
      exactErrors: reconciliation.matchedExpected === reconciliation.expectedErrors && reconciliation.unexpectedCount === 0 && reconciliation.errorsOnCoveragePeriod === reconciliation.expectedErrors,
    }
    console.log(
      JSON.stringify({
        benchmark: 'carrier',
        target: 'reconciliation',
        date,
        subscribers: seeded.subscribers,
        members: seeded.subscribers + seeded.dependents,
        scaledDown,
        thresholds: { seconds: TARGETS.censusSeconds, errors: census.expected.size },
        censusCarriesCarrierMemberIds: CENSUS_CARRIER_IDS,
        ...reconciliation,
        pass: censusOk,
        verdict: censusOk.time && censusOk.exactErrors ? 'PASS' : 'FAIL',
        machine: host,
      }),
    )
    const { change, roster, read, applied, applySeconds } = changes
    const changedFamilies = plan.changes.length
    const changeOk = {
      buildTime: change.buildSeconds !== null && change.buildSeconds < TARGETS.changeBuildSeconds,
      oneFile: change.changeDeliveries === 1 && change.transactionCount === change.pendingTransactions,
      valid834: change.valid && change.insSegments === change.memberCount && change.parsedMembers === change.memberCount,
      onlyChangedFamilies: change.foreignMembers === 0 && change.familiesInFile === changedFamilies,
      carrierHoldsTruth: roster.mismatchCount === 0 && roster.rosterMembers >= seeded.subscribers + seeded.dependents,
    }
    console.log(
      JSON.stringify({
        benchmark: 'carrier',
        target: 'change_file',
        date,
        subscribers: seeded.subscribers,
        scaledDown,
        thresholds: { buildSeconds: TARGETS.changeBuildSeconds },
        changedFamilies,
        changedShare: CHANGE_SHARE,
        changesByKind: plan.byKind,
        eventsPosted: applied.events,
        dependentsCreated: applied.dependents,
        postingSeconds: round(applySeconds, 1),
        ...change,
        path: undefined,
        memberIdsInFile: undefined,
        roster,
        pass: changeOk,
        verdict: Object.values(changeOk).every(Boolean) ? 'PASS' : 'FAIL',
        machine: host,
      }),
    )
    console.log(
      JSON.stringify({
        benchmark: 'carrier',
        target: 'acknowledgements',
        date,
        subscribers: seeded.subscribers,
        scaledDown,
        thresholds: ACK_TARGETS,
        ...acks,
        ...acknowledgementVerdict(acks),
        machine: host,
      }),
    )
    const readRatio = read.read.rps / read.floor.rps
    const readOk = { vsFloor: readRatio >= TARGETS.coverageReadVsFloor, noErrors: read.read.errors + read.read.non2xx + read.floor.errors + read.floor.non2xx === 0 }
    console.log(
      JSON.stringify({
        benchmark: 'carrier',
        target: 'member_coverages_read',
        date,
        subscribers: seeded.subscribers,
        scaledDown,
        thresholds: { vsFloor: TARGETS.coverageReadVsFloor },
        asOf: READ_AS_OF,
        readIds: read.readIds,
        configuration: { ...readConfiguration, logLevel: 'info', floor: 'bench/floor-server.mjs: one users row by primary key (10,001 users in this database)' },
        read: read.read,
        floor: read.floor,
        ratio: round(readRatio),
        pass: readOk,
        verdict: readOk.vsFloor && readOk.noErrors ? 'PASS' : 'FAIL',
        machine: host,
      }),
    )
  } finally {
    await stopAll()
    rmSync(outboundDir, { recursive: true, force: true })
  }
}

const [mode, ...args] = process.argv.slice(2)
if (mode === '--x12-side') {
  await x12Child(...args)
} else {
  try {
    await main()
  } catch (error) {
    console.error('\nThe carrier benchmark could not complete:', error instanceof Error ? (error.stack ?? error.message) : error)
    console.error(`Service logs, if any: ${TMP_DIR}/service-carrier.log`)
    process.exitCode = 1
  } finally {
    await stopAll()
  }
}
