import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dependentBody, insertGroupFixture, ssnFor, subscriberBody, type GroupFixture } from './helpers/member-factories.js'
import { call, expectProblem, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

// Two members of one family cannot be one person: a repeated SSN is refused with 422 at the field
// of the member repeating it, and the number itself is never repeated in the answer.

let t: TestApp
let partner: Credential
let fixture: GroupFixture
beforeAll(async () => {
  t = await startTestApp()
  partner = await t.newPartner()
  fixture = await insertGroupFixture(t.db, partner.accountId)
})
afterAll(async () => t?.close())

let next = 1000
/** A family number no other test of this file uses: subscriber SSNs are ssnFor(n), dependents ssnFor(10n + 500000 + j). */
const nextFamily = () => next++

function expectRepeatedSsn(res: LightMyRequestResponse, pointers: string[], ssn: string) {
  expectProblem(res, 422, 'validation_failed')
  const errors = res.json().errors as { pointer: string; code: string }[]
  expect(errors.filter((e) => e.code === 'duplicate_ssn_in_family').map((e) => e.pointer)).toEqual(pointers)
  expect(res.body).not.toContain(ssn)
}

async function createFamily(n: number, overrides: Record<string, unknown> = {}) {
  const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, n, overrides) })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().subscriber as { id: string; dependents: { id: string }[] }
}

const subscriberCount = async () => Number((await call(t.app, partner, 'GET', `/groups/${fixture.groupId}/subscribers?per_page=1`)).headers.total)

describe('one request', () => {
  it('when a dependent repeats the subscriber SSN, or another dependent repeats the first one, then 422 points at each repeating dependent and nothing is stored', async () => {
    const n = nextFamily()
    const shared = ssnFor(n)
    const before = await subscriberCount()
    const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, {
      subscriber: subscriberBody(fixture, n, {
        dependents: [
          dependentBody(10 * n, { social_security_number: shared }),
          dependentBody(10 * n + 1, { subscriber_relationship: 'spouse', birth_date: '1984-01-02', social_security_number: ssnFor(777) }),
          dependentBody(10 * n + 2, { social_security_number: ssnFor(777) }),
        ],
      }),
    })
    expectRepeatedSsn(res, ['/subscriber/dependents/0/social_security_number', '/subscriber/dependents/2/social_security_number'], shared)
    expect(res.json().errors.find((e: { pointer: string }) => e.pointer.endsWith('/2/social_security_number')).detail).toBe(
      'is the SSN of /subscriber/dependents/1 in this request',
    )
    expect(await subscriberCount()).toBe(before)
  })

  it('when a batch holds two families, then the pointer names the family within the batch; the same SSN in two families is not refused', async () => {
    const [a, b] = [nextFamily(), nextFamily()]
    const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, {
      subscribers: [
        subscriberBody(fixture, a, { dependents: [dependentBody(10 * a)] }),
        subscriberBody(fixture, b, { dependents: [dependentBody(10 * b, { social_security_number: ssnFor(b) })] }),
      ],
    })
    expectRepeatedSsn(res, ['/subscribers/1/dependents/0/social_security_number'], ssnFor(b))

    // Two subscribers of one group may share a number (data entry is checked elsewhere): only a family is one household of people.
    const ok = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, {
      subscribers: [subscriberBody(fixture, a, { dependents: [dependentBody(10 * a, { social_security_number: ssnFor(b) })] }), subscriberBody(fixture, b, { dependents: [] })],
    })
    expect(ok.statusCode, ok.body).toBe(201)
  })
})

