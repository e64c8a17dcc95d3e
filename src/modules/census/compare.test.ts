import { describe, expect, it } from 'vitest'
import { compareMembers } from './compare.js'
import type { ComparableCoverage, ComparableEmployment, ComparableMember, MemberMatch, ReconcileOptions } from './reconcile.model.js'

const EMPLOYMENT: ComparableEmployment = {
  start_date: '2020-01-06',
  end_date: '2026-06-30',
  status: 'full_time',
  annual_earnings: 6_500_000,
  earnings_effective_date: '2024-01-01',
  wage_frequency: 'biweekly',
}
const COVERAGE: ComparableCoverage = {
  planId: 'plan-med',
  planReference: 'MED-1',
  startDate: '2027-01-01',
  endDate: '2027-12-31',
  volume: 5_000_000,
  primaryCareProviderNpi: '1234567893',
}

/** A subscriber with every compared item filled in, as the platform holds it. */
function subscriber(key: string, patch: Partial<ComparableMember> = {}): ComparableMember {
  return {
    key,
    kind: 'subscriber',
    subscriberKey: null,
    carrierMemberId: null,
    ssnHash: 'hash-a',
    ssnLastFour: '6789',
    firstName: 'Jane',
    lastName: 'Doe',
    birthDate: '1985-03-14',
    gender: 'female',
    relationship: null,
    maritalStatus: 'married',
    tobaccoUse: false,
    residentialAddress: { address_line_1: '100 Main Street', address_line_2: 'Apt 4', city: 'Springfield', state: 'IL', zip: '62701' },
    emails: ['jane@example.com', 'j.doe@work.example'],
    phoneNumbers: ['5555550123'],
    region: 'North',
    employment: EMPLOYMENT,
    coverages: [COVERAGE],
    ...patch,
  }
}

const pairOf = (platform: ComparableMember, carrier: ComparableMember): MemberMatch => ({
  pairs: [{ platform, carrier, matchedBy: 'carrier_member_id' }],
  platformOnly: [],
  carrierOnly: [],
})

const compare = (platformPatch: Partial<ComparableMember>, carrierPatch: Partial<ComparableMember>, options?: ReconcileOptions) =>
  compareMembers(pairOf(subscriber('m1', platformPatch), subscriber('c1', carrierPatch)), options)

interface ParameterCase {
  parameter: string
  patch: (value: unknown) => Partial<ComparableMember>
  platform: unknown
  /** Carrier spellings of the platform's value. */
  same: unknown[]
  different: unknown
  invalid: unknown
  empty?: unknown
  planId?: string
}

const employment = (field: keyof ComparableEmployment) => (value: unknown) => ({ employment: { ...EMPLOYMENT, [field]: value } })
const coverage = (field: keyof ComparableCoverage) => (value: unknown) => ({ coverages: [{ ...COVERAGE, [field]: value }] })
// The cases put values of the wrong static type on purpose: the census is parsed JSON.
const member = (field: keyof ComparableMember) => (value: unknown) => ({ [field]: value }) as Partial<ComparableMember>

