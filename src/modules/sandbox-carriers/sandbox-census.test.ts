import { describe, expect, it } from 'vitest'
import type { RosterMember } from '../edi-834/edi-834.roster.js'
import { carrierMemberIdOf, censusDate, censusRecords, chooseDifferences } from './sandbox-census.js'

const member = (o: Partial<RosterMember> & Pick<RosterMember, 'memberId' | 'subscriberIdentifier'>): RosterMember => ({
  subscriber: false,
  relationship: 'child',
  carrierMemberId: null,
  firstName: 'Sam',
  middleName: null,
  lastName: 'Doe',
  ssn: null,
  birthDate: '2015-09-09',
  gender: 'male',
  maritalStatus: null,
  tobaccoUse: null,
  phone: null,
  email: null,
  residentialAddress: null,
  mailingAddress: null,
  employmentStatus: null,
  employmentStartDate: null,
  employmentEndDate: null,
  eligibilityStartDate: null,
  eligibilityEndDate: null,
  cobraQualifyingEvent: null,
  cobraStartDate: null,
  coverages: [{ line: 'HLT', planCode: 'gold', startDate: '2027-01-01', endDate: null, benefitStatus: 'active', terms: [{ from: '2027-01-01', coverageLevel: 'family', volume: null }] }],
  ...o,
})
const subscriber = (memberId: string, emp: string, o: Partial<RosterMember> = {}) =>
  member({
    memberId,
    subscriberIdentifier: emp,
    subscriber: true,
    relationship: 'self',
    firstName: 'Jane',
    birthDate: '1985-06-15',
    gender: 'female',
    residentialAddress: { address_line_1: '12 Elm St', city: 'Springfield', state: 'IL', zip: '62704' },
    ...o,
  })

describe('the sandbox census', () => {
  it('when the roster is listed, then families come in subscriber id order, each subscriber followed by its dependents in id order, in the carrier spelling', () => {
    const records = censusRecords(
      [member({ memberId: 'b-2', subscriberIdentifier: 'E2' }), subscriber('b-1', 'E2'), member({ memberId: 'a-3', subscriberIdentifier: 'E1' }), member({ memberId: 'a-2', subscriberIdentifier: 'E1' }), subscriber('a-1', 'E1')],
      '2027-02-01',
      new Map(),
      'G-1',
    )
    expect(records.map((r) => r.memberId)).toEqual(['a-1', 'a-2', 'a-3', 'b-1', 'b-2'])
    expect(records[0]).toMatchObject({
      maintenance: 'audit',
      firstName: 'JANE',
      carrierMemberId: carrierMemberIdOf('a-1'),
      groupPolicyNumber: 'G-1',
      residentialAddress: { address_line_1: '12 ELM ST', city: 'SPRINGFIELD', zip: '62704-0001' },
      coverages: [{ maintenance: 'audit', productLine: 'medical', planExternalIdentifier: 'gold', coverageLevel: 'family', startDate: '2027-01-01', endDate: null, primaryCareProvider: null }],
    })
  })

  it('when coverage is not in force on the census date, then a dependent without any is left out, a subscriber stays for its covered dependents, and a family with none is left out', () => {
    const ended = [{ line: 'HLT', planCode: 'gold', startDate: '2027-01-01', endDate: '2027-01-31', benefitStatus: 'active' as const, terms: [{ from: '2027-01-01', coverageLevel: 'family' as const, volume: null }] }]
    const records = censusRecords(
      [
        subscriber('a-1', 'E1', { coverages: ended }),
        member({ memberId: 'a-2', subscriberIdentifier: 'E1' }),
        member({ memberId: 'a-3', subscriberIdentifier: 'E1', coverages: ended }),
        subscriber('b-1', 'E2', { coverages: ended }),
        member({ memberId: 'c-2', subscriberIdentifier: 'E-unknown' }),
      ],
      '2027-02-01',
      new Map(),
      null,
    )
    expect(records.map((r) => [r.memberId, r.coverages.length])).toEqual([
      ['a-1', 0],
      ['a-2', 1],
    ])
  })

  it('when differences are kept, then the address and birth date differ and the dependent is missing; they are chosen from the roster in member id order', () => {
    const roster = [subscriber('c-1', 'E3'), member({ memberId: 'c-3', subscriberIdentifier: 'E3' }), member({ memberId: 'c-2', subscriberIdentifier: 'E3' }), subscriber('a-1', 'E1'), subscriber('b-1', 'E2')]
    const chosen = chooseDifferences(roster)
    expect(chosen).toEqual([
      { member_id: 'a-1', parameter: 'residential_address' },
      { member_id: 'b-1', parameter: 'birth_date' },
      { member_id: 'c-2', parameter: 'dependent' },
    ])
    const differences = new Map(chosen.map((c) => [c.member_id, new Set([c.parameter])]))
    const records = censusRecords(roster, '2027-02-01', differences, null)
    expect(records.map((r) => r.memberId)).toEqual(['a-1', 'b-1', 'c-1', 'c-3'])
    expect(records[0]!.residentialAddress?.address_line_1).toBe('1 Carrier Records Way')
    expect(records[1]!.birthDate).toBe('1985-06-16')
    expect(chooseDifferences([])).toEqual([])
  })

  it('when the census date is asked, then it is today kept within the plan year', () => {
    const year = { coverage_start_date: '2027-01-01', coverage_end_date: '2027-12-31' }
    expect([censusDate(year, '2026-11-26'), censusDate(year, '2027-05-05'), censusDate(year, '2028-02-01')]).toEqual(['2027-01-01', '2027-05-05', '2027-12-31'])
    expect(censusDate({ coverage_start_date: '2027-01-01', coverage_end_date: null }, '2030-01-01')).toBe('2030-01-01')
  })
})
