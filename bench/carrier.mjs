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
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import pg from 'pg'
import {
  PG_SERVER,
  SERVICE_DIST,
  TMP_DIR,
  cpuDelta,
  cpuSnapshot,
  expectOk,
  isRunning,
  machineBusyCores,
  startService,
  stopAll,
  stopChild,
  startBareServer,
  track,
} from './lib.mjs'
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
  rssSampler,
  vmRssMb,
} from './carrier-changes.mjs'
import { ACK_TARGETS, acknowledgementVerdict, measureAcknowledgements } from './carrier-acks.mjs'

const env = process.env
const DB_NAME = 'enrollsync_bench_carrier'
const DATABASE_URL = `${PG_SERVER}/${DB_NAME}`
const SUBSCRIBERS = Number(env.BENCH_CARRIER_SUBSCRIBERS ?? 50_000)
const RUN_NODE_X12 = env.BENCH_CARRIER_NODE_X12 !== '0'
// A carrier's census names its own member ids; the first one teaches them to the platform (an
// UPDATE of every matched member). 0 leaves them out, to see what that costs.
const CENSUS_CARRIER_IDS = env.BENCH_CARRIER_CENSUS_IDS !== '0'
const CHILD_HEAP_MB = Number(env.BENCH_EDI_HEAP_MB ?? 12_288) // as bench/edi-834-generator.mjs: node-x12 holds every segment as objects
const TIMEOUT_SECONDS = Number(env.BENCH_CARRIER_TIMEOUT_SECONDS ?? 600)
// Part 3: member changes wait this long before they are gathered into a change file, so that all
// of them travel in one; the bench makes the gathering due once they are all posted.
const TRANSACTION_BATCH_DELAY_MS = 3_600_000 // the most TRANSACTION_BATCH_DELAY_MS accepts
const CARRIER_GROUP_NUMBER = 'AET-BENCH-50000'
const POOL_SIZE = 10 // the service's default DATABASE_POOL_SIZE; the floor's pool the same // per measured step: the bench gives up, it does not wait forever
const CARRIER = 'aetna' // edi, built-in catalogue, not a sandbox: nothing runs after the file is sent
const TARGETS = { fileSeconds: 10, fileRssGrowthMb: 150, censusSeconds: 20, changeBuildSeconds: 3, coverageReadVsFloor: 0.6 }
const FULL_SIZE = 50_000 // the size the targets are defined for
const POLL_MS = 50
const SEED_BATCH = 5_000
const FLOOR_FILLER_USERS = 10_000
const FAMILY_PAGE = 150 // file-builder.ts pages families by 150: the node-x12 side reads them the same way
// Bench-only keys, given to the service and used to seal the seeded SSNs (the service must open them).
const SSN_ENCRYPTION_KEYS = `bench-carrier-k1:${Buffer.alloc(32, 7).toString('base64')}`
const SSN_HASH_KEY = Buffer.alloc(32, 8).toString('base64')
const COVERAGE_START = '2027-01-01'
const COVERAGE_END = '2027-12-31'
const PLANS = {
  medical: { external_identifier: 'med-ppo', description: 'Gold PPO 500', product_line: 'medical', product_type: 'preferred_provider_organization', policy_premium_method: 'list_bill' },
  dental: { external_identifier: 'den-base', description: 'Dental Base', product_line: 'dental', premium_level: 'base', policy_premium_method: 'list_bill' },
  // Nobody is enrolled in it at first: the plan changes of the change-file part move families to it.
  medical_silver: { external_identifier: 'med-ppo-silver', description: 'Silver PPO 1500', product_line: 'medical', product_type: 'preferred_provider_organization', policy_premium_method: 'list_bill' },
}

const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10
const round = (x, digits = 2) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : null)
const distImport = (path) => {
  const file = join(SERVICE_DIST, path)
  if (!existsSync(file)) throw new Error(`${file} is missing: run through \`npm run bench:carrier\`, which builds first`)
  return import(pathToFileURL(file).href)
}

// ---------------------------------------------------------------------------------------------
// The data: one deterministic description of every family, used for the seeding, the census and
// the expected errors.