const CASES: ParameterCase[] = [
  { parameter: 'birth_date', patch: member('birthDate'), platform: '1985-03-14', same: ['03/14/1985', '3/14/1985', '19850314', '1985-03-14T00:00:00Z'], different: '1985-03-15', invalid: '31/02/2020' },
  { parameter: 'gender', patch: member('gender'), platform: 'female', same: ['F', 'FEMALE', ' Female '], different: 'M', invalid: 'Z' },
  { parameter: 'marital_status', patch: member('maritalStatus'), platform: 'married', same: ['M', 'MARRIED'], different: 'I', invalid: 'engaged' },
  { parameter: 'earnings_effective_date', patch: employment('earnings_effective_date'), platform: '2024-01-01', same: ['01/01/2024', '20240101'], different: '2024-02-01', invalid: '2024-13-01' },
  { parameter: 'employment_start_date', patch: employment('start_date'), platform: '2020-01-06', same: ['1/6/2020', '20200106'], different: '2020-01-07', invalid: '2020-02-30' },
  { parameter: 'employment_end_date', patch: employment('end_date'), platform: '2026-06-30', same: ['06/30/2026', '2026-06-30T12:00:00Z'], different: '2026-07-31', invalid: 'June' },
  { parameter: 'annual_earnings', patch: employment('annual_earnings'), platform: 6_500_000, same: ['6500000', 6_500_000], different: 6_600_000, invalid: '65000.00' },
  { parameter: 'wage_frequency', patch: employment('wage_frequency'), platform: 'biweekly', same: ['BIWEEKLY', 'Bi-Weekly'], different: 'monthly', invalid: 'fortnightly' },
  { parameter: 'employment_status', patch: employment('status'), platform: 'full_time', same: ['FULL TIME', 'Full-Time'], different: 'part_time', invalid: 'FT' },
  {
    parameter: 'residential_address',
    patch: member('residentialAddress'),
    platform: { address_line_1: '100 Main Street', address_line_2: 'Apt 4', city: 'Springfield', state: 'IL', zip: '62701' },
    same: [
      { address_line_1: '100 MAIN ST.', address_line_2: '#4', city: 'SPRINGFIELD', state: 'il', zip: '62701-1234' },
      { address_line_1: '100 Main St Apt 4', city: 'Springfield', state: 'IL', zip: '627011234' },
    ],
    different: { address_line_1: '102 Main Street', address_line_2: 'Apt 4', city: 'Springfield', state: 'IL', zip: '62701' },
    invalid: { address_line_1: '100 Main Street', city: 'Springfield', state: 'IL', zip: '6270' },
  },
  { parameter: 'tobacco_use', patch: member('tobaccoUse'), platform: false, same: ['N', 'no', 'false', false], different: 'Y', invalid: 'maybe' },
  { parameter: 'region', patch: member('region'), platform: 'North', same: ['NORTH', ' north. '], different: 'South', invalid: { code: 3 } },
  { parameter: 'emails', patch: member('emails'), platform: ['jane@example.com', 'j.doe@work.example'], same: [['J.DOE@WORK.EXAMPLE', 'Jane@Example.com']], different: ['jane@example.com'], invalid: ['jane at example'], empty: [] },
  { parameter: 'phone_numbers', patch: member('phoneNumbers'), platform: ['5555550123'], same: [['(555) 555-0123'], ['1-555-555-0123', '555.555.0123']], different: ['5555550124'], invalid: ['555-0123'], empty: [] },
  { parameter: 'plan_start_date', patch: coverage('startDate'), platform: '2027-01-01', same: ['01/01/2027', '20270101'], different: '2027-02-01', invalid: 'soon', planId: 'plan-med' },
  { parameter: 'plan_end_date', patch: coverage('endDate'), platform: '2027-12-31', same: ['12/31/2027'], different: '2027-06-30', invalid: '2027-12-32', planId: 'plan-med' },
  { parameter: 'plan_volume', patch: coverage('volume'), platform: 5_000_000, same: ['5000000'], different: 6_000_000, invalid: '50000.00', planId: 'plan-med' },
  { parameter: 'primary_care_provider', patch: coverage('primaryCareProviderNpi'), platform: '1234567893', same: ['123-456-7893', ' 1234567893 '], different: '1245319599', invalid: '1234567890', planId: 'plan-med' },
]

describe.each(CASES)('comparing $parameter', ({ parameter, patch, platform, same, different, invalid, empty = null, planId = null }) => {
  const expectOne = (found: ReturnType<typeof compare>, kind: string, carrier: unknown, platformValue: unknown) =>
    expect(found).toEqual([{ memberId: 'm1', censusKey: 'c1', planId, parameter, kind, carrier, platform: platformValue }])

  it('when the carrier spells the same value differently, then there is no discrepancy', () => {
    for (const spelling of same) expect(compare(patch(platform), patch(spelling))).toEqual([])
  })

  it('when the values differ, then there is one carrier_value_differs with both raw values', () => {
    expectOne(compare(patch(platform), patch(different)), 'carrier_value_differs', different, platform)
  })

  it('when the carrier has no value, then carrier_missing shows only the platform value', () => {
    expectOne(compare(patch(platform), patch(empty)), 'carrier_missing', null, platform)
  })

  it('when the platform has no value, then platform_missing shows only the carrier value', () => {
    expectOne(compare(patch(empty), patch(different)), 'platform_missing', different, null)
  })

  it('when the carrier value cannot be read, then value_invalid shows it as sent', () => {
    expectOne(compare(patch(platform), patch(invalid)), 'value_invalid', invalid, platform)
    expectOne(compare(patch(empty), patch(invalid)), 'value_invalid', invalid, null)
  })

  it('when neither side has a value, then there is no discrepancy', () => {
    expect(compare(patch(empty), patch(empty))).toEqual([])
  })
})

describe('comparing social_security_number', () => {
  const ssn = (hash: string | null, lastFour: string | null) => ({ ssnHash: hash, ssnLastFour: lastFour })
  const one = (kind: string, carrier: unknown, platform: unknown) => [
    { memberId: 'm1', censusKey: 'c1', planId: null, parameter: 'social_security_number', kind, carrier, platform },
  ]

  it('when the hashes are equal, then there is no discrepancy', () => {
    expect(compare(ssn('hash-a', '6789'), ssn('hash-a', '6789'))).toEqual([])
  })

  it('when the hashes differ or one side has none, then the values are shown masked, never as hashes', () => {
    expect(compare(ssn('hash-a', '6789'), ssn('hash-b', '1111'))).toEqual(one('carrier_value_differs', '***-**-1111', '***-**-6789'))
    expect(compare(ssn('hash-a', '6789'), ssn(null, null))).toEqual(one('carrier_missing', null, '***-**-6789'))
    expect(compare(ssn(null, null), ssn('hash-b', null))).toEqual(one('platform_missing', '***-**-****', null))
  })
})

