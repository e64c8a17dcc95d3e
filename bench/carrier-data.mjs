// The carrier benchmarks' data and measured steps, shared by bench/carrier.mjs (50,000 families,
// with node-x12, the acknowledgements and the coverage read) and bench/scale.mjs (the same steps at
// several sizes): one deterministic description of every family, the seeding, the full file
// measured from the operator's `submitted` to `sent`, and the census with its planted
// discrepancies, checked error by error. Each function takes the database it works on: the two
// benches keep databases of their own.
//
// Seeding is not measured: a group, its coverage period and plans through the API (partner key),
// then the members, life events, elections, coverages and coverage spans with SQL
// (jsonb_to_recordset, as the service's own bulk insert does), SSNs sealed with the service's code
// and keys.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { PG_SERVER, SERVICE_DIST, cpuDelta, cpuSnapshot, expectOk, isRunning } from './lib.mjs'
import { rssSampler } from './carrier-changes.mjs'

const env = process.env
// A carrier's census names its own member ids; the first one teaches them to the platform (an
// UPDATE of every matched member). 0 leaves them out, to see what that costs.
export const CENSUS_CARRIER_IDS = env.BENCH_CARRIER_CENSUS_IDS !== '0'
/** Per measured step: the bench gives up, it does not wait forever. */
export const TIMEOUT_SECONDS = Number(env.BENCH_CARRIER_TIMEOUT_SECONDS ?? 600)
export const CARRIER = 'aetna' // edi, built-in catalogue, not a sandbox: nothing runs after the file is sent
export const POLL_MS = 50
const SEED_BATCH = 5_000
const FLOOR_FILLER_USERS = 10_000
// Bench-only keys, given to the service and used to seal the seeded SSNs (the service must open them).
export const SSN_ENCRYPTION_KEYS = `bench-carrier-k1:${Buffer.alloc(32, 7).toString('base64')}`
export const SSN_HASH_KEY = Buffer.alloc(32, 8).toString('base64')
export const COVERAGE_START = '2027-01-01'
export const COVERAGE_END = '2027-12-31'
export const PLANS = {
  medical: { external_identifier: 'med-ppo', description: 'Gold PPO 500', product_line: 'medical', product_type: 'preferred_provider_organization', policy_premium_method: 'list_bill' },
  dental: { external_identifier: 'den-base', description: 'Dental Base', product_line: 'dental', premium_level: 'base', policy_premium_method: 'list_bill' },
  // Nobody is enrolled in it at first: the plan changes of the change-file part move families to it.
  medical_silver: { external_identifier: 'med-ppo-silver', description: 'Silver PPO 1500', product_line: 'medical', product_type: 'preferred_provider_organization', policy_premium_method: 'list_bill' },
}

