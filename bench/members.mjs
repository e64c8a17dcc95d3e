// Issue 3, shared by run.mjs and profile.mjs: a group installed through the API of the service
// under test, the 5,000-subscriber / 7,500-dependent body, the bulk request timed with the
// server's RSS sampled while it runs, and the ids the subscriber-read scenario rotates through.
import { readFileSync } from 'node:fs'
import { expectOk } from './lib.mjs'

export const BULK_SUBSCRIBERS = 5_000
export const BULK_DEPENDENTS = 7_500 // even-numbered subscribers get 2 (spouse, child), odd ones 1 (spouse)
export const READ_IDS = 1_000
const RSS_SAMPLE_MS = 50

function vmRssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024
  } catch {
    return NaN // the process has gone
  }
}

/** Step 1 of the README guide: a group with its primary location, unique per run. Answers their ids. */
export async function createGroup(serviceUrl, apiKey, runTag) {
  const body = {
    group: {
      external_identifier: `bench-${runTag}`,
      insurance_market: 'small_group',
      employer: {
        organization_name: `Bench Widgets ${runTag}`,
        fein: '123456789',
        established_date: '2010-04-01',
        employer_type: 'corporation',
        census: { employees: 5000, full_time_equivalent_employees: 5000, eligible_employees: 5000 },
      },
      group_setup: { carrier_name: 'sandbox_edi' },
      primary_location: {
        external_identifier: 'hq',
        type: 'physical',
        employer_address: { address_line_1: '100 Main St', city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' },
      },
      producers_of_record: [
        {
          first_name: 'Pat',
          last_name: 'Broker',
          national_producer_number: '1234567',
          email: 'pat.broker@example.com',
          signature_date: '2026-10-15',
          commission_split: 100,
          writing_producer: true,
          agency: null,
        },
      ],
    },
  }
  const answer = await expectOk(
    'POST /group_installments',
    `${serviceUrl}/group_installments`,
    { method: 'POST', headers: { 'service-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) },
    (b) => typeof b?.group_installment?.group?.id === 'string' && Array.isArray(b.group_installment.group.locations),
  )
  const group = answer.group_installment.group
  const location = group.locations.find((l) => l.external_identifier === 'hq') ?? group.locations[0]
  if (!location?.id) throw new Error(`POST /group_installments answered no primary location: ${JSON.stringify(group).slice(0, 500)}`)
  return { groupId: group.id, locationId: location.id }
}

/**
 * Member number n of the run (0-based, subscribers and dependents alike) gets a valid SSN:
 * area 001-665 (never 666 or 900-999), group 01-99, serial 0001-9999, all distinct in the body.
 */
function ssn(n, areaOffset) {
  const area = 1 + ((areaOffset + Math.floor(n / 9999)) % 665)
  const group = 1 + (n % 99)
  const serial = 1 + (n % 9999)
  return `${String(area).padStart(3, '0')}${String(group).padStart(2, '0')}${String(serial).padStart(4, '0')}`
}

const isoDate = (year, n) => `${year}-${String(1 + (n % 12)).padStart(2, '0')}-${String(1 + (n % 28)).padStart(2, '0')}`

/** The bulk body: BULK_SUBSCRIBERS subscribers with BULK_DEPENDENTS dependents in all. */
/** A group, its coverage period and one plan, created through the API as a client would (bench:errors, bench:queue). */
export async function createCoveragePeriod(url, apiKey, runTag) {
  const headers = { 'service-api-key': apiKey, 'content-type': 'application/json' }
  const { groupId } = await createGroup(url, apiKey, runTag)
  const cp = await expectOk(
    'POST /groups/{id}/coverage_periods',
    `${url}/groups/${groupId}/coverage_periods`,
    {
      method: 'POST',
      headers,
      body: JSON.stringify({
        coverage_period: {
          external_identifier: `bench-${runTag}`,
          coverage_start_date: '2027-01-01',
          coverage_end_date: '2027-12-31',
          employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' },
        },
      }),
    },
    (b) => typeof b?.coverage_period?.id === 'string',
  )
  const plan = await expectOk(
    'POST /coverage_periods/{id}/plans',
    `${url}/coverage_periods/${cp.coverage_period.id}/plans`,
    {
      method: 'POST',
      headers,
      body: JSON.stringify({
        plan: { external_identifier: 'gold-ppo', description: 'Gold PPO', product_line: 'medical', product_type: 'preferred_provider_organization', policy_premium_method: 'list_bill' },
      }),
    },
    (b) => typeof b?.plan?.id === 'string',
  )
  return { groupId, coveragePeriodId: cp.coverage_period.id, planId: plan.plan.id }
}

export function buildBulkBody(locationId, runTag) {
  const areaOffset = Number.parseInt(runTag.slice(-4), 36) % 600 // SSNs differ between runs as well
  let member = 0
  const subscribers = []
  let dependents = 0
  for (let i = 0; i < BULK_SUBSCRIBERS; i++) {
    const ext = `emp-${runTag}-${String(i).padStart(5, '0')}`
    const deps = [
      {
        external_identifier: `${ext}-spouse`,
        first_name: `Alex${i}`,
        last_name: `Bench${i}`,
        birth_date: isoDate(1960 + (i % 40), i + 3),
        gender: i % 2 === 0 ? 'male' : 'female',
        subscriber_relationship: 'spouse',
        social_security_number: ssn(BULK_SUBSCRIBERS + member++, areaOffset),
      },
    ]
    if (i % 2 === 0) {
      deps.push({
        external_identifier: `${ext}-child`,
        first_name: `Kim${i}`,
        last_name: `Bench${i}`,
        birth_date: isoDate(2005 + (i % 18), i + 7),
        gender: 'unknown',
        subscriber_relationship: 'child',
        social_security_number: ssn(BULK_SUBSCRIBERS + member++, areaOffset),
      })
    }
    dependents += deps.length
    subscribers.push({
      external_identifier: ext,
      location_id: locationId,
      first_name: `Jordan${i}`,
      last_name: `Bench${i}`,
      birth_date: isoDate(1960 + (i % 40), i),
      gender: i % 2 === 0 ? 'female' : 'male',
      social_security_number: ssn(i, areaOffset),
      marital_status: 'married',
      residential_address: { address_line_1: `${100 + i} Main St`, city: 'Springfield', state: 'IL', zip: '62701' },
      emails: [{ contact: `jordan.${i}@bench.example.com`, type: 'personal' }],
      employment_details: { start_date: isoDate(2010 + (i % 15), i), status: 'full_time' },
      dependents: deps,
    })
  }
  if (dependents !== BULK_DEPENDENTS) throw new Error(`bench bug: ${dependents} dependents built, not ${BULK_DEPENDENTS}`)
  return { subscribers }
}

/**
 * Sends the bulk body once over HTTP (fetch, a fresh connection), timing from the send to the
 * last byte of the answer, and samples the server's VmRSS every RSS_SAMPLE_MS meanwhile.
 */
export async function sendBulk(serviceUrl, apiKey, groupId, body, serverPid) {
  const json = JSON.stringify(body) // outside the timed span: the client's cost, not the service's
  const requestBytes = Buffer.byteLength(json)
  const rssBefore = vmRssMb(serverPid)
  let peakRss = rssBefore
  const sampler = setInterval(() => {
    const rss = vmRssMb(serverPid)
    if (rss > peakRss) peakRss = rss
  }, RSS_SAMPLE_MS)
  const started = performance.now()
  let status
  let text
  try {
    const response = await fetch(`${serviceUrl}/groups/${groupId}/subscribers`, {
      method: 'POST',
      headers: { 'service-api-key': apiKey, 'content-type': 'application/json' },
      body: json,
      signal: AbortSignal.timeout(120_000),
    })
    status = response.status
    text = await response.text()
  } finally {
    clearInterval(sampler)
  }
  const seconds = (performance.now() - started) / 1000
  const rssAfter = vmRssMb(serverPid)
  peakRss = Math.max(peakRss, rssAfter)
  let subscribers = []
  try {
    subscribers = JSON.parse(text).subscribers ?? []
  } catch {
    // reported below as a wrong answer
  }
  const dependents = subscribers.reduce((n, s) => n + (s.dependents?.length ?? 0), 0)
  const masked = subscribers.every((s) => /^\*\*\*-\*\*-\d{4}$/.test(s.social_security_number ?? ''))
  return {
    status,
    seconds,
    requestMb: requestBytes / 1024 ** 2,
    responseMb: Buffer.byteLength(text) / 1024 ** 2,
    subscribers: subscribers.length,
    dependents,
    masked,
    rssBeforeMb: rssBefore,
    peakRssMb: peakRss,
    rssAfterMb: rssAfter,
    ids: subscribers.map((s) => s.id),
    errorText: status === 201 ? '' : text.slice(0, 1000),
  }
}

/** READ_IDS ids spread over the created subscribers, every other one with 2 dependents, one with 1. */
export function pickReadIds(ids) {
  const step = Math.max(1, Math.floor(ids.length / READ_IDS))
  const picked = []
  for (let i = 0; i < ids.length && picked.length < READ_IDS; i += step) picked.push(ids[i])
  return picked
}

/** autocannon `requests` that rotate through the ids, one path per request, across all connections. */
export function rotatingRequests(ids) {
  let next = 0
  return [
    {
      method: 'GET',
      setupRequest: (request) => {
        request.path = `/subscribers/${ids[next++ % ids.length]}`
        return request
      },
    },
  ]
}