const FIRST = ['Jordan', 'Taylor', 'Morgan', 'Casey', 'Riley', 'Jamie', 'Avery', 'Quinn', 'Parker', 'Rowan']
const SPOUSE_FIRST = ['Alex', 'Sam', 'Robin', 'Drew', 'Kendall', 'Reese', 'Skyler', 'Emerson', 'Hayden', 'Logan']
const CHILD_FIRST = ['Kim', 'Lee', 'Noa', 'Eli', 'Ari', 'Jo', 'Max', 'Ivy', 'Zoe', 'Ben']
const pad = (n, width) => String(n).padStart(width, '0')
const isoDate = (year, n) => `${year}-${pad(1 + (n % 12), 2)}-${pad(1 + (n % 28), 2)}`
const usDate = (iso) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`
const compactDate = (iso) => iso.replace(/-/g, '')

/** Member number n (0-based over the whole group) gets a valid, distinct SSN: areas 001-665 only. */
function ssnOf(n) {
  const area = 1 + (Math.floor(n / 9999) % 665)
  return `${pad(area, 3)}${pad(1 + (n % 99), 2)}${pad(1 + (n % 9999), 4)}`
}

/**
 * Subscriber i: dependents by i % 4 (spouse + child, spouse, two children, one child: 1.5 on
 * average, 75,000 for 50,000), medical for every member, dental too for even-numbered families.
 */
function buildFamilies(count, uuidv7) {
  const families = []
  let memberNumber = 0
  for (let i = 0; i < count; i++) {
    const hasSpouse = i % 4 <= 1
    const sub = {
      id: uuidv7(),
      n: memberNumber++,
      kind: 'subscriber',
      external_identifier: `emp-${pad(i, 6)}`,
      first_name: FIRST[i % FIRST.length],
      last_name: `Bench${i}`,
      birth_date: isoDate(1960 + (i % 40), i),
      gender: i % 2 === 0 ? 'female' : 'male',
      marital_status: hasSpouse ? 'married' : 'single',
      subscriber_relationship: null,
      residential_address: {
        address_line_1: `${100 + (i % 900)} Main Street`,
        address_line_2: i % 3 === 0 ? `Apt ${1 + (i % 50)}` : null,
        city: 'Springfield',
        state: 'IL',
        zip: '62701',
        fips_county_code: '17167',
      },
      emails: [{ contact: `${FIRST[i % FIRST.length].toLowerCase()}.bench${i}@example.com`, type: 'personal' }],
      phone_numbers: [{ contact: `217555${pad(i % 10_000, 4)}`, type: 'mobile' }],
      employment_details: { start_date: isoDate(2010 + (i % 15), i + 5), status: 'full_time' },
    }
    const relationships = [['spouse', 'child'], ['spouse'], ['child', 'child'], ['child']][i % 4]
    const deps = relationships.map((relationship, k) => {
      const spouse = relationship === 'spouse'
      return {
        id: uuidv7(),
        n: memberNumber++,
        kind: 'dependent',
        external_identifier: `emp-${pad(i, 6)}-${relationship}-${k}`,
        first_name: spouse ? SPOUSE_FIRST[i % SPOUSE_FIRST.length] : CHILD_FIRST[(i + k) % CHILD_FIRST.length],
        last_name: `Bench${i}`,
        birth_date: spouse ? isoDate(1960 + ((i + 3) % 40), i + 3) : isoDate(2008 + ((i + k) % 16), i + 7 + k),
        gender: spouse ? (i % 2 === 0 ? 'male' : 'female') : (i + k) % 2 === 0 ? 'female' : 'male',
        marital_status: null,
        subscriber_relationship: relationship,
        residential_address: null,
        emails: [],
        phone_numbers: [],
        employment_details: null,
      }
    })
    families.push({ i, sub, deps, planKeys: i % 2 === 0 ? ['medical', 'dental'] : ['medical'] })
  }
  return families
}

// ---------------------------------------------------------------------------------------------
// Database and seeding.

async function recreateDatabase() {
  const admin = new pg.Client({ connectionString: `${PG_SERVER}/postgres` })
  await admin.connect().catch((error) => {
    throw new Error(`PostgreSQL does not answer at ${PG_SERVER} (${error.message}); is it running? (pg_isready -h 127.0.0.1)`)
  })
  try {
    const version = (await admin.query('show server_version')).rows[0].server_version
    await admin.query(`drop database if exists ${DB_NAME} with (force)`)
    await admin.query(`create database ${DB_NAME}`)
    return version
  } finally {
    await admin.end()
  }
}

/**
 * Migrations, then a partner account (owns the group) and an operator account, each with a key;
 * and the users the floor reads (one to read, 10,000 filler rows so the lookup is not into a
 * one-row table, as bench/lib.mjs prepares the main bench database).
 */
async function migrateAndCreateAccounts() {
  const { openDatabase } = await distImport('db/database.js')
  const { migrate } = await distImport('db/migrator.js')
  const { createServices } = await distImport('app.js')
  const { sql } = await import('kysely')
  const handle = await openDatabase({ kind: 'postgres', url: DATABASE_URL, poolSize: 2 })
  try {
    await migrate(handle.db)
    const services = createServices(handle.db)
    const system = (accountId) => ({ accountId, accountKind: 'service', apiKeyId: null, apiKeyName: null, requestId: null, channel: 'system' })
    const noAccountYet = '00000000-0000-0000-0000-000000000000'
    const partner = await services.accounts.createAccount(system(noAccountYet), { name: 'bench carrier partner', kind: 'partner' })
    const partnerKey = await services.accounts.createApiKey(system(partner.id), partner.id, 'bench carrier partner')
    const operator = await services.accounts.createAccount(system(noAccountYet), { name: 'bench carrier operator', kind: 'service' })
    const operatorKey = await services.accounts.createApiKey(system(operator.id), operator.id, 'bench carrier operator')
    const user = await services.users.createUser(system(partner.id), { email: 'floor-reader@bench.example.com', role_names: [] }, partner.id)
    await sql`insert into users (id, account_id, email, role_names)
              select gen_random_uuid(), ${operator.id}, 'filler-' || n || '@bench.example.com', '{}' from generate_series(1, ${FLOOR_FILLER_USERS}::int) as n`.execute(handle.db)
    return { partnerAccountId: partner.id, partnerKey: partnerKey.key, operatorKey: operatorKey.key, floorUserId: user.id }
  } finally {
    await handle.close()
  }
}

/** Group (with its primary location and a producer), coverage period and plans, through the API. */
async function createGroupThroughApi(url, partnerKey) {
  const headers = { 'service-api-key': partnerKey, 'content-type': 'application/json' }
  const installment = await expectOk(
    'POST /group_installments',
    `${url}/group_installments`,
    {
      method: 'POST',
      headers,
      body: JSON.stringify({
        group: {
          external_identifier: 'bench-carrier',
          insurance_market: 'large_group',
          employer: {
            organization_name: 'Bench Carrier Widgets',
            fein: '123456789',
            established_date: '2010-04-01',
            employer_type: 'corporation',
            census: { employees: SUBSCRIBERS, full_time_equivalent_employees: SUBSCRIBERS, eligible_employees: SUBSCRIBERS },
          },
          group_setup: { carrier_name: CARRIER },
          primary_location: {
            external_identifier: 'hq',
            type: 'physical',
            employer_address: { address_line_1: '100 Main St', city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' },
          },
          producers_of_record: [
            { first_name: 'Pat', last_name: 'Broker', national_producer_number: '1234567', email: 'pat.broker@example.com', signature_date: '2026-10-15', commission_split: 100, writing_producer: true, agency: null },
          ],
        },
      }),
    },
    (b) => typeof b?.group_installment?.group?.id === 'string',
  )
  const group = installment.group_installment.group
  const locationId = (group.locations.find((l) => l.external_identifier === 'hq') ?? group.locations[0])?.id
  if (!locationId) throw new Error('POST /group_installments answered no primary location')
  const cp = await expectOk(
    'POST /groups/{id}/coverage_periods',
    `${url}/groups/${group.id}/coverage_periods`,
    {
      method: 'POST',
      headers,
      body: JSON.stringify({
        coverage_period: {
          external_identifier: 'bench-carrier-2027',
          coverage_start_date: COVERAGE_START,
          coverage_end_date: COVERAGE_END,
          employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' },
        },
      }),
    },
    (b) => b?.coverage_period?.carrier_name === CARRIER,
  )
  const planIds = {}
  for (const [key, plan] of Object.entries(PLANS)) {
    const answer = await expectOk(
      'POST /coverage_periods/{id}/plans',
      `${url}/coverage_periods/${cp.coverage_period.id}/plans`,
      { method: 'POST', headers, body: JSON.stringify({ plan }) },
      (b) => typeof b?.plan?.id === 'string',
    )
    planIds[key] = answer.plan.id
  }
  return { groupId: group.id, locationId, coveragePeriodId: cp.coverage_period.id, planIds }
}

/** Rows through one JSON parameter per batch (jsonb_to_recordset), as members.repo.ts inserts them. */
async function insertRows(client, table, columns, rows) {
  const names = columns.map(([name]) => name).join(', ')
  const record = columns.map(([name, type]) => `${name} ${type}`).join(', ')
  for (let start = 0; start < rows.length; start += SEED_BATCH) {
    await client.query(`insert into ${table} (${names}) select ${names} from jsonb_to_recordset($1::jsonb) as x(${record})`, [JSON.stringify(rows.slice(start, start + SEED_BATCH))])
  }
}

const MEMBER_COLUMNS = [
  ['id', 'uuid'], ['account_id', 'uuid'], ['group_id', 'uuid'], ['subscriber_id', 'uuid'], ['kind', 'text'], ['external_identifier', 'text'],
  ['first_name', 'text'], ['last_name', 'text'], ['birth_date', 'date'], ['gender', 'text'],
  ['ssn_ciphertext', 'text'], ['ssn_key_id', 'text'], ['ssn_hash', 'text'], ['ssn_last_four', 'text'],
  ['marital_status', 'text'], ['subscriber_relationship', 'text'], ['location_id', 'uuid'],
  ['residential_address', 'jsonb'], ['emails', 'jsonb'], ['phone_numbers', 'jsonb'], ['employment_details', 'jsonb'],
]

/**
 * HD05 of a plan the whole family holds, as coverage-timeline.model.ts coverageLevelOf decides it:
 * the subscriber alone, with a spouse only, with one other dependent, with children only, or a
 * spouse and others.
 */
function familyCoverageLevel(relationships) {
  if (relationships.length === 0) return 'employee_only'
  const partners = relationships.filter((r) => r === 'spouse' || r === 'registered_domestic_partner').length
  if (relationships.length === 1) return partners === 1 ? 'employee_and_spouse' : 'employee_and_one_dependent'
  return partners === 0 ? 'employee_and_children' : 'family'
}

/**
 * Members, one initial_enrollment life event per family, its elections, every member's coverages
 * and the coverage spans the service reads them through (coverage_spans: one per member and line,
 * from the plan year's start, open-ended, with the family's level, set by the family's event).
 */
async function seedMembers(families, ids, accountId, uuidv7, ssn) {
  const memberRow = (m, subscriberId) => {
    const sealed = ssn.seal(ssnOf(m.n))
    return {
      id: m.id, account_id: accountId, group_id: ids.groupId, subscriber_id: subscriberId, kind: m.kind, external_identifier: m.external_identifier,
      first_name: m.first_name, last_name: m.last_name, birth_date: m.birth_date, gender: m.gender,
      ssn_ciphertext: sealed.ciphertext, ssn_key_id: sealed.keyId, ssn_hash: sealed.hash, ssn_last_four: sealed.lastFour,
      marital_status: m.marital_status, subscriber_relationship: m.subscriber_relationship, location_id: subscriberId === null ? ids.locationId : null,
      residential_address: m.residential_address, emails: m.emails, phone_numbers: m.phone_numbers, employment_details: m.employment_details,
    }
  }
  const subscribers = families.map((f) => memberRow(f.sub, null))
  const dependents = families.flatMap((f) => f.deps.map((d) => memberRow(d, f.sub.id)))
  const events = []
  const elections = []
  const coverages = []
  const spans = []
  for (const f of families) {
    const eventId = uuidv7()
    const level = familyCoverageLevel(f.deps.map((d) => d.subscriber_relationship))
    events.push({ id: eventId, account_id: accountId, subscriber_id: f.sub.id, coverage_period_id: ids.coveragePeriodId, event: 'initial_enrollment', date: COVERAGE_START, eligibility_start_date: COVERAGE_START })
    for (const key of f.planKeys) {
      const electionId = uuidv7()
      elections.push({ id: electionId, account_id: accountId, qualifying_life_event_id: eventId, election_key: key, type: 'election', plan_id: ids.planIds[key] })
      for (const m of [f.sub, ...f.deps]) {
        coverages.push({ id: uuidv7(), account_id: accountId, plan_election_id: electionId, plan_id: ids.planIds[key], member_id: m.id, start_date: COVERAGE_START, end_date: null, status: 'employer_sponsored' })
        spans.push({
          id: uuidv7(), account_id: accountId, subscriber_id: f.sub.id, member_id: m.id, line: key, plan_id: ids.planIds[key], coverage_period_id: ids.coveragePeriodId,
          start_date: COVERAGE_START, end_date: null, status: 'employer_sponsored', volume: null, coverage_level: level, qualifying_life_event_id: eventId,
        })
      }
    }
  }
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  try {
    await client.query('begin')
    await insertRows(client, 'members', MEMBER_COLUMNS, subscribers)
    await insertRows(client, 'members', MEMBER_COLUMNS, dependents)
    await insertRows(client, 'qualifying_life_events', [['id', 'uuid'], ['account_id', 'uuid'], ['subscriber_id', 'uuid'], ['coverage_period_id', 'uuid'], ['event', 'text'], ['date', 'date'], ['eligibility_start_date', 'date']], events)
    await insertRows(client, 'plan_elections', [['id', 'uuid'], ['account_id', 'uuid'], ['qualifying_life_event_id', 'uuid'], ['election_key', 'text'], ['type', 'text'], ['plan_id', 'uuid']], elections)
    await insertRows(
      client,
      'coverages',
      [['id', 'uuid'], ['account_id', 'uuid'], ['plan_election_id', 'uuid'], ['plan_id', 'uuid'], ['member_id', 'uuid'], ['start_date', 'date'], ['end_date', 'date'], ['status', 'text']],
      coverages,
    )
    await insertRows(
      client,
      'coverage_spans',
      [
        ['id', 'uuid'], ['account_id', 'uuid'], ['subscriber_id', 'uuid'], ['member_id', 'uuid'], ['line', 'text'], ['plan_id', 'uuid'], ['coverage_period_id', 'uuid'],
        ['start_date', 'date'], ['end_date', 'date'], ['status', 'text'], ['volume', 'bigint'], ['coverage_level', 'text'], ['qualifying_life_event_id', 'uuid'],
      ],
      spans,
    )
    await client.query('commit')
  } catch (error) {
    await client.query('rollback').catch(() => undefined)
    throw error
  } finally {
    await client.end()
  }
  return { subscribers: subscribers.length, dependents: dependents.length, coverages: coverages.length, spans: spans.length }
}

async function vacuumAnalyze() {
  // Autovacuum is off on this server: without it the visibility map stays empty and the
  // planner has no statistics for tables filled in one go.
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  try {
    await client.query('vacuum analyze')
  } finally {
    await client.end()
  }
}

// ---------------------------------------------------------------------------------------------
// Target 1: the full 834.

async function measureFullFile(service, ids, operatorKey, workOrderId, outboundDir) {
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  try {
    const rss = rssSampler(service.child.pid)
    const cpuBefore = cpuSnapshot(service.child.pid)
    const started = performance.now()
    let delivery
    let memory
    let transitionSeconds
    try {
      await expectOk(
        'POST /work_orders/{id}/transitions (submitted)',
        `${service.url}/work_orders/${workOrderId}/transitions`,
        { method: 'POST', headers: { 'service-api-key': operatorKey, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'submitted', message: 'Sent to the carrier (benchmark).' }) },
        (b) => b?.work_order?.status === 'submitted',
      )
      transitionSeconds = (performance.now() - started) / 1000
      const deadline = started + TIMEOUT_SECONDS * 1000
      for (;;) {
        const { rows } = await client.query(
          `select id, status, file_name, byte_size::int8::text as byte_size, sha256, member_count, last_error, attempts from file_deliveries where coverage_period_id = $1 and kind = 'full'`,
          [ids.coveragePeriodId],
        )
        delivery = rows[0]
        if (delivery && delivery.status !== 'pending') break
        if (performance.now() > deadline) throw new Error(`The full file was not sent within ${TIMEOUT_SECONDS} s (delivery: ${JSON.stringify(delivery ?? null)})`)
        if (!isRunning(service.child)) throw new Error(`The service died while building the file; see ${service.logFile}`)
        await delay(POLL_MS)
      }
    } finally {
      memory = rss.stop()
    }
    const seconds = (performance.now() - started) / 1000
    const cpu = cpuDelta(cpuBefore, cpuSnapshot(service.child.pid))
    if (delivery.status !== 'sent') throw new Error(`The full file delivery ended ${delivery.status}: ${delivery.last_error}`)

    // Where the time went: the two jobs' attempts as the worker recorded them.
    const attempts = await client.query(
      `select j.name, a.attempt, a.outcome, extract(epoch from a.finished_at - a.started_at)::float8 as seconds
         from job_attempts a join jobs j on j.id = a.job_id
        where j.payload->>'file_delivery_id' = $1 order by a.started_at`,
      [delivery.id],
    )
    const chunks = await client.query(`select count(*)::int as n from file_delivery_chunks where file_delivery_id = $1`, [delivery.id])
    const transmissions = await client.query(`select count(*)::int as n from coverage_transmissions where file_delivery_id = $1`, [delivery.id])

    // The file the carrier collects: there, complete, the members announced.
    const path = join(outboundDir, CARRIER, delivery.file_name)
    if (!existsSync(path)) throw new Error(`The delivery is sent but ${path} does not exist`)
    const content = readFileSync(path)
    const fileBytes = statSync(path).size
    const fileSha256 = createHash('sha256').update(content).digest('hex')
    let insSegments = 0
    for (let at = content.indexOf('\nINS*'); at !== -1; at = content.indexOf('\nINS*', at + 5)) insSegments++
    return {
      deliveryId: delivery.id,
      fileName: delivery.file_name,
      path,
      seconds,
      transitionRequestSeconds: round(transitionSeconds), // the operator's request alone (opening the delivery in its transaction)
      ...memory,
      fileMb: mb(fileBytes),
      fileIntact: fileBytes === Number(delivery.byte_size) && fileSha256 === delivery.sha256,
      sha256: delivery.sha256,
      memberCount: delivery.member_count,
      insSegments,
      chunks: chunks.rows[0].n,
      coverageTransmissions: transmissions.rows[0].n,
      jobs: attempts.rows.map((r) => ({ job: r.name, attempt: r.attempt, outcome: r.outcome, seconds: round(r.seconds) })),
      serverCpuSeconds: round(cpu.server),
      postgresCpuSeconds: round(cpu.postgres),
      restOfMachineCores: round(cpu.rest / cpu.wall),
    }
  } finally {
    await client.end()
  }
}

// ---------------------------------------------------------------------------------------------
// Target 2: the census. Every value in the carrier's spelling (upper case, MM/DD/YYYY or
// YYYYMMDD, F/M, X12 marital and relationship codes, ZIP+4, "ST" for "Street", "UNIT" for
// "Apt", a formatted phone number, an upper-case email, the plan's external identifier in upper
// case), so only a real difference may raise an error. 1% of the subscribers (every hundredth,
// i % 100 == 50) get one differing parameter, in turn from this list:

const DISCREPANCIES = [
  { parameter: 'birth_date', on: 'subscriber', apply: (c) => (c.birth_date = usDate(shiftDays(c.birth_date_iso, 1))) },
  { parameter: 'gender', on: 'subscriber', apply: (c) => (c.gender = c.gender === 'F' ? 'M' : 'F') },
  { parameter: 'marital_status', on: 'subscriber', apply: (c) => (c.marital_status = c.marital_status === 'M' ? 'D' : 'M') },
  { parameter: 'residential_address', on: 'subscriber', apply: (c) => (c.residential_address.address_line_1 = c.residential_address.address_line_1.replace(/^\d+/, (n) => String(Number(n) + 1000))) },
  { parameter: 'employment_status', on: 'subscriber', apply: (c) => (c.employment_details.status = 'PART TIME') },
  { parameter: 'employment_start_date', on: 'subscriber', apply: (c) => (c.employment_details.start_date = '20090102') },
  { parameter: 'emails', on: 'subscriber', apply: (c) => (c.emails = [{ contact: `OTHER.${c.emails[0].contact}`, type: 'personal' }]) },
  { parameter: 'phone_numbers', on: 'subscriber', apply: (c) => (c.phone_numbers = [{ contact: '(312) 555-0199', type: 'mobile' }]) },
  // Area 7xx is never seeded: the member is then matched by name, birth date and relationship.
  { parameter: 'social_security_number', on: 'subscriber', apply: (c, d) => (c.social_security_number = `7${pad(d % 100, 2)}-${pad(1 + (d % 99), 2)}-${pad(1 + (d % 9999), 4)}`) },
  { parameter: 'plan_start_date', on: 'subscriber', plan: 'medical', apply: (c) => (c.coverages[0].start_date = '02/01/2027') },
  { parameter: 'gender', on: 'dependent', apply: (c) => (c.gender = c.gender === 'F' ? 'M' : 'F') },
  // Matched by SSN and name within the family; the birth date then differs.
  { parameter: 'birth_date', on: 'dependent', apply: (c) => (c.birth_date = compactDate(shiftDays(c.birth_date_iso, -1))) },
]

function shiftDays(iso, days) {
  const date = new Date(`${iso}T00:00:00Z`)
  date.setUTCDate(date.getUTCDate() + days)
  return date.toISOString().slice(0, 10)
}

const dashedSsn = (digits) => `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`
const carrierCoverages = (f) => f.planKeys.map((key) => ({ plan_external_identifier: PLANS[key].external_identifier.toUpperCase(), start_date: usDate(COVERAGE_START) }))

function censusSubscriber(f) {
  const s = f.sub
  const address = s.residential_address
  return {
    carrier_member_id: `AET${pad(s.n, 9)}`,
    first_name: s.first_name.toUpperCase(),
    last_name: s.last_name.toUpperCase(),
    birth_date: usDate(s.birth_date),
    birth_date_iso: s.birth_date, // removed before sending
    gender: s.gender === 'female' ? 'F' : 'M',
    social_security_number: dashedSsn(ssnOf(s.n)),
    marital_status: s.marital_status === 'married' ? 'M' : 'I',
    residential_address: {
      address_line_1: address.address_line_1.replace(/ Street$/, ' ST').toUpperCase(),
      address_line_2: address.address_line_2 ? address.address_line_2.replace(/^Apt /, 'UNIT ') : null,
      city: address.city.toUpperCase(),
      state: address.state,
      zip: `${address.zip}-${pad(f.i % 10_000, 4)}`,
    },
    emails: s.emails.map((e) => ({ contact: e.contact.toUpperCase(), type: e.type })),
    phone_numbers: s.phone_numbers.map((p) => ({ contact: `(${p.contact.slice(0, 3)}) ${p.contact.slice(3, 6)}-${p.contact.slice(6)}`, type: p.type })),
    employment_details: { start_date: compactDate(s.employment_details.start_date), status: 'FULL TIME' },
    coverages: carrierCoverages(f),
    dependents: f.deps.map((d) => ({
      carrier_member_id: `AET${pad(d.n, 9)}`,
      first_name: d.first_name.toUpperCase(),
      last_name: d.last_name.toUpperCase(),
      birth_date: compactDate(d.birth_date),
      birth_date_iso: d.birth_date,
      gender: d.gender === 'female' ? 'F' : 'M',
      social_security_number: ssnOf(d.n),
      subscriber_relationship: d.subscriber_relationship === 'spouse' ? '01' : '19',
      coverages: carrierCoverages(f),
    })),
  }
}

/** The census body (serialised) and the errors it must raise: `${member_id}|${parameter}|${plan_id}`. */
function buildCensus(families, planIds) {
  const expected = new Map()
  const subscribers = families.map((f) => {
    const c = censusSubscriber(f)
    if (f.i % 100 === 50) {
      const d = Math.floor(f.i / 100)
      const discrepancy = DISCREPANCIES[d % DISCREPANCIES.length]
      const target = discrepancy.on === 'subscriber' ? c : c.dependents[0]
      const member = discrepancy.on === 'subscriber' ? f.sub : f.deps[0]
      discrepancy.apply(target, d)
      const planId = discrepancy.plan ? planIds[discrepancy.plan] : ''
      expected.set(`${member.id}|${discrepancy.parameter}|${planId}`, `${discrepancy.on} ${discrepancy.parameter}`)
    }
    delete c.birth_date_iso
    for (const dep of c.dependents) delete dep.birth_date_iso
    if (!CENSUS_CARRIER_IDS) for (const member of [c, ...c.dependents]) delete member.carrier_member_id
    return c
  })
  return { json: JSON.stringify({ census_request: { subscribers } }), expected }
}

/** Waits until the full delivery's carrier.delivery_sent job has succeeded (not measured). */
async function waitForSettledFullFile(deliveryId) {
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  try {
    const deadline = performance.now() + TIMEOUT_SECONDS * 1000
    for (;;) {
      const { rows } = await client.query(
        `select count(*)::int as n from jobs where name = 'carrier.delivery_sent' and payload->>'file_delivery_id' = $1 and status = 'succeeded'`,
        [deliveryId],
      )
      if (rows[0].n > 0) return
      if (performance.now() > deadline) throw new Error(`The full file ${deliveryId} was not settled within ${TIMEOUT_SECONDS} s`)
      await delay(POLL_MS)
    }
  } finally {
    await client.end()
  }
}

async function measureCensus(service, ids, operatorKey, census) {
  const rss = rssSampler(service.child.pid)
  const cpuBefore = cpuSnapshot(service.child.pid)
  const started = performance.now()
  let status
  let text
  let memory
  try {
    const response = await fetch(`${service.url}/coverage_periods/${ids.coveragePeriodId}/census_requests`, {
      method: 'POST',
      headers: { 'service-api-key': operatorKey, 'content-type': 'application/json' },
      body: census.json,
      signal: AbortSignal.timeout(TIMEOUT_SECONDS * 1000),
    })
    status = response.status
    text = await response.text()
  } finally {
    memory = rss.stop()
  }
  const seconds = (performance.now() - started) / 1000
  const cpu = cpuDelta(cpuBefore, cpuSnapshot(service.child.pid))
  if (status !== 201) throw new Error(`POST /coverage_periods/{id}/census_requests answered ${status}: ${text.slice(0, 1000)}`)
  const counters = JSON.parse(text).census_request

  // Exactly the expected errors: none missing, none extra, each of the planted kind.
  const client = new pg.Client({ connectionString: DATABASE_URL })
  await client.connect()
  let rows
  let allErrors
  try {
    ;({ rows } = await client.query(
      `select member_id, discrepancy_parameter, plan_id, discrepancy_kind, status, census_request_id from errors where coverage_period_id = $1 and source = 'reconciliation'`,
      [ids.coveragePeriodId],
    ))
    allErrors = (await client.query(`select count(*)::int as n from errors where coverage_period_id = $1`, [ids.coveragePeriodId])).rows[0].n
  } finally {
    await client.end()
  }
  const found = new Set()
  const unexpected = []
  for (const row of rows) {
    const key = `${row.member_id}|${row.discrepancy_parameter}|${row.plan_id ?? ''}`
    if (census.expected.has(key) && row.discrepancy_kind === 'carrier_value_differs' && row.status === 'unresolved' && row.census_request_id === counters.id) found.add(key)
    else unexpected.push({ member_id: row.member_id, parameter: row.discrepancy_parameter, plan_id: row.plan_id, kind: row.discrepancy_kind, status: row.status })
  }
  const missing = [...census.expected].filter(([key]) => !found.has(key)).map(([key, what]) => ({ member_id: key.split('|')[0], planted: what }))
  return {
    status,
    seconds,
    ...memory,
    requestMb: mb(Buffer.byteLength(census.json)),
    counters: {
      subscriber_count: counters.subscriber_count,
      member_count: counters.member_count,
      matched_count: counters.matched_count,
      discrepancy_count: counters.discrepancy_count,
      errors_created: counters.errors_created,
      errors_reopened: counters.errors_reopened,
      errors_resolved: counters.errors_resolved,
    },
    expectedErrors: census.expected.size,
    reconciliationErrors: rows.length,
    errorsOnCoveragePeriod: allErrors,
    matchedExpected: found.size,
    unexpected: unexpected.slice(0, 10),
    unexpectedCount: unexpected.length,
    missing: missing.slice(0, 10),
    missingCount: missing.length,
    serverCpuSeconds: round(cpu.server),
    postgresCpuSeconds: round(cpu.postgres),
    restOfMachineCores: round(cpu.rest / cpu.wall),
  }
}

// ---------------------------------------------------------------------------------------------
// node-x12 on the same data: each side in its own child process (this script with
// `--x12-side`), reading the coverage period's families from the database exactly as
// file-builder.ts does (pages of 150 through members/enrollment-read-model.js, members composed by
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
    let after = null
    for (;;) {
      const ids = await loader.enrolledSubscriberPage(db, cp.id, after, FAMILY_PAGE)
      if (ids.length === 0) return
      for (const family of await loader.loadFamilies(db, window, ids, { today })) {
        const sendable = { ...family, spans: family.spans.filter((span) => PRODUCT_LINES_ON_834.includes(span.product_line)) }
        yield* fullFileMembers(sendable, context).members
      }
      after = ids[ids.length - 1]
    }
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

function serviceEnv(outboundDir, extra = {}) {
  return {
    DATABASE_URL,
    SSN_ENCRYPTION_KEYS,
    SSN_HASH_KEY,
    OUTBOUND_DIR: outboundDir,
    WORKER: 'in-process',
    WORKER_POLL_MS: '50',
    CENSUS_BODY_LIMIT_BYTES: String(256 * 1024 * 1024),
    ...extra,
  }
}

/**
 * Part 3: the operator completes the work order (the coverage period goes to production), 5% of
 * the families change through the API, then the change file, the check of what the carrier then
 * holds, and the coverage read against the floor.
 */
async function changeFilePart({ ids, accounts, workOrderId, outboundDir, plan, fullFilePath }) {
  // What autovacuum would have done by now (it is off on this server): carrier_views went from
  // empty to one row per member with the full file, and the census rewrote every member.
  await vacuumAnalyze()
  const service = await startService('info', {
    label: 'carrier-changes',
    nodeOptions: env.BENCH_SERVICE_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [],
    extraEnv: serviceEnv(outboundDir, { TRANSACTION_BATCH_DELAY_MS: String(TRANSACTION_BATCH_DELAY_MS) }),
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

function machine(postgres, loadBefore) {
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown'
  return { cpus: os.availableParallelism(), cpuModel, memoryMb: Math.round(os.totalmem() / 1048576), node: process.version, postgres, loadBefore }
}

async function main() {
  const date = new Date().toISOString()
  let busy = await machineBusyCores(1_000)
  for (let waited = 0; busy > 0.25 && waited < 30; waited += 2) {
    console.log(`  the machine is busy elsewhere (${busy.toFixed(2)} cores); waiting ...`)
    busy = await machineBusyCores(2_000)
  }
  const loadBefore = `${busy.toFixed(2)} cores busy (load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`

  const postgres = await recreateDatabase()
  const accounts = await migrateAndCreateAccounts()
  const outboundDir = mkdtempSync(join(os.tmpdir(), 'enrollsync-bench-outbound-'))
  try {
    const service = await startService('info', {
      label: 'carrier',
      nodeOptions: env.BENCH_SERVICE_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [], // e.g. --cpu-prof --cpu-prof-dir=bench/.tmp
      extraEnv: serviceEnv(outboundDir),
    })
    const ids = await createGroupThroughApi(service.url, accounts.partnerKey)

    console.log(`Seeding ${SUBSCRIBERS.toLocaleString('en')} families with SQL ...`)
    const seedStarted = performance.now()
    const { uuidv7 } = await distImport('lib/ids.js')
    const { SsnProtection } = await distImport('lib/ssn-protection.js')
    const families = buildFamilies(SUBSCRIBERS, uuidv7)
    const seeded = await seedMembers(families, ids, accounts.partnerAccountId, uuidv7, SsnProtection.fromConfig(SSN_ENCRYPTION_KEYS, SSN_HASH_KEY))
    const partner = { 'service-api-key': accounts.partnerKey }
    const setup = await expectOk(
      'POST /coverage_periods/{id}/complete_setup',
      `${service.url}/coverage_periods/${ids.coveragePeriodId}/complete_setup`,
      { method: 'POST', headers: partner },
      (b) => b?.work_order?.status === 'open',
    )
    const workOrderId = setup.work_order.id
    await expectOk(
      'POST /work_orders/{id}/transitions (in_progress)',
      `${service.url}/work_orders/${workOrderId}/transitions`,
      { method: 'POST', headers: { 'service-api-key': accounts.operatorKey, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'in_progress', message: 'Checking the set-up (benchmark).' }) },
      (b) => b?.work_order?.status === 'in_progress',
    )
    await expectOk('GET /coverage_periods/{id}', `${service.url}/coverage_periods/${ids.coveragePeriodId}`, { headers: partner }, (b) => b?.coverage_period?.state === 'configuration')
    await vacuumAnalyze()
    const seedSeconds = (performance.now() - seedStarted) / 1000
    console.log(`  ${seeded.subscribers} subscribers, ${seeded.dependents} dependents, ${seeded.coverages} coverages, ${seeded.spans} coverage spans in ${seedSeconds.toFixed(1)} s (SSNs sealed, work order in_progress, vacuum analyze)`)

    console.log(`Target 1: full 834 (work order -> submitted, until the delivery is sent) ...`)
    const file = await measureFullFile(service, ids, accounts.operatorKey, workOrderId, outboundDir)
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
    await waitForSettledFullFile(file.deliveryId)
    const reconciliation = await measureCensus(service, ids, accounts.operatorKey, census)
    console.log(`  answered ${reconciliation.status} in ${reconciliation.seconds.toFixed(2)} s; ${reconciliation.matchedExpected}/${reconciliation.expectedErrors} expected errors found, ${reconciliation.unexpectedCount} unexpected; server RSS ${reconciliation.rssBeforeMb} -> peak ${reconciliation.rssPeakMb} MB`)

    console.log(`Target 5: the full 834 acknowledged (TA1 and 999 generated as sandbox_edi does, then ingested), and a 999 rejecting ${ACK_TARGETS.rejectedLoops.toLocaleString('en')} member loops ...`)
    const acks = await measureAcknowledgements({
      service,
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
    if (!isRunning(service.child)) throw new Error(`The service died during the run; see ${service.logFile}`)
    await stopChild(service.child)
    if (!env.BENCH_KEEP_LOGS) rmSync(service.logFile, { force: true }) // kept when the run breaks
    census.json = null

    // Part 3 (issue 13): the carrier installs the group, 5% of the families change, and the one
    // change file that carries every change is built. A fresh instance whose member changes wait
    // an hour before they are gathered, so that all of them travel in one file whatever the
    // posting takes; the bench then makes that gathering due itself.
    const changes = await changeFilePart({ ids, accounts, workOrderId, outboundDir, plan, fullFilePath: file.path })

    const host = machine(postgres, loadBefore)
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
