import { describe, expect, it } from 'vitest'
import { matchMembers } from './match.js'
import { reconcile } from './reconcile.js'
import type { ComparableMember, MemberMatch } from './reconcile.model.js'

function person(key: string, patch: Partial<ComparableMember> = {}): ComparableMember {
  return {
    key,
    kind: 'subscriber',
    subscriberKey: null,
    carrierMemberId: null,
    ssnHash: null,
    ssnLastFour: null,
    firstName: 'Jane',
    lastName: 'Doe',
    birthDate: '1985-03-14',
    gender: 'female',
    relationship: null,
    maritalStatus: null,
    tobaccoUse: null,
    residentialAddress: null,
    emails: [],
    phoneNumbers: [],
    region: null,
    employment: null,
    coverages: [],
    ...patch,
  }
}

const child = (key: string, subscriberKey: string, patch: Partial<ComparableMember> = {}) =>
  person(key, { kind: 'dependent', subscriberKey, relationship: 'child', firstName: 'Sam', birthDate: '2015-05-05', ...patch })

/** platform key → [census key, rule], and what is left on each side. */
const summary = (match: MemberMatch) => ({
  pairs: Object.fromEntries(match.pairs.map((pair) => [pair.platform.key, [pair.carrier.key, pair.matchedBy]])),
  platformOnly: match.platformOnly.map((member) => member.key),
  carrierOnly: match.carrierOnly.map((member) => member.key),
})

describe('matching members', () => {
  it('when both sides have the carrier member id, then it matches whatever the names, SSN and birth date', () => {
    const match = matchMembers(
      [person('p1', { carrierMemberId: 'abc123', ssnHash: 'h1' })],
      [person('c1', { carrierMemberId: ' ABC123 ', firstName: 'Janet', ssnHash: 'h9', birthDate: '1990-01-01' })],
    )
    expect(summary(match)).toEqual({ pairs: { p1: ['c1', 'carrier_member_id'] }, platformOnly: [], carrierOnly: [] })
  })

  it('when a weaker rule would pair a member first, then the stronger rule still wins it (passes run rule by rule)', () => {
    const match = matchMembers(
      [person('p1', { carrierMemberId: 'X1' })],
      [person('c-name', {}), person('c-id', { carrierMemberId: 'X1', firstName: 'J' })],
    )
    expect(summary(match)).toEqual({ pairs: { p1: ['c-id', 'carrier_member_id'] }, platformOnly: [], carrierOnly: ['c-name'] })
  })

  it('when the SSN and the birth date (in any spelling) agree, then the member matches despite a different name', () => {
    const match = matchMembers([person('p1', { ssnHash: 'h1' })], [person('c1', { ssnHash: 'h1', firstName: 'JANIE', lastName: 'SMITH', birthDate: '03/14/1985' })])
    expect(summary(match).pairs).toEqual({ p1: ['c1', 'ssn_and_birth_date'] })
  })

  it('when the SSN and name agree but the birth date is mistyped, then they pair and the birth date shows as differing', () => {
    const platform = [person('p1', { ssnHash: 'h1' })]
    const carrier = [person('c1', { ssnHash: 'h1', firstName: 'JANE', birthDate: '1985-04-14' })]
    expect(summary(matchMembers(platform, carrier)).pairs).toEqual({ p1: ['c1', 'ssn_and_name'] })
    expect(reconcile(platform, carrier).discrepancies).toMatchObject([{ parameter: 'birth_date', kind: 'carrier_value_differs', carrier: '1985-04-14' }])
  })

  it('when only the SSN agrees (another name and birth date), then the members are not paired', () => {
    const match = matchMembers([person('p1', { ssnHash: 'h1' })], [person('c1', { ssnHash: 'h1', firstName: 'Bob', birthDate: '1960-01-01' })])
    expect(summary(match)).toEqual({ pairs: {}, platformOnly: ['p1'], carrierOnly: ['c1'] })
  })

  it('when name, birth date and relationship agree (in carrier spellings), then the member matches without SSN or id', () => {
    const platform = [person('p1', { ssnHash: 'h1' }), child('p1-d', 'p1', { relationship: 'spouse', firstName: "D'Arcy", birthDate: '1986-01-01' })]
    const carrier = [person('c1', { firstName: ' JANE ', lastName: 'DOE' }), child('c1-d', 'c1', { relationship: '01', firstName: 'DARCY', birthDate: '19860101' })]
    expect(summary(matchMembers(platform, carrier)).pairs).toEqual({
      p1: ['c1', 'name_birth_date_relationship'],
      'p1-d': ['c1-d', 'name_birth_date_relationship'],
    })
  })

  it('when name and birth date agree but the relationship does not, then the dependents are not paired', () => {
    const platform = [person('p1', { carrierMemberId: 'S' }), child('p1-d', 'p1', { relationship: 'spouse' })]
    const carrier = [person('c1', { carrierMemberId: 'S' }), child('c1-d', 'c1', { relationship: '19' })]
    expect(summary(matchMembers(platform, carrier))).toMatchObject({ platformOnly: ['p1-d'], carrierOnly: ['c1-d'] })
  })

  it('when a carrier files a whole family under one member id, then the id pairs nobody and the family still pairs by name', () => {
    const spouse = (key: string, subscriberKey: string, patch: Partial<ComparableMember> = {}) =>
      child(key, subscriberKey, { relationship: 'spouse', firstName: 'John', birthDate: '1984-02-02', ...patch })
    const platform = [person('p1', { carrierMemberId: 'FAM1' }), spouse('p1-s', 'p1', { carrierMemberId: 'FAM1' }), child('p1-c', 'p1', { carrierMemberId: 'FAM1' })]
    // The carrier lists the child before the spouse: pairing the first holder of the id would cross them.
    const carrier = [person('c1', { carrierMemberId: 'FAM1' }), child('c1-c', 'c1', { carrierMemberId: 'FAM1' }), spouse('c1-s', 'c1', { carrierMemberId: 'FAM1' })]
    expect(summary(matchMembers(platform, carrier)).pairs).toEqual({
      p1: ['c1', 'carrier_member_id'],
      'p1-s': ['c1-s', 'name_birth_date_relationship'],
      'p1-c': ['c1-c', 'name_birth_date_relationship'],
    })
  })

  it('when two families have children named alike, then each child pairs within its own family', () => {
    const platform = [person('pA', { carrierMemberId: 'A' }), person('pB', { carrierMemberId: 'B', firstName: 'Ann' }), child('pA-1', 'pA'), child('pB-1', 'pB')]
    // The carrier lists family B first and its child before either subscriber.
    const carrier = [child('cB-1', 'cB', { gender: 'male' }), person('cB', { carrierMemberId: 'B' }), person('cA', { carrierMemberId: 'A' }), child('cA-1', 'cA')]
    expect(summary(matchMembers(platform, carrier)).pairs).toEqual({
      pA: ['cA', 'carrier_member_id'],
      pB: ['cB', 'carrier_member_id'],
      'pA-1': ['cA-1', 'name_birth_date_relationship'],
      'pB-1': ['cB-1', 'name_birth_date_relationship'],
    })
  })

  it('when a dependent belongs to an unmatched family, then it is not paired even with a strong key', () => {
    const platform = [person('p1', { firstName: 'Ann' }), child('p1-d', 'p1', { ssnHash: 'hd', carrierMemberId: 'D' })]
    const carrier = [person('c1', { firstName: 'Zed' }), child('c1-d', 'c1', { ssnHash: 'hd', carrierMemberId: 'D' })]
    expect(summary(matchMembers(platform, carrier))).toEqual({ pairs: {}, platformOnly: ['p1', 'p1-d'], carrierOnly: ['c1', 'c1-d'] })
  })

  it('when two census members share one platform member key, then the platform member is paired once only', () => {
    const match = matchMembers([person('p1', { ssnHash: 'h1' })], [person('c1', { ssnHash: 'h1' }), person('c2', { ssnHash: 'h1' })])
    expect(summary(match)).toEqual({ pairs: { p1: ['c1', 'ssn_and_birth_date'] }, platformOnly: [], carrierOnly: ['c2'] })
  })

  it('when twins share name and birth date on both sides, then both pair, in order', () => {
    const platform = [person('p1'), child('t1', 'p1'), child('t2', 'p1')]
    const carrier = [person('c1'), child('u1', 'c1'), child('u2', 'c1')]
    expect(summary(matchMembers(platform, carrier))).toMatchObject({ pairs: { t1: ['u1', 'name_birth_date_relationship'], t2: ['u2', 'name_birth_date_relationship'] }, platformOnly: [], carrierOnly: [] })
  })

  it('when a birth date cannot be read, then the rules needing it do not apply', () => {
    const match = matchMembers([person('p1')], [person('c1', { birthDate: '31/02/2020' })])
    expect(summary(match).pairs).toEqual({})
  })
})

