import type { DiscrepancyParameter } from '../errors/discrepancy-messages.js'
import type { LoadedFamily, LoadedMember } from '../members/index.js'
import type { CensusDependentInputT, CensusSubscriberInputT } from './census-input.schema.js'
import type { MatchIdentity } from './match.js'
import type { ComparableCoverage, ComparableMember } from './reconcile.model.js'

/**
 * Both sides of a reconciliation brought into the comparable shape: the platform's families as
 * loaded for the carrier files, and the census as the carrier sent it.
 */

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value))

function platformMember(family: LoadedFamily, member: LoadedMember): ComparableMember {
  const subscriber = member.kind === 'subscriber'
  const employment = subscriber ? member.employment_details : null
  const region = family.subscriber.classification?.type === 'region' ? family.subscriber.classification.code : null
  const coverages: ComparableCoverage[] = family.coverages
    .filter((c) => c.member_id === member.id)
    .map((c) => ({
      planId: c.plan_id,
      planReference: c.plan_external_identifier,
      startDate: c.start_date,
      endDate: c.end_date,
      volume: c.volume,
      primaryCareProviderNpi: c.pcp?.npi ?? null,
    }))
  return {
    key: member.id,
    kind: member.kind,
    subscriberKey: member.subscriber_id,
    carrierMemberId: member.carrier_member_id,
    ssnHash: member.ssn_hash,
    ssnLastFour: member.ssn_last_four,
    firstName: member.first_name,
    lastName: member.last_name,
    birthDate: member.birth_date,
    gender: member.gender,
    relationship: subscriber ? null : member.subscriber_relationship,
    maritalStatus: subscriber ? member.marital_status : null,
    tobaccoUse: member.tobacco_use,
    residentialAddress: subscriber ? member.residential_address : null,
    emails: subscriber ? (member.emails ?? []).map((e) => e.contact) : [],
    phoneNumbers: subscriber ? (member.phone_numbers ?? []).map((p) => p.contact) : [],
    region: subscriber ? region : null,
    employment: employment
      ? {
          start_date: text(employment.start_date),
          end_date: text(employment.end_date),
          status: text(employment.status),
          annual_earnings: (employment.annual_earnings as number | undefined) ?? null,
          earnings_effective_date: text(employment.earnings_effective_date),
          wage_frequency: text(employment.wage_frequency),
        }
      : null,
    coverages,
  }
}

export function platformMembers(families: readonly LoadedFamily[]): ComparableMember[] {
  return families.flatMap((family) => [family.subscriber, ...family.dependents].map((member) => platformMember(family, member)))
}

/** Plans of the coverage period by id and by external identifier: a census may name either. */
export type PlanResolver = (reference: string) => string | null

export interface CensusSide {
  members: ComparableMember[]
  /** Per census member key, the parameters its record carries at all (see `carriedParameters`). */
  carried: Map<string, ReadonlySet<DiscrepancyParameter>>
}

const has = (record: object, key: string) => Object.prototype.hasOwnProperty.call(record, key)

const DIRECT: readonly [string, DiscrepancyParameter][] = [
  ['birth_date', 'birth_date'],
  ['gender', 'gender'],
  ['marital_status', 'marital_status'],
  ['social_security_number', 'social_security_number'],
  ['tobacco_use', 'tobacco_use'],
  ['residential_address', 'residential_address'],
  ['emails', 'emails'],
  ['phone_numbers', 'phone_numbers'],
  ['region', 'region'],
]
const EMPLOYMENT: readonly [string, DiscrepancyParameter][] = [
  ['start_date', 'employment_start_date'],
  ['end_date', 'employment_end_date'],
  ['status', 'employment_status'],
  ['annual_earnings', 'annual_earnings'],
  ['earnings_effective_date', 'earnings_effective_date'],
  ['wage_frequency', 'wage_frequency'],
]
const COVERAGE_PARAMETERS = ['coverage', 'plan_id', 'plan_start_date', 'plan_end_date'] as const

/**
 * The sets already made, by which fields a record has (a bit each): a census's members have few
 * shapes between them, and a set per member was a large share of a census's garbage.
 */
const carriedByShape = new Map<number, ReadonlySet<DiscrepancyParameter>>()

/**
 * The parameters a census record speaks about. A field the carrier's format does not carry (an
 * 834 has no annual earnings) says nothing: "the carrier lacks it" is raised only for fields the
 * record carries and leaves empty. Names, birth date and the member itself always count.
 */
function carriedParameters(record: CensusSubscriberInputT | CensusDependentInputT): ReadonlySet<DiscrepancyParameter> {
  let shape = 0
  let bit = 1
  for (const [key] of DIRECT) {
    if (has(record, key)) shape |= bit
    bit <<= 1
  }
  const employment = (record as CensusSubscriberInputT).employment_details
  for (const [key] of EMPLOYMENT) {
    if (employment && has(employment, key)) shape |= bit
    bit <<= 1
  }
  const coverages = record.coverages
  if (coverages) shape |= bit
  if (coverages?.some((c) => has(c, 'volume'))) shape |= bit << 1
  if (coverages?.some((c) => has(c, 'primary_care_provider'))) shape |= bit << 2

  const known = carriedByShape.get(shape)
  if (known) return known
  const carried = new Set<DiscrepancyParameter>(['subscriber', 'dependent'])
  for (const [key, parameter] of DIRECT) if (has(record, key)) carried.add(parameter)
  if (employment) for (const [key, parameter] of EMPLOYMENT) if (has(employment, key)) carried.add(parameter)
  if (coverages) {
    for (const parameter of COVERAGE_PARAMETERS) carried.add(parameter)
    if (shape & (bit << 1)) carried.add('plan_volume')
    if (shape & (bit << 2)) carried.add('primary_care_provider')
  }
  // Real censuses have a handful of shapes; a census made to have thousands is not cached past this.
  if (carriedByShape.size < 1024) carriedByShape.set(shape, carried)
  return carried
}

