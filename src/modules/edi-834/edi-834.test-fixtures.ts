import type { Edi834Coverage, Edi834Envelope, Edi834Header, Edi834Member } from './edi-834.model.js'

/**
 * Deterministic inputs for the 834 tests and golden files: fixed dates and control numbers, so a
 * regenerated file is byte-for-byte the committed one. The data are invented (SSNs in issuable
 * ranges, NPIs with valid check digits); no real person.
 */

export const ENVELOPE: Edi834Envelope = {
  senderQualifier: 'ZZ',
  senderId: 'ENROLLSYNC',
  receiverQualifier: 'ZZ',
  receiverId: 'ACMEHEALTH',
  applicationSenderCode: 'ENROLLSYNC',
  applicationReceiverCode: 'ACMEHEALTH',
  interchangeControlNumber: 42,
  usage: 'T',
  createdAt: new Date('2025-01-15T14:30:00Z'),
}

export const REPLACE_HEADER: Edi834Header = {
  reference: 'FD-2025-0001',
  action: 'replace',
  masterPolicyNumber: 'GRP778899',
  effectiveDate: '2025-02-01',
  totals: { subscribers: 2, dependents: 3 },
  sponsor: { name: 'Widgets & Sons, Inc.', fein: '123456789', groupExternalIdentifier: 'widgets' },
  payer: { name: 'Acme Health', carrierName: 'acme_health' },
  brokers: [
    { name: 'Brokerage One', nationalProducerNumber: '1234567' },
    { name: 'Second Brokerage', nationalProducerNumber: '7654321' },
  ],
}

