import type { DiscrepancyKind, DiscrepancyParameter } from '../errors/discrepancy-messages.js'

/**
 * A member as reconciliation compares it. Both sides are brought into this shape with their raw
 * values (the platform's from the database, the carrier's from the census as sent); the
 * comparison normalises each value before comparing, so equal data never raises an error.
 */
export interface ComparableCoverage {
  /** The platform plan id; on the carrier side, the plan the census named, once resolved (null: unknown plan). */
  planId: string | null
  /** What the carrier called the plan (its external identifier or id), for the error value when unknown. */
  planReference: string
  startDate: string | null
  endDate: string | null
  volume: number | string | null
  /** NPI of the primary care provider on this coverage, if any. */
  primaryCareProviderNpi: string | null
}

export interface ComparableAddress {
  address_line_1?: string | null
  address_line_2?: string | null
  city?: string | null
  state?: string | null
  zip?: string | null
}

export interface ComparableEmployment {
  start_date?: string | null
  end_date?: string | null
  status?: string | null
  annual_earnings?: number | string | null
  earnings_effective_date?: string | null
  wage_frequency?: string | null
}

export interface ComparableMember {
  /** Platform: the member id. Carrier: a stable key within the census ("3" or "3/1" for subscriber 3's first dependent). */
  key: string
  kind: 'subscriber' | 'dependent'
  /** For dependents: the key of their subscriber on the same side. */
  subscriberKey: string | null
  carrierMemberId: string | null
  /** Keyed hash of the SSN (never the SSN itself) and its last four digits for messages. */
  ssnHash: string | null
  ssnLastFour: string | null
  firstName: string
  lastName: string
  birthDate: string | null
  gender: string | null
  /** Dependents: spouse, child, ... ; subscribers: null. The carrier side may send X12 codes (01, 19). */
  relationship: string | null
  maritalStatus: string | null
  tobaccoUse: boolean | string | null
  residentialAddress: ComparableAddress | null
  emails: readonly string[]
  phoneNumbers: readonly string[]
  region: string | null
  employment: ComparableEmployment | null
  coverages: readonly ComparableCoverage[]
}

/** One difference found; the caller turns it into an error through raiseErrors. */
export interface FoundMemberDiscrepancy {
  /** The platform member it concerns; null when the carrier has a member the platform lacks. */
  memberId: string | null
  /** The census member it concerns; null when the carrier lacks the platform's member. */
  censusKey: string | null
  planId: string | null
  parameter: DiscrepancyParameter
  kind: DiscrepancyKind
  /** Values as each side holds them (the SSN only ever as ***-**-1234). */
  carrier: unknown
  platform: unknown
}

/** How a carrier spells genders (its companion guide); keys compared case-insensitively. */
export type GenderMapping = Readonly<Record<string, 'female' | 'male' | 'non_binary' | 'unknown'>>

export interface ReconcileOptions {
  genderMapping?: GenderMapping
}

/** The pairing of census members to platform members, and what is left on each side. */
export interface MemberMatch {
  /** ssn_and_name: the same SSN, name and relationship with different birth dates (a typo; see match.ts). */
  pairs: readonly {
    platform: ComparableMember
    carrier: ComparableMember
    matchedBy: 'carrier_member_id' | 'ssn_and_birth_date' | 'name_birth_date_relationship' | 'ssn_and_name'
  }[]
  platformOnly: readonly ComparableMember[]
  carrierOnly: readonly ComparableMember[]
}
