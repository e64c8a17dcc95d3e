import fc from 'fast-check'
import { Compile } from 'typebox/compile'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SubscriberResponse } from '../src/modules/members/members.schema.js'
import { dependentBody, insertGroupFixture, ssnFor, subscriberBody, type GroupFixture } from './helpers/member-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

// GET /subscribers/{id} is built by PostgreSQL (src/modules/members/subscriber-document.ts) while
// every other answer comes from presentSubscriber: these tests keep the two identical.

let t: TestApp
let partner: Credential
let fixture: GroupFixture
beforeAll(async () => {
  t = await startTestApp()
  partner = await t.newPartner()
  fixture = await insertGroupFixture(t.db, partner.accountId)
})
afterAll(async () => t?.close())

const checkAnswer = Compile(SubscriberResponse)
// Names with what JSON must escape (quotes, backslashes, control characters) and non-ASCII text.
const name = fc.oneof(fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '' && !s.includes('\u0000')), fc.constantFrom('Zoë', "O'Brien", 'Back\\slash', 'Quote"d', 'Tab\tbed', '李'))
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined })

let counter = 0
const dependent = fc.record({
  first_name: name,
  handicapped: optional(fc.boolean()),
  tobacco_use: optional(fc.boolean()),
  with_ssn: fc.boolean(),
  relationship: fc.constantFrom('child', 'spouse', 'court_ordered_dependent'),
})
const subscriber = fc.record({
  middle_name: optional(name),
  marital_status: optional(fc.constantFrom('single', 'married', 'widowed')),
  tobacco_use: optional(fc.boolean()),
  mailing_address: optional(fc.constant({ address_line_1: 'PO Box 7', address_line_2: 'Suite "B"', city: 'Peoria', state: 'IL', zip: '61602' })),
  with_class: fc.boolean(),
  emails: fc.array(fc.record({ contact: fc.constantFrom('a@example.com', 'b@example.org'), type: fc.constantFrom('personal', 'work') }), { maxLength: 2 }),
  earnings: optional(fc.integer({ min: 0, max: 100_000_000 })),
  dependents: fc.array(dependent, { maxLength: 3 }),
})

function bodyOf(drawn: typeof subscriber extends fc.Arbitrary<infer T> ? T : never) {
  const n = ++counter
  const { class: klass, dependents: _defaults, ...base } = subscriberBody(fixture, n)
  const body: Record<string, unknown> = {
    ...base,
    first_name: drawn.dependents[0]?.first_name ?? base.first_name,
    emails: drawn.emails,
    employment_details: { start_date: '2020-02-01', status: 'full_time', ...(drawn.earnings === undefined ? {} : { annual_earnings: drawn.earnings }) },
    dependents: drawn.dependents.map((d, j) => {
      const { social_security_number, ...rest } = dependentBody(n * 10 + j, { first_name: d.first_name, subscriber_relationship: d.relationship })
      return { ...rest, ...(d.with_ssn ? { social_security_number } : {}), ...(d.handicapped === undefined ? {} : { handicapped: d.handicapped }), ...(d.tobacco_use === undefined ? {} : { tobacco_use: d.tobacco_use }) }
    }),
  }
  if (drawn.with_class) body.class = klass
  for (const key of ['middle_name', 'marital_status', 'tobacco_use', 'mailing_address'] as const) {
    if (drawn[key] === undefined) delete body[key]
    else body[key] = drawn[key]
  }
  if (drawn.marital_status === undefined) delete body.marital_status
  return body
}

describe('GET /subscribers/{id}', () => {
  it('answers exactly what creating the subscriber answered, for any mix of optional fields', async () => {
    await fc.assert(
      fc.asyncProperty(subscriber, async (drawn) => {
        const created = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: bodyOf(drawn) })
        expect(created.statusCode).toBe(201)
        const read = await call(t.app, partner, 'GET', `/subscribers/${created.json().subscriber.id}`)
        expect(read.statusCode).toBe(200)
        expect(read.headers['content-type']).toBe('application/json; charset=utf-8')
        expect(read.headers['cache-control']).toBe('no-store')
        expect(checkAnswer.Check(read.json())).toBe(true)
        expect(read.json()).toEqual(created.json())
      }),
      { numRuns: 40 },
    )
  })

  it('shows an update and a dependent added later, as the presenter does', async () => {
    const created = (await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 900_001) })).json().subscriber
    const { dependents: _d, ...update } = subscriberBody(fixture, 900_001, { first_name: 'Janet', middle_name: 'Q' })
    const updated = await call(t.app, partner, 'PUT', `/subscribers/${created.id}`, { subscriber: update })
    expect(updated.statusCode).toBe(200)
    const added = await call(t.app, partner, 'POST', `/subscribers/${created.id}/dependents`, { dependent: dependentBody(9_000_019, { social_security_number: ssnFor(777) }) })
    expect(added.statusCode).toBe(201)

    const read = (await call(t.app, partner, 'GET', `/subscribers/${created.id}`)).json().subscriber
    expect(read).toEqual({ ...updated.json().subscriber, dependents: [...created.dependents, added.json().dependent] })
    expect(read.social_security_number).toBe(`***-**-${ssnFor(900_001).slice(-4)}`)
  })

  it('is 404 for another account, a dependent id and an unknown id', async () => {
    const other = await t.newPartner()
    const created = (await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 900_002) })).json().subscriber
    for (const [who, id] of [[other, created.id], [partner, created.dependents[0].id], [partner, '0193a4b2-0000-7000-8000-00000000beef']] as const) {
      const res = await call(t.app, who, 'GET', `/subscribers/${id}`)
      expect(res.statusCode).toBe(404)
      expect(res.json().code).toBe('subscriber_not_found')
    }
  })
})
