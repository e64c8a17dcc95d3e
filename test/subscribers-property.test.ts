import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertGroupFixture, subscriberBody, type GroupFixture } from './helpers/member-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
let partner: Credential
let fixture: GroupFixture
beforeAll(async () => {
  t = await startTestApp()
  partner = await t.newPartner()
  fixture = await insertGroupFixture(t.db, partner.accountId)
})
afterAll(async () => t?.close())

const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''))
/** Mostly `good`, now and then `bad`: most bodies break at most one or two rules. */
const rarely = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) => fc.oneof({ weight: 20, arbitrary: good }, { weight: 1, arbitrary: bad })
const anyDate = fc
  .tuple(fc.integer({ min: 1890, max: 2040 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
  .map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`)
const pastDate = fc.date({ min: new Date('1940-01-01'), max: new Date('2025-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
const date = rarely(pastDate, anyDate)
/** Mostly plausible values, sometimes wrong in type or form. */
const junk = fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 12 }), fc.boolean(), fc.constant({}), fc.constant([]))
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 30, arbitrary: arb }, { weight: 1, arbitrary: junk })

const ssn = maybe(rarely(fc.constantFrom('123456789', '234567890', '078051120', '219099999'), fc.oneof(digits(9),  fc.constantFrom('000123456', '666123456', '912345678', '123004567', '123450000'), digits(8))))
const dependent = fc.record(
  {
    external_identifier: maybe(fc.string({ minLength: 1, maxLength: 8 })),
    first_name: maybe(rarely(fc.string({ minLength: 1, maxLength: 10 }), fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }), fc.constantFrom('a\u0000b', '\ud800x', 'x\udc00')))),
    last_name: maybe(fc.string({ minLength: 1, maxLength: 10 })),
    birth_date: maybe(rarely(fc.constant('2010-01-01'), date)),
    gender: maybe(rarely(fc.constantFrom('female', 'male', 'non_binary', 'unknown'), fc.constant('x'))),
    subscriber_relationship: maybe(rarely(fc.constantFrom('spouse', 'registered_domestic_partner', 'court_ordered_dependent', 'child'), fc.constant('pet'))),
    social_security_number: ssn,
    handicapped: maybe(fc.boolean()),
  },
  { requiredKeys: ['external_identifier', 'first_name', 'last_name', 'birth_date', 'gender', 'subscriber_relationship'] },
)

function subscriberArbitrary() {
  const base = subscriberBody(fixture, 0)
  return fc.record(
    {
      external_identifier: maybe(fc.string({ minLength: 1, maxLength: 8 })),
      location_id: maybe(rarely(fc.constant(fixture.locationId), fc.constantFrom('0193a4b2-0000-7000-8000-00000000beef', 'not-a-uuid'))),
      first_name: maybe(rarely(fc.string({ minLength: 1, maxLength: 10 }), fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }), fc.constantFrom('a\u0000b', '\ud800x', 'x\udc00')))),
      last_name: maybe(fc.constant(base.last_name)),
      birth_date: maybe(rarely(fc.constant('1980-05-05'), date)),
      gender: maybe(rarely(fc.constantFrom('female', 'male'), fc.constant('other'))),
      social_security_number: ssn,
      marital_status: maybe(rarely(fc.constantFrom('single', 'married'), fc.constant('engaged'))),
      residential_address: maybe(
        fc.record({
          address_line_1: fc.constant('1 Elm St'),
          city: fc.constant('Springfield'),
          state: rarely(fc.constant('IL'), fc.constantFrom('CA', 'ZZ')),
          zip: rarely(digits(5), digits(4)),
          fips_county_code: rarely(fc.constant('17167'), digits(5)),
        }),
      ),
      class: maybe(fc.record({ employment_classification_id: rarely(fc.constant(fixture.classificationId), fc.constant('0193a4b2-0000-7000-8000-00000000cafe')), effective_date: rarely(fc.constant('2026-01-01'), date) })),
      employment_details: maybe(
        fc.record(
          {
            start_date: rarely(fc.constant('2020-01-01'), date),
            status: maybe(fc.constantFrom('active', 'full_time', 'terminated')),
            end_date: rarely(fc.constant('2030-01-01'), date),
            annual_earnings: maybe(fc.integer({ min: 0, max: 10_000_000 })),
            hours_per_week: maybe(fc.integer({ min: 0, max: 60 })),
          },
          { requiredKeys: ['start_date', 'status'] },
        ),
      ),
      dependents: maybe(fc.array(dependent, { maxLength: 3 })),
    },
    { requiredKeys: ['external_identifier', 'location_id', 'first_name', 'last_name', 'birth_date', 'gender', 'social_security_number', 'residential_address', 'employment_details'] },
  )
}

describe('subscribers, property', () => {
  it('when random subscriber bodies (valid-ish and broken) are posted, then each answers 201 or a 4xx problem, never a 5xx, and never echoes an SSN', async () => {
    const statuses = new Map<number, number>()
    const codes = new Map<string, number>()
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(subscriberArbitrary(), { minLength: 1, maxLength: 3 }), async (single, subscribers) => {
        const body = single ? { subscriber: subscribers[0] } : { subscribers }
        const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, body)
        if (res.statusCode === 422) for (const e of res.json().errors ?? []) codes.set(e.code, (codes.get(e.code) ?? 0) + 1)
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
        expect(res.statusCode, res.body).toBeLessThan(500)
        if (res.statusCode === 201) {
          for (const match of res.body.matchAll(/"social_security_number":"([^"]*)"/g)) expect(match[1]).toMatch(/^\*\*\*-\*\*-\d{4}$/)
        } else {
          expect(res.headers['content-type']).toContain('application/problem+json')
          const sent = JSON.stringify(body).match(/"social_security_number":"(\d{9})"/g) ?? []
          for (const field of sent) expect(res.body).not.toContain(field.slice(-10, -1))
        }
      }),
      { numRuns: 100 },
    )
    // Both outcomes are exercised (the mix is recorded for whoever reads the run).
    console.info('statuses', Object.fromEntries(statuses), 'problem codes', Object.fromEntries(codes))
    expect([...statuses.keys()].some((status) => status >= 400)).toBe(true)
  })
})