export const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10
export const round = (x, digits = 2) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : null)
export const distImport = (path) => {
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
export function ssnOf(n) {
  const area = 1 + (Math.floor(n / 9999) % 665)
  return `${pad(area, 3)}${pad(1 + (n % 99), 2)}${pad(1 + (n % 9999), 4)}`
}

/**
 * Subscriber i: dependents by i % 4 (spouse + child, spouse, two children, one child: 1.5 on
 * average, 75,000 for 50,000), medical for every member, dental too for even-numbered families.
 */
export function buildFamilies(count, uuidv7) {
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

export async function recreateCarrierDatabase(dbName) {
  const admin = new pg.Client({ connectionString: `${PG_SERVER}/postgres` })
  await admin.connect().catch((error) => {
    throw new Error(`PostgreSQL does not answer at ${PG_SERVER} (${error.message}); is it running? (pg_isready -h 127.0.0.1)`)
  })
  try {
    const version = (await admin.query('show server_version')).rows[0].server_version
    await admin.query(`drop database if exists ${dbName} with (force)`)
    await admin.query(`create database ${dbName}`)
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
export async function migrateAndCreateAccounts(databaseUrl) {
  const { openDatabase } = await distImport('db/database.js')
  const { migrate } = await distImport('db/migrator.js')
  const { createServices } = await distImport('app.js')
  const { sql } = await import('kysely')
  const handle = await openDatabase({ kind: 'postgres', url: databaseUrl, poolSize: 2 })
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

/**
 * The partner completes the set-up (which opens the work order) and an operator starts checking
 * it: where the benches stand before the operator's "submitted" sends the full file. Answers the
 * work order's id.
 */
export async function openWorkOrderForChecking(url, accounts, coveragePeriodId) {
  const setup = await expectOk(
    'POST /coverage_periods/{id}/complete_setup',
    `${url}/coverage_periods/${coveragePeriodId}/complete_setup`,
    { method: 'POST', headers: { 'service-api-key': accounts.partnerKey } },
    (b) => b?.work_order?.status === 'open',
  )
  const workOrderId = setup.work_order.id
  await expectOk(
    'POST /work_orders/{id}/transitions (in_progress)',
    `${url}/work_orders/${workOrderId}/transitions`,
    { method: 'POST', headers: { 'service-api-key': accounts.operatorKey, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'in_progress', message: 'Checking the set-up (benchmark).' }) },
    (b) => b?.work_order?.status === 'in_progress',
  )
  return workOrderId
}

/** Group (with its primary location and a producer), coverage period and plans, through the API. */
export async function createGroupThroughApi(url, partnerKey, subscribers) {
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
            census: { employees: subscribers, full_time_equivalent_employees: subscribers, eligible_employees: subscribers },
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
export async function seedMembers(databaseUrl, families, ids, accountId, uuidv7, ssn) {
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
  const client = new pg.Client({ connectionString: databaseUrl })
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

export async function vacuumAnalyze(databaseUrl) {
  // Autovacuum is off on this server: without it the visibility map stays empty and the
  // planner has no statistics for tables filled in one go.
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query('vacuum analyze')
  } finally {
    await client.end()
  }
}

// ---------------------------------------------------------------------------------------------
// Target 1: the full 834.

export async function measureFullFile(databaseUrl, service, ids, operatorKey, workOrderId, outboundDir) {
  const client = new pg.Client({ connectionString: databaseUrl })
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
export function buildCensus(families, planIds, { carrierIds = CENSUS_CARRIER_IDS } = {}) {
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
    if (!carrierIds) for (const member of [c, ...c.dependents]) delete member.carrier_member_id
    return c
  })
  return { json: JSON.stringify({ census_request: { subscribers } }), expected }
}

/**
 * Waits until the full delivery's carrier.delivery_sent job has succeeded (not part of the file's
 * time: what follows the sent file). Answers how long that settling took (its attempt, from job_attempts).
 */
export async function waitForSettledFullFile(databaseUrl, deliveryId) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const deadline = performance.now() + TIMEOUT_SECONDS * 1000
    for (;;) {
      const { rows } = await client.query(
        `select extract(epoch from a.finished_at - a.started_at)::float8 as seconds
           from jobs j join job_attempts a on a.job_id = j.id and a.outcome = 'succeeded'
          where j.name = 'carrier.delivery_sent' and j.payload->>'file_delivery_id' = $1 and j.status = 'succeeded'`,
        [deliveryId],
      )
      if (rows.length > 0) return rows[0].seconds
      if (performance.now() > deadline) throw new Error(`The full file ${deliveryId} was not settled within ${TIMEOUT_SECONDS} s`)
      await delay(POLL_MS)
    }
  } finally {
    await client.end()
  }
}

export async function measureCensus(databaseUrl, service, ids, operatorKey, census) {
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
  const client = new pg.Client({ connectionString: databaseUrl })
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

/** The service's environment for these benches: their database and keys, files to `outboundDir`, a worker polling every 50 ms. */
export function serviceEnv(databaseUrl, outboundDir, extra = {}) {
  return {
    DATABASE_URL: databaseUrl,
    SSN_ENCRYPTION_KEYS,
    SSN_HASH_KEY,
    OUTBOUND_DIR: outboundDir,
    WORKER: 'in-process',
    WORKER_POLL_MS: '50',
    CENSUS_BODY_LIMIT_BYTES: String(256 * 1024 * 1024),
    ...extra,
  }
}