describe('comparing members', () => {
  it('when a custom gender mapping is given, then the carrier codes go through it', () => {
    const options = { genderMapping: { '1': 'male', '2': 'female' } } as const
    expect(compare({ gender: 'female' }, { gender: '2' }, options)).toEqual([])
    expect(compare({ gender: 'female' }, { gender: 'F' }, options)).toMatchObject([{ parameter: 'gender', kind: 'value_invalid', carrier: 'F' }])
    // The same spelling on both sides is still read through each side's own mapping.
    expect(compare({ gender: 'F' }, { gender: 'F' }, options)).toMatchObject([{ parameter: 'gender', kind: 'value_invalid', carrier: 'F', platform: 'F' }])
  })

  it('when both sides hold the same unreadable value, then it is value_invalid, not a match', () => {
    const address = { address_line_1: '1 Elm St', address_line_2: null, city: 'Springfield', state: 'Illinois', zip: '62701' }
    expect(compare({ residentialAddress: address }, { residentialAddress: { ...address } })).toMatchObject([{ parameter: 'residential_address', kind: 'value_invalid' }])
    expect(compare({ birthDate: '1990-02-30' }, { birthDate: '1990-02-30' })).toMatchObject([{ parameter: 'birth_date', kind: 'value_invalid' }])
  })

  it('when a matched dependent differs only in subscriber-only items, then nothing is raised for them', () => {
    const platform = subscriber('d1', { kind: 'dependent', subscriberKey: 'm1', relationship: 'child', maritalStatus: null, employment: null, residentialAddress: null, emails: [], phoneNumbers: [], region: null })
    const carrier = subscriber('c1/1', { kind: 'dependent', subscriberKey: 'c1', relationship: '19', gender: 'M' })
    expect(compareMembers(pairOf(platform, carrier))).toMatchObject([{ memberId: 'd1', parameter: 'gender', kind: 'carrier_value_differs' }])
  })

  it('when several items differ, then the output is ordered by member, catalogue parameter order and plan', () => {
    const found = compare({}, { region: 'South', birthDate: '1990-01-01', gender: 'M' })
    expect(found.map((d) => d.parameter)).toEqual(['birth_date', 'gender', 'region'])
  })
})

describe('comparing coverages', () => {
  const dental: ComparableCoverage = { ...COVERAGE, planId: 'plan-den', planReference: 'DEN-1', volume: null, primaryCareProviderNpi: null }
  const where = { memberId: 'm1', censusKey: 'c1' }

  it('when the carrier lacks a plan the platform member has, then coverage carrier_missing names the plan', () => {
    expect(compare({ coverages: [COVERAGE, dental] }, { coverages: [COVERAGE] })).toEqual([
      { ...where, planId: 'plan-den', parameter: 'coverage', kind: 'carrier_missing', carrier: null, platform: { plan: 'DEN-1', start_date: '2027-01-01', end_date: '2027-12-31' } },
    ])
  })

  it('when the carrier has a plan the platform member lacks, then coverage platform_missing names it', () => {
    expect(compare({ coverages: [COVERAGE] }, { coverages: [dental, COVERAGE] })).toMatchObject([
      { ...where, planId: 'plan-den', parameter: 'coverage', kind: 'platform_missing', platform: null, carrier: { plan: 'DEN-1' } },
    ])
  })

  it('when the carrier names a plan that could not be resolved, then plan_id value_invalid shows its reference', () => {
    const unknown = { ...dental, planId: null, planReference: 'VIS-9' }
    expect(compare({}, { coverages: [COVERAGE, unknown] })).toEqual([
      { ...where, planId: null, parameter: 'plan_id', kind: 'value_invalid', carrier: 'VIS-9', platform: null },
    ])
  })

  it('when a plan is held twice (ended, then re-elected), then the spans pair in start-date order', () => {
    const first = { ...dental, startDate: '2026-01-01', endDate: '2026-06-30' }
    const second = { ...dental, startDate: '2026-09-01', endDate: null }
    const carrierFirst = { ...first, startDate: '01/01/2026', endDate: '06/30/2026' }
    expect(compare({ coverages: [first, second] }, { coverages: [second, carrierFirst] })).toEqual([])
    expect(compare({ coverages: [first, second] }, { coverages: [carrierFirst] })).toMatchObject([
      { planId: 'plan-den', parameter: 'coverage', kind: 'carrier_missing', platform: { start_date: '2026-09-01' } },
    ])
  })

  it('when several plans differ, then discrepancies of one parameter are ordered by plan', () => {
    const found = compare({ coverages: [COVERAGE, dental] }, { coverages: [{ ...dental, startDate: '2027-02-01' }, { ...COVERAGE, startDate: '2027-02-01' }] })
    expect(found.map((d) => [d.parameter, d.planId])).toEqual([['plan_start_date', 'plan-den'], ['plan_start_date', 'plan-med']])
  })
})
