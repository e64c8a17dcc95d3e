/**
 * What an 834 file is built from, in the service's own words. The loader (SQL) fills these from
 * the database; the writer maps them to X12 codes. Keeping the two apart lets the writer be a
 * pure function tested against golden files, and lets the loader stream members in batches.
 *
 * Dates are ISO `YYYY-MM-DD` strings; the writer turns them into CCYYMMDD.
 */

/** Interchange and group envelope. Control numbers are allocated per carrier by the caller. */
export interface Edi834Envelope {
  /** ISA05/ISA06: the service's qualifier and id (id at most 15 characters). */
  senderQualifier: string
  senderId: string
  /** ISA07/ISA08: the carrier's qualifier and id. */
  receiverQualifier: string
  receiverId: string
  /** GS02/GS03 application codes (at most 15 characters each). */
  applicationSenderCode: string
  applicationReceiverCode: string
  /** ISA13, 1..999,999,999. GS06 and ST02 are derived from it by the writer unless given. */
  interchangeControlNumber: number
  groupControlNumber?: number
  /** ISA15: P production, T test. */
  usage: 'P' | 'T'
  /** When the file is made: ISA09/ISA10, GS04/GS05, BGN03/BGN04. */
  createdAt: Date
}

/** BGN08: change file, full replacement, or verification (audit) file. */
export type FileAction = 'change' | 'replace' | 'verify'

export interface Edi834Header {
  /** BGN02: the file's own reference (the file delivery id is a good one). */
  reference: string
  action: FileAction
  /** REF*38: the carrier's group (master policy) number, once the carrier gave one. */
  masterPolicyNumber: string | null
  /** DTP*007: file effective date. */
  effectiveDate: string
  /** QTY control totals; the caller counts them before streaming the members. */
  totals: { subscribers: number; dependents: number }
  sponsor: { name: string; fein: string | null; groupExternalIdentifier: string }
  payer: { name: string; carrierName: string }
  /** Up to two producers of record (loop 1000C). */
  brokers: readonly { name: string; nationalProducerNumber: string }[]
}

export type MemberRelationship = 'self' | 'spouse' | 'child' | 'grandchild' | 'registered_domestic_partner' | 'court_ordered_dependent'

/** INS03 / HD01. */
export type MaintenanceType = 'addition' | 'change' | 'termination' | 'reinstatement' | 'audit'

/** INS04: why (initial enrollment, or the qualifying life event's kind). */
export type MaintenanceReason =
  | 'initial_enrollment'
  | 'birth'
  | 'marriage'
  | 'divorce'
  | 'identifying_data'
  | 'benefit_selection'
  | 'termination_of_employment'
  | 'no_reason'
  | 'audit'
  | 'adoption'
  | 'legal_separation'
  | 'death'
  | 'surviving_spouse'
  | 'cobra'
  | 're_enrollment'
  | 'plan_change'

/** INS07: the event that made a member eligible for COBRA continuation (only with INS05 C). */
export type CobraQualifyingEvent = 'termination_of_employment' | 'reduction_of_hours' | 'death' | 'divorce' | 'legal_separation' | 'ineligible_child'

export interface Edi834Address {
  address_line_1: string
  address_line_2?: string | null
  city: string
  state: string
  zip: string
  fips_county_code?: string | null
}

export interface Edi834Provider {
  npi: string
  first_name: string | null
  last_name: string | null
  organization_name: string | null
}

/** One loop 2300: a coverage of the member in one plan. */
export interface Edi834Coverage {
  maintenance: MaintenanceType
  /** The plan's product line and type (api-contract section 3 values). */
  productLine: string
  productType: string | null
  planDescription: string
  /** REF*CE class of contract code: the plan's external identifier, so a census can name the plan back. */
  planExternalIdentifier: string
  /** HD05 coverage level, from the family members on the same plan. */
  coverageLevel: 'employee_only' | 'employee_and_spouse' | 'employee_and_children' | 'family' | 'employee_and_one_dependent' | 'individual'
  startDate: string
  endDate: string | null
  /**
   * DTP*303 in loop 2300: the date a change to this coverage takes effect. Sent on HD*001 loops
   * (a new HD05 coverage level or AMT volume from that date); null writes nothing.
   */
  maintenanceEffectiveDate: string | null
  /** AMT*FK benefit amount (life volume), where the plan carries one (see edi-834.codes.ts). */
  volume: number | null
  /** Loop 2310 primary care provider. */
  primaryCareProvider: Edi834Provider | null
}

/** One loop 2000: a subscriber or a dependent. Subscribers come first, each followed by its dependents. */
export interface Edi834Member {
  subscriber: boolean
  relationship: MemberRelationship
  maintenance: MaintenanceType
  reason: MaintenanceReason
  /** INS05: A active, C COBRA. */
  benefitStatus: 'active' | 'cobra'
  /** INS07: why COBRA continuation applies; null writes nothing (members not on COBRA). */
  cobraQualifyingEvent: CobraQualifyingEvent | null
  /** INS08 for subscribers: the employment status value of the API (full_time, part_time, ...). */
  employmentStatus: string | null
  handicapped: boolean | null
  /** REF*0F: the subscriber's external identifier (also on the dependents' loops). */
  subscriberIdentifier: string
  /** REF*1L: the carrier's group number when known. */
  groupPolicyNumber: string | null
  /** REF*17: this member's id in the service, so a census can point back at it. */
  memberId: string
  /** REF*23: the carrier's own member id, once a census gave one. */
  carrierMemberId: string | null
  employmentStartDate: string | null
  employmentEndDate: string | null
  /** DTP*340 COBRA begin: the first day of COBRA continuation. */
  cobraStartDate: string | null
  /** DTP*356 eligibility begin (the qualifying life event's eligibility start date). */
  eligibilityStartDate: string | null
  /** DTP*357 eligibility end: the last day the member is eligible (terminations). */
  eligibilityEndDate: string | null
  /** DTP*303 maintenance effective date, on change files. */
  maintenanceEffectiveDate: string | null
  firstName: string
  middleName: string | null
  lastName: string
  /** Plain 9 digits, decrypted only for the file; never logged. */
  ssn: string | null
  phone: string | null
  email: string | null
  residentialAddress: Edi834Address | null
  mailingAddress: Edi834Address | null
  birthDate: string
  gender: string
  maritalStatus: string | null
  tobaccoUse: boolean | null
  coverages: readonly Edi834Coverage[]
  /** Loop 2750 reporting categories: class, division, location codes. */
  reportingCategories: readonly { name: string; value: string }[]
}
