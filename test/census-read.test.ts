import type { TSchema } from 'typebox'
import { Value } from 'typebox/value'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { maskCensusSsns, stringifyMaskedCensus } from '../src/modules/census/census-ssn.js'
import { CensusRequestSchema, CensusSubscriberSchema } from '../src/modules/census/census.schema.js'
import { insertReadySetup, type ReadySetup } from './helpers/setup-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
let operator: Credential
beforeAll(async () => {
  t = await startTestApp()
  operator = await t.newOperator()
})
afterAll(async () => t?.close())

function expectShape(schema: TSchema, value: unknown) {
  expect([...Value.Errors(schema, value)].map((e) => `${e.instancePath} ${e.message}`)).toEqual([])
}

const at = (second: number) => new Date(Date.UTC(2027, 0, 15, 7, 0, second))

interface Seeded {
  partner: Credential
  setup: ReadySetup
  /** Oldest first: as_of 2027-01-14 (failed), 2027-01-15, 2027-01-15 again. */
  censuses: [string, string, string]
}

async function insertCensus(setup: ReadySetup, values: Record<string, unknown>) {
  const id = uuidv7()
  await t.db
    .insertInto('census_requests')
    .values({
      id,
      account_id: setup.coveragePeriod.account_id,
      coverage_period_id: setup.coveragePeriod.id,
      group_id: setup.group.id,
      format: 'json',
      submitted_by: 'operations key',
      as_of: '2027-01-15',
      status: 'completed',
      content_sha256: 'ab'.repeat(32),
      errors: '[]',
      ...values,
    })
    .execute()
  return id
}

/** What a carrier sends: SSNs in clear, spelt as it likes. */
const carrierSubscriber = (position: number) => ({
  first_name: `Jane${position}`,
  last_name: 'Doe',
  birth_date: '1985-03-14',
  social_security_number: `123-45-${String(6780 + position)}`,
  dependents: [
    { first_name: 'Sam', last_name: 'Doe', birth_date: '2015-06-01', subscriber_relationship: 'child', social_security_number: '987654321' },
    { first_name: 'Kim', last_name: 'Doe', birth_date: '2017-06-01', subscriber_relationship: 'child' },
  ],
})

async function seed(): Promise<Seeded> {
  const partner = await t.newPartner()
  const setup = await insertReadySetup(t.db, partner.accountId)
  const first = await insertCensus(setup, { as_of: '2027-01-14', status: 'failed', errors: JSON.stringify(['line 3: ISA segment missing']), created_at: at(1) })
  const second = await insertCensus(setup, {
    subscriber_count: 3,
    member_count: 9,
    matched_count: 8,
    discrepancy_count: 2,
    errors_created: 1,
    errors_reopened: 1,
    errors_resolved: 3,
    created_at: at(2),
    completed_at: at(4),
  })
  const third = await insertCensus(setup, { created_at: at(3), completed_at: at(5) })
  await t.db
    .insertInto('census_subscribers')
    .values([2, 0, 1].map((position) => ({
      census_request_id: second,
      position,
      matched_subscriber_id: position === 0 ? setup.subscriber.id : null,
      data: JSON.stringify(carrierSubscriber(position)),
    })))
    .execute()
  return { partner, setup, censuses: [first, second, third] }
}

describe('GET /coverage_periods/{id}/census_requests', () => {
  it('when a partner lists the censuses, then they come newest first, in the schema, with pagination headers', async () => {
    const s = await seed()
    const res = await call(t.app, s.partner, 'GET', `/coverage_periods/${s.setup.coveragePeriod.id}/census_requests`)
    expect(res.statusCode, res.body).toBe(200)
    const list = res.json().census_requests
    expect(list.map((c: { id: string }) => c.id)).toEqual([...s.censuses].reverse())
    for (const census of list) expectShape(CensusRequestSchema, census)
    expect(list[2]).toMatchObject({ status: 'failed', as_of: '2027-01-14', errors: ['line 3: ISA segment missing'], completed_at: null })
    expect(res.headers).toMatchObject({ total: '3', 'per-page': '25', page: '1' })
    expect(res.headers.link).toContain('rel="last"')
  })

  it('when as_of is given, then only the censuses produced on that date come', async () => {
    const s = await seed()
    const base = `/coverage_periods/${s.setup.coveragePeriod.id}/census_requests`
    const on15 = await call(t.app, s.partner, 'GET', `${base}?as_of=2027-01-15&per_page=1`)
    expect(on15.statusCode, on15.body).toBe(200)
    expect(on15.json().census_requests.map((c: { id: string }) => c.id)).toEqual([s.censuses[2]])
    expect(on15.headers.total).toBe('2')
    expect(on15.headers.link).toContain('as_of=2027-01-15')
    const none = await call(t.app, s.partner, 'GET', `${base}?as_of=2026-12-31`)
    expect(none.json().census_requests).toEqual([])
  })

  it('when as_of is not a date, then 422 naming the parameter', async () => {
    const s = await seed()
    for (const asOf of ['2027-13-01', '2027-02-30', 'yesterday', '15/01/2027']) {
      const res = await call(t.app, s.partner, 'GET', `/coverage_periods/${s.setup.coveragePeriod.id}/census_requests?as_of=${encodeURIComponent(asOf)}`)
      expect([asOf, res.statusCode]).toEqual([asOf, 422])
      expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ parameter: 'as_of' }] })
    }
  })
})