const ADDRESS = { address_line_1: '100 Main St', address_line_2: 'Apt 4', city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' }
const MAILING = { address_line_1: 'PO Box 77', address_line_2: null, city: 'Springfield', state: 'IL', zip: '62705', fips_county_code: null }
const PCP_PERSON = { npi: '1234567893', first_name: 'Grace', last_name: 'Hopper', organization_name: null }
const PCP_CLINIC = { npi: '1245319599', first_name: null, last_name: null, organization_name: 'Prairie Family Clinic' }

function coverage(overrides: Partial<Edi834Coverage>): Edi834Coverage {
  return {
    maintenance: 'addition',
    productLine: 'dental',
    productType: null,
    planDescription: 'Dental Base',
    planExternalIdentifier: 'DEN-BASE',
    coverageLevel: 'family',
    startDate: '2025-02-01',
    endDate: null,
    maintenanceEffectiveDate: null,
    volume: null,
    primaryCareProvider: null,
    ...overrides,
  }
}

function member(overrides: Partial<Edi834Member>): Edi834Member {
  return {
    subscriber: false,
    relationship: 'child',
    maintenance: 'addition',
    reason: 'initial_enrollment',
    benefitStatus: 'active',
    cobraQualifyingEvent: null,
    employmentStatus: null,
    handicapped: null,
    subscriberIdentifier: 'EMP-001',
    groupPolicyNumber: null,
    memberId: 'm-0',
    carrierMemberId: null,
    employmentStartDate: null,
    employmentEndDate: null,
    cobraStartDate: null,
    eligibilityStartDate: null,
    eligibilityEndDate: null,
    maintenanceEffectiveDate: null,
    firstName: 'Test',
    middleName: null,
    lastName: 'Member',
    ssn: null,
    phone: null,
    email: null,
    residentialAddress: null,
    mailingAddress: null,
    birthDate: '1990-01-01',
    gender: 'unknown',
    maritalStatus: null,
    tobaccoUse: null,
    coverages: [],
    reportingCategories: [],
    ...overrides,
  }
}

/** Family 1: every field set that the model has (subscriber, spouse, child). */
export const FULL_FAMILY: readonly Edi834Member[] = [
  member({
    subscriber: true,
    relationship: 'self',
    employmentStatus: 'full_time',
    handicapped: false,
    subscriberIdentifier: 'EMP-001',
    groupPolicyNumber: 'GRP778899',
    memberId: '0194f1a2-0000-7000-8000-000000000001',
    carrierMemberId: 'ACM100200300',
    employmentStartDate: '2019-06-03',
    eligibilityStartDate: '2025-02-01',
    maintenanceEffectiveDate: '2025-02-01',
    firstName: 'Ada',
    middleName: 'K',
    lastName: "O'Neil",
    ssn: '123456789',
    phone: '2175550100',
    email: 'ada.oneil@example.com',
    residentialAddress: ADDRESS,
    mailingAddress: MAILING,
    birthDate: '1985-03-14',
    gender: 'female',
    maritalStatus: 'married',
    tobaccoUse: false,
    coverages: [
      coverage({ productLine: 'medical', productType: null, planDescription: 'Gold PPO 500', planExternalIdentifier: 'MED-GOLD', primaryCareProvider: PCP_PERSON }),
      coverage({}),
      coverage({ productLine: 'life', planDescription: 'Basic Life', planExternalIdentifier: 'LIFE-1X', coverageLevel: 'employee_only', volume: 50000 }),
    ],
    reportingCategories: [
      { name: 'CLASS', value: 'SALARIED' },
      { name: 'LOCATION', value: 'HQ' },
    ],
  }),
  member({
    relationship: 'spouse',
    handicapped: false,
    memberId: '0194f1a2-0000-7000-8000-000000000002',
    firstName: 'Ben',
    lastName: "O'Neil",
    ssn: '234567890',
    residentialAddress: ADDRESS,
    birthDate: '1984-11-02',
    gender: 'male',
    maritalStatus: 'married',
    tobaccoUse: true,
    coverages: [
      coverage({ productLine: 'medical', planDescription: 'Gold PPO 500', planExternalIdentifier: 'MED-GOLD', primaryCareProvider: PCP_PERSON }),
      coverage({}),
    ],
  }),
  member({
    relationship: 'child',
    handicapped: true,
    memberId: '0194f1a2-0000-7000-8000-000000000003',
    firstName: 'Cy',
    lastName: "O'Neil",
    residentialAddress: ADDRESS,
    birthDate: '2015-07-30',
    gender: 'male',
    maritalStatus: 'single',
    coverages: [
      coverage({ productLine: 'medical', planDescription: 'Gold PPO 500', planExternalIdentifier: 'MED-GOLD', primaryCareProvider: PCP_CLINIC }),
      coverage({}),
    ],
  }),
]

/** Family 2: what the model requires and nothing else (subscriber and one child). */
export const MINIMAL_FAMILY: readonly Edi834Member[] = [
  member({
    subscriber: true,
    relationship: 'self',
    subscriberIdentifier: 'EMP-002',
    memberId: '0194f1a2-0000-7000-8000-000000000004',
    firstName: 'Dee',
    lastName: 'Lopez',
    birthDate: '1979-12-31',
    gender: 'female',
    coverages: [coverage({ planDescription: 'Dental Base', coverageLevel: 'employee_and_children' })],
  }),
  member({
    subscriberIdentifier: 'EMP-002',
    memberId: '0194f1a2-0000-7000-8000-000000000005',
    firstName: 'Eli',
    lastName: 'Lopez',
    birthDate: '2012-05-05',
    gender: 'male',
    coverages: [coverage({ planDescription: 'Dental Base', coverageLevel: 'employee_and_children' })],
  }),
]

export const CHANGE_HEADER: Edi834Header = {
  ...REPLACE_HEADER,
  reference: 'FD-2025-0002',
  action: 'change',
  totals: { subscribers: 3, dependents: 0 },
  brokers: [],
}

/** A change file: a new hire added, an address change, and a termination. */
export const CHANGE_MEMBERS: readonly Edi834Member[] = [
  member({
    subscriber: true,
    relationship: 'self',
    employmentStatus: 'full_time',
    subscriberIdentifier: 'EMP-003',
    memberId: '0194f1a2-0000-7000-8000-000000000006',
    employmentStartDate: '2025-03-01',
    firstName: 'Fay',
    lastName: 'Nguyen',
    ssn: '345678901',
    residentialAddress: { ...ADDRESS, address_line_2: null },
    birthDate: '1992-08-19',
    gender: 'female',
    maritalStatus: 'single',
    coverages: [coverage({ productLine: 'medical', planDescription: 'Gold PPO 500', planExternalIdentifier: 'MED-GOLD', coverageLevel: 'employee_only', startDate: '2025-03-01' })],
  }),
  member({
    subscriber: true,
    relationship: 'self',
    maintenance: 'change',
    reason: 'identifying_data',
    employmentStatus: 'full_time',
    subscriberIdentifier: 'EMP-002',
    memberId: '0194f1a2-0000-7000-8000-000000000004',
    maintenanceEffectiveDate: '2025-03-10',
    firstName: 'Dee',
    lastName: 'Lopez',
    residentialAddress: { address_line_1: '9 Elm Ct', address_line_2: null, city: 'Chicago', state: 'IL', zip: '60601', fips_county_code: '17031' },
    birthDate: '1979-12-31',
    gender: 'female',
    coverages: [],
  }),
  member({
    subscriber: true,
    relationship: 'self',
    maintenance: 'termination',
    reason: 'termination_of_employment',
    employmentStatus: 'terminated',
    subscriberIdentifier: 'EMP-004',
    memberId: '0194f1a2-0000-7000-8000-000000000007',
    employmentStartDate: '2020-01-06',
    employmentEndDate: '2025-03-14',
    firstName: 'Gus',
    lastName: 'Ward',
    birthDate: '1970-02-28',
    gender: 'male',
    coverages: [
      coverage({ maintenance: 'termination', productLine: 'medical', planDescription: 'Gold PPO 500', planExternalIdentifier: 'MED-GOLD', coverageLevel: 'employee_only', startDate: '2024-02-01', endDate: '2025-03-31' }),
    ],
  }),
]

/** The builders above, for tests that assemble their own members (defaults: a child added to EMP-001 dental). */
export { coverage as testCoverage, member as testMember }

export const LIFE_EVENT_HEADER: Edi834Header = {
  ...CHANGE_HEADER,
  reference: 'FD-2025-0003',
  totals: { subscribers: 3, dependents: 1 },
}

/**
 * A change file with the life-event fields: an adoption (the subscriber's dental level changes
 * from a date, the child is added), a COBRA continuation, and a termination with employment and
 * eligibility end dates.
 */
export const LIFE_EVENT_MEMBERS: readonly Edi834Member[] = [
  member({
    subscriber: true,
    relationship: 'self',
    maintenance: 'change',
    reason: 'adoption',
    employmentStatus: 'full_time',
    subscriberIdentifier: 'EMP-002',
    memberId: '0194f1a2-0000-7000-8000-000000000004',
    maintenanceEffectiveDate: '2025-04-12',
    firstName: 'Dee',
    lastName: 'Lopez',
    birthDate: '1979-12-31',
    gender: 'female',
    coverages: [
      coverage({ maintenance: 'change', coverageLevel: 'employee_and_children', startDate: '2025-02-01', maintenanceEffectiveDate: '2025-04-12' }),
      coverage({ maintenance: 'change', productLine: 'life', planDescription: 'Basic Life', planExternalIdentifier: 'LIFE-1X', coverageLevel: 'employee_only', startDate: '2025-02-01', maintenanceEffectiveDate: '2025-04-12', volume: 75000 }),
    ],
  }),
  member({
    subscriberIdentifier: 'EMP-002',
    reason: 'adoption',
    memberId: '0194f1a2-0000-7000-8000-000000000008',
    maintenanceEffectiveDate: '2025-04-12',
    firstName: 'Flo',
    lastName: 'Lopez',
    birthDate: '2021-09-09',
    gender: 'female',
    coverages: [coverage({ coverageLevel: 'employee_and_children', startDate: '2025-04-12' })],
  }),
  member({
    subscriber: true,
    relationship: 'self',
    reason: 'cobra',
    benefitStatus: 'cobra',
    cobraQualifyingEvent: 'termination_of_employment',
    employmentStatus: 'terminated',
    subscriberIdentifier: 'EMP-004',
    memberId: '0194f1a2-0000-7000-8000-000000000007',
    employmentEndDate: '2025-03-14',
    cobraStartDate: '2025-04-01',
    firstName: 'Gus',
    lastName: 'Ward',
    birthDate: '1970-02-28',
    gender: 'male',
    coverages: [coverage({ productLine: 'medical', planDescription: 'Gold PPO 500', planExternalIdentifier: 'MED-GOLD', coverageLevel: 'employee_only', startDate: '2025-04-01' })],
  }),
  member({
    subscriber: true,
    relationship: 'self',
    maintenance: 'termination',
    reason: 'termination_of_employment',
    employmentStatus: 'terminated',
    subscriberIdentifier: 'EMP-003',
    memberId: '0194f1a2-0000-7000-8000-000000000006',
    employmentStartDate: '2025-03-01',
    employmentEndDate: '2025-05-09',
    eligibilityEndDate: '2025-05-31',
    maintenanceEffectiveDate: '2025-05-31',
    firstName: 'Fay',
    lastName: 'Nguyen',
    birthDate: '1992-08-19',
    gender: 'female',
    coverages: [
      coverage({ maintenance: 'termination', productLine: 'medical', planDescription: 'Gold PPO 500', planExternalIdentifier: 'MED-GOLD', coverageLevel: 'employee_only', startDate: '2025-03-01', endDate: '2025-05-31' }),
    ],
  }),
]