describe('against the stored family', () => {
  it('when a dependent is added with the SSN of the subscriber or of a stored dependent, then 422 at /dependent/social_security_number; a new number is accepted', async () => {
    const n = nextFamily()
    const family = await createFamily(n)
    const storedDependentSsn = ssnFor(10 * n + 500_000)
    for (const ssn of [ssnFor(n), storedDependentSsn]) {
      const res = await call(t.app, partner, 'POST', `/subscribers/${family.id}/dependents`, { dependent: dependentBody(10 * n + 5, { social_security_number: ssn }) })
      expectRepeatedSsn(res, ['/dependent/social_security_number'], ssn)
      expect(res.json().errors[0].detail).toBe('is the SSN of another member of the family')
    }
    const read = await call(t.app, partner, 'GET', `/subscribers/${family.id}`)
    expect(read.json().subscriber.dependents).toHaveLength(2)

    const added = await call(t.app, partner, 'POST', `/subscribers/${family.id}/dependents`, { dependent: dependentBody(10 * n + 5) })
    expect(added.statusCode, added.body).toBe(201)
    const withoutSsn = await call(t.app, partner, 'POST', `/subscribers/${family.id}/dependents`, { dependent: dependentBody(10 * n + 6, { social_security_number: undefined }) })
    expect(withoutSsn.statusCode, withoutSsn.body).toBe(201)
  })

  it('when a dependent is replaced with another member’s SSN, then 422; with its own SSN again or none, then 200', async () => {
    const n = nextFamily()
    const family = await createFamily(n)
    const [first, second] = family.dependents.map((d) => d.id)
    const firstSsn = ssnFor(10 * n + 500_000)
    const secondSsn = ssnFor(10 * n + 500_001)

    const taken = await call(t.app, partner, 'PUT', `/dependents/${first}`, { dependent: dependentBody(10 * n, { social_security_number: secondSsn }) })
    expectRepeatedSsn(taken, ['/dependent/social_security_number'], secondSsn)
    const subscribers = await call(t.app, partner, 'PUT', `/dependents/${first}`, { dependent: dependentBody(10 * n, { social_security_number: ssnFor(n) }) })
    expectRepeatedSsn(subscribers, ['/dependent/social_security_number'], ssnFor(n))

    const same = await call(t.app, partner, 'PUT', `/dependents/${first}`, { dependent: dependentBody(10 * n, { social_security_number: firstSsn }) })
    expect(same.statusCode, same.body).toBe(200)
    const omitted = await call(t.app, partner, 'PUT', `/dependents/${second}`, {
      dependent: dependentBody(10 * n + 1, { subscriber_relationship: 'spouse', birth_date: '1984-01-02', social_security_number: undefined }),
    })
    expect(omitted.statusCode, omitted.body).toBe(200)
    expect(omitted.json().dependent.social_security_number).toBe(`***-**-${secondSsn.slice(-4)}`)
  })

  it('when the subscriber is replaced with a dependent’s SSN, then 422 at /subscriber/social_security_number and the stored SSN is kept', async () => {
    const n = nextFamily()
    const family = await createFamily(n)
    const dependentSsn = ssnFor(10 * n + 500_001)
    const res = await call(t.app, partner, 'PUT', `/subscribers/${family.id}`, { subscriber: { ...subscriberBody(fixture, n, { social_security_number: dependentSsn }), dependents: undefined } })
    expectRepeatedSsn(res, ['/subscriber/social_security_number'], dependentSsn)
    const read = await call(t.app, partner, 'GET', `/subscribers/${family.id}`)
    expect(read.json().subscriber.social_security_number).toBe(`***-**-${ssnFor(n).slice(-4)}`)

    const own = await call(t.app, partner, 'PUT', `/subscribers/${family.id}`, { subscriber: { ...subscriberBody(fixture, n), dependents: undefined } })
    expect(own.statusCode, own.body).toBe(200)
  })

  it('when two dependents with one new SSN are added at the same time, then exactly one is stored', async () => {
    const n = nextFamily()
    const family = await createFamily(n, { dependents: [] })
    const ssn = ssnFor(n + 40_000)
    const answers = await Promise.all(
      [1, 2].map((j) => call(t.app, partner, 'POST', `/subscribers/${family.id}/dependents`, { dependent: dependentBody(10 * n + j, { social_security_number: ssn }) })),
    )
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 422])
    expect((await call(t.app, partner, 'GET', `/subscribers/${family.id}`)).json().subscriber.dependents).toHaveLength(1)
  })
})