describe('members one side lacks', () => {
  const platform = [person('p1', { carrierMemberId: 'S1' }), child('p1-d', 'p1', { firstName: 'Kim' }), person('p2', { firstName: 'Lone' })]
  const carrier = [person('c1', { carrierMemberId: 'S1' }), child('c1-d', 'c1', { firstName: 'Lee', relationship: '19' }), person('c9', { firstName: 'New', lastName: 'Hire' }), child('c9-d', 'c9')]

  it('when each side has members the other lacks, then each raises one subscriber or dependent error on the right member', () => {
    const result = reconcile(platform, carrier)
    expect(result.counts).toEqual({
      matchedSubscribers: 1,
      matchedDependents: 0,
      matchedBy: { carrier_member_id: 1, ssn_and_birth_date: 0, name_birth_date_relationship: 0, ssn_and_name: 0 },
      platformOnly: 2,
      carrierOnly: 3,
    })
    const found = result.discrepancies.map(({ memberId, censusKey, parameter, kind }) => [memberId, censusKey, parameter, kind])
    expect(found).toEqual([
      // The carrier-only dependent of a matched subscriber lands on the platform family.
      ['p1', 'c1-d', 'dependent', 'platform_missing'],
      ['p1-d', null, 'dependent', 'carrier_missing'],
      ['p2', null, 'subscriber', 'carrier_missing'],
      [null, 'c9', 'subscriber', 'platform_missing'],
      [null, 'c9-d', 'dependent', 'platform_missing'],
    ])
  })

  it('when a member is missing, then the values identify it by name and birth date, never by SSN', () => {
    const found = reconcile([person('p2', { ssnHash: 'h', ssnLastFour: '1234', carrierMemberId: 'Z' })], []).discrepancies
    expect(found).toEqual([
      { memberId: 'p2', censusKey: null, planId: null, parameter: 'subscriber', kind: 'carrier_missing', carrier: null, platform: { first_name: 'Jane', last_name: 'Doe', birth_date: '1985-03-14', carrier_member_id: 'Z' } },
    ])
  })
})