function censusCoverages(record: CensusSubscriberInputT | CensusDependentInputT, resolvePlan: PlanResolver): ComparableCoverage[] {
  return (record.coverages ?? []).map((c) => {
    const reference = c.plan_id ?? c.plan_external_identifier ?? ''
    return {
      planId: reference ? resolvePlan(reference) : null,
      planReference: reference,
      startDate: text(c.start_date),
      endDate: text(c.end_date),
      volume: c.volume === undefined || c.volume === null || typeof c.volume === 'boolean' ? null : c.volume,
      primaryCareProviderNpi: text(c.primary_care_provider?.npi),
    }
  })
}

/**
 * The census's members, keyed by position ("3", "3/0" for subscriber 3's first dependent; a
 * batch's positions start at `firstPosition`). SSNs
 * are hashed with the service's key right here and kept only as hash and last four.
 */
function ssnOf(value: string | null | undefined, hashSsn: (digits: string) => string) {
  const digits = (value ?? '').replace(/\D/g, '')
  return digits.length === 9 ? { ssnHash: hashSsn(digits), ssnLastFour: digits.slice(-4) } : { ssnHash: null, ssnLastFour: null }
}

/** What the matching rules read of a census subscriber: all the census's first reading needs (census.service.ts). */
export function censusSubscriberIdentity(subscriber: CensusSubscriberInputT, hashSsn: (digits: string) => string): MatchIdentity {
  return {
    kind: 'subscriber',
    relationship: null,
    carrierMemberId: subscriber.carrier_member_id ?? null,
    ssnHash: ssnOf(subscriber.social_security_number, hashSsn).ssnHash,
    firstName: subscriber.first_name,
    lastName: subscriber.last_name,
    birthDate: text(subscriber.birth_date),
  }
}

export function censusMembers(subscribers: readonly CensusSubscriberInputT[], resolvePlan: PlanResolver, hashSsn: (digits: string) => string, firstPosition = 0): CensusSide {
  const members: ComparableMember[] = []
  const carried = new Map<string, ReadonlySet<DiscrepancyParameter>>()
  subscribers.forEach((subscriber, offset) => {
    const index = firstPosition + offset
    const key = String(index)
    members.push({
      key,
      kind: 'subscriber',
      subscriberKey: null,
      carrierMemberId: subscriber.carrier_member_id ?? null,
      ...ssnOf(subscriber.social_security_number, hashSsn),
      firstName: subscriber.first_name,
      lastName: subscriber.last_name,
      birthDate: text(subscriber.birth_date),
      gender: text(subscriber.gender),
      relationship: null,
      maritalStatus: text(subscriber.marital_status),
      tobaccoUse: subscriber.tobacco_use === undefined || typeof subscriber.tobacco_use === 'number' ? null : subscriber.tobacco_use,
      residentialAddress: subscriber.residential_address
        ? { ...subscriber.residential_address, zip: text(subscriber.residential_address.zip) }
        : null,
      emails: (subscriber.emails ?? []).map((e) => e.contact),
      phoneNumbers: (subscriber.phone_numbers ?? []).map((p) => p.contact),
      region: subscriber.region ?? null,
      employment: subscriber.employment_details
        ? {
            start_date: text(subscriber.employment_details.start_date),
            end_date: text(subscriber.employment_details.end_date),
            status: text(subscriber.employment_details.status),
            annual_earnings: typeof subscriber.employment_details.annual_earnings === 'boolean' ? null : (subscriber.employment_details.annual_earnings ?? null),
            earnings_effective_date: text(subscriber.employment_details.earnings_effective_date),
            wage_frequency: text(subscriber.employment_details.wage_frequency),
          }
        : null,
      coverages: censusCoverages(subscriber, resolvePlan),
    })
    carried.set(key, carriedParameters(subscriber))
    ;(subscriber.dependents ?? []).forEach((dependent, j) => {
      const dependentKey = `${index}/${j}`
      members.push({
        key: dependentKey,
        kind: 'dependent',
        subscriberKey: key,
        carrierMemberId: dependent.carrier_member_id ?? null,
        ...ssnOf(dependent.social_security_number, hashSsn),
        firstName: dependent.first_name,
        lastName: dependent.last_name,
        birthDate: text(dependent.birth_date),
        gender: text(dependent.gender),
        relationship: text(dependent.subscriber_relationship),
        maritalStatus: null,
        tobaccoUse: dependent.tobacco_use === undefined || typeof dependent.tobacco_use === 'number' ? null : dependent.tobacco_use,
        residentialAddress: null,
        emails: [],
        phoneNumbers: [],
        region: null,
        employment: null,
        coverages: censusCoverages(dependent, resolvePlan),
      })
      carried.set(dependentKey, carriedParameters(dependent))
    })
  })
  return { members, carried }
}