describe('GET /census_requests/{id}', () => {
  it('when a partner gets a census, then it has what reconciling it did', async () => {
    const s = await seed()
    const res = await call(t.app, s.partner, 'GET', `/census_requests/${s.censuses[1]}`)
    expect(res.statusCode, res.body).toBe(200)
    const census = res.json().census_request
    expectShape(CensusRequestSchema, census)
    expect(census).toEqual({
      id: s.censuses[1],
      coverage_period_id: s.setup.coveragePeriod.id,
      group_id: s.setup.group.id,
      status: 'completed',
      format: 'json',
      as_of: '2027-01-15',
      submitted_by: 'operations key',
      subscriber_count: 3,
      member_count: 9,
      matched_count: 8,
      discrepancy_count: 2,
      errors_created: 1,
      errors_reopened: 1,
      errors_resolved: 3,
      errors: [],
      created_at: at(2).toISOString(),
      completed_at: at(4).toISOString(),
    })
    const missing = await call(t.app, s.partner, 'GET', `/census_requests/${uuidv7()}`)
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'census_request_not_found'])
  })
})

describe('GET /census_requests/{id}/subscribers', () => {
  it('when a partner lists a census\'s subscribers, then they come in census order with every SSN masked', async () => {
    const s = await seed()
    const url = `/census_requests/${s.censuses[1]}/subscribers`
    const res = await call(t.app, s.partner, 'GET', url)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    const list = res.json().subscribers
    for (const item of list) expectShape(CensusSubscriberSchema, item)
    expect(list.map((x: { position: number }) => x.position)).toEqual([0, 1, 2])
    expect(list[0].matched_subscriber_id).toBe(s.setup.subscriber.id)
    expect(list[1].matched_subscriber_id).toBeNull()
    expect(list[0].subscriber).toEqual({
      ...carrierSubscriber(0),
      social_security_number: '***-**-6780',
      dependents: [{ ...carrierSubscriber(0).dependents[0], social_security_number: '***-**-4321' }, carrierSubscriber(0).dependents[1]],
    })
    expect(res.body).not.toMatch(/123-45-678|987654321/)

    const page = await call(t.app, s.partner, 'GET', `${url}?per_page=2&page=2`)
    expect(page.json().subscribers.map((x: { position: number }) => x.position)).toEqual([2])
    expect(page.headers).toMatchObject({ total: '3', 'per-page': '2', page: '2' })
    const tooMany = await call(t.app, s.partner, 'GET', `${url}?per_page=101`)
    expect(tooMany.statusCode).toBe(422)
  })

  it('when the census is unknown, then 404', async () => {
    const s = await seed()
    const res = await call(t.app, s.partner, 'GET', `/census_requests/${uuidv7()}/subscribers`)
    expect([res.statusCode, res.json().code]).toEqual([404, 'census_request_not_found'])
  })
})

describe('tenancy', () => {
  it("when another partner asks for a partner's censuses, then 404 on every endpoint; an operator sees them all", async () => {
    const s = await seed()
    const other = await t.newPartner('Other partner')
    const cases: Array<[string, string]> = [
      [`/coverage_periods/${s.setup.coveragePeriod.id}/census_requests`, 'coverage_period_not_found'],
      [`/census_requests/${s.censuses[1]}`, 'census_request_not_found'],
      [`/census_requests/${s.censuses[1]}/subscribers`, 'census_request_not_found'],
    ]
    for (const [url, code] of cases) {
      const denied = await call(t.app, other, 'GET', url)
      expect([url, denied.statusCode, denied.json().code]).toEqual([url, 404, code])
      const seen = await call(t.app, operator, 'GET', url)
      expect([url, seen.statusCode]).toEqual([url, 200])
    }
    const operatorList = await call(t.app, operator, 'GET', `/coverage_periods/${s.setup.coveragePeriod.id}/census_requests`)
    expect(operatorList.json().census_requests).toHaveLength(3)
  })
})

describe('maskCensusSsns', () => {
  it('when a census subscriber holds SSNs at the top, in dependents or deeper, then each is masked to its last four digits', () => {
    const input = {
      social_security_number: '123456789',
      first_name: 'Jane',
      dependents: [{ social_security_number: '987-65-4321' }, { social_security_number: null }, { first_name: 'Kim' }],
      other: { nested: [{ social_security_number: 111223333 }] },
    }
    const copy = structuredClone(input)
    expect(maskCensusSsns(input)).toEqual({
      social_security_number: '***-**-6789',
      first_name: 'Jane',
      dependents: [{ social_security_number: '***-**-4321' }, { social_security_number: null }, { first_name: 'Kim' }],
      other: { nested: [{ social_security_number: '***-**-3333' }] },
    })
    expect(input).toEqual(copy)
  })

  it('when an SSN has fewer than four digits or is not text, then nothing of it is shown', () => {
    expect(maskCensusSsns({ social_security_number: '12' })).toEqual({ social_security_number: '***-**-****' })
    expect(maskCensusSsns({ social_security_number: { digits: '123456789' } })).toEqual({ social_security_number: '***-**-****' })
    expect(maskCensusSsns({ social_security_number: '***-**-1234' })).toEqual({ social_security_number: '***-**-1234' })
    expect(maskCensusSsns('plain')).toBe('plain')
  })
})

describe('stringifyMaskedCensus', () => {
  it('when a census subscriber is stored, then its text is the masked copy as JSON, with no SSN digit but the last four', () => {
    const shapes: unknown[] = [
      { social_security_number: '123456789', first_name: 'Jane', dependents: [{ social_security_number: '987-65-4321' }, { social_security_number: null }, { first_name: 'Kim' }], other: { nested: [{ social_security_number: 111223333 }] } },
      { social_security_number: { digits: '123456789' }, '0': 'first', zip: 2134 },
      { social_security_number: '12' },
      'plain',
      [{ social_security_number: '123-45-6789' }],
    ]
    for (const shape of shapes) {
      const text = stringifyMaskedCensus(shape)
      expect(text).toBe(JSON.stringify(maskCensusSsns(shape)))
      expect(text).not.toMatch(/12345|98765|11122/)
    }
  })
})
