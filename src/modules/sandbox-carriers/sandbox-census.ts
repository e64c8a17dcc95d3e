import { createHash } from 'node:crypto'
import { productFromLineCode } from '../edi-834/edi-834.codes.js'
import type { Edi834Coverage, Edi834Member } from '../edi-834/edi-834.model.js'
import { Edi834Roster, type RosterCoverageInForce, type RosterMember } from '../edi-834/edi-834.roster.js'

/**
 * What a sandbox carrier's census says: its own roster on the census date, as audit records,
 * with its deliberate differences and its own spelling. The differences (chosen once per coverage
 * period from its roster, kept until a file it applies touches that member): the first
 * subscriber's address differs, the second's birth date, and one dependent is missing. Everything
 * else differs only in spelling (upper-case names and street, ZIP+4), which reconciliation must
 * see through; the api sandbox adds its own (sandbox-carrier.ts).
 */

export type DifferenceParameter = 'residential_address' | 'birth_date' | 'dependent'

/** The carrier's member id for one of ours: stable, so every census names the member the same way. */
export const carrierMemberIdOf = (memberId: string) => `SBX-${createHash('sha256').update(memberId).digest('hex').slice(0, 10).toUpperCase()}`

/** The census date: today, kept within the plan year (what a census of the plan year can speak of). */
export function censusDate(cp: { coverage_start_date: string; coverage_end_date: string | null }, today: string): string {
  if (today < cp.coverage_start_date) return cp.coverage_start_date
  if (cp.coverage_end_date !== null && today > cp.coverage_end_date) return cp.coverage_end_date
  return today
}

interface HeldFamily {
  subscriber: RosterMember
  dependents: RosterMember[]
}

/**
 * The roster's families: each subscriber (member id order) with the dependents sent under its
 * REF*0F (member id order). A dependent whose subscriber the carrier does not hold belongs to no
 * family it can report, and is left out.
 */
function familiesOf(members: readonly RosterMember[]): HeldFamily[] {
  const byId = (a: RosterMember, b: RosterMember) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0)
  const dependents = new Map<string, RosterMember[]>()
  for (const member of members) {
    if (member.subscriber) continue
    const list = dependents.get(member.subscriberIdentifier)
    if (list) list.push(member)
    else dependents.set(member.subscriberIdentifier, [member])
  }
  return members
    .filter((m) => m.subscriber)
    .sort(byId)
    .map((subscriber) => ({ subscriber, dependents: [...(dependents.get(subscriber.subscriberIdentifier) ?? [])].sort(byId) }))
}

/** The deliberate differences, chosen from the roster in member id order. */
export function chooseDifferences(members: readonly RosterMember[]): { member_id: string; parameter: DifferenceParameter }[] {
  const families = familiesOf(members)
  const chosen: { member_id: string; parameter: DifferenceParameter }[] = []
  if (families[0]) chosen.push({ member_id: families[0].subscriber.memberId, parameter: 'residential_address' })
  if (families[1]) chosen.push({ member_id: families[1].subscriber.memberId, parameter: 'birth_date' })
  const withDependent = families.slice(2).find((f) => f.dependents.length > 0) ?? families.find((f) => f.dependents.length > 0)
  if (withDependent) chosen.push({ member_id: withDependent.dependents[0]!.memberId, parameter: 'dependent' })
  return chosen
}

const shiftDay = (isoDate: string) => {
  const date = new Date(`${isoDate}T00:00:00Z`)
  date.setUTCDate(date.getUTCDate() + (date.getUTCDate() > 27 ? -1 : 1))
  return date.toISOString().slice(0, 10)
}

function coverageRecord(c: RosterCoverageInForce): Edi834Coverage {
  // HD03 as the roster holds it back to the product words the writer maps (HLT → medical).
  const product = productFromLineCode(c.line) ?? { productLine: c.line, productType: null }
  return {
    maintenance: 'audit',
    productLine: product.productLine,
    productType: product.productType,
    // The carrier does not keep HD04; the plan is named by REF*CE.
    planDescription: c.planCode,
    planExternalIdentifier: c.planCode,
    coverageLevel: c.coverageLevel,
    startDate: c.startDate,
    endDate: c.endDate,
    maintenanceEffectiveDate: null,
    volume: c.volume,
    primaryCareProvider: c.primaryCareProvider ?? null,
  }
}

function auditRecord(member: RosterMember, coverages: readonly RosterCoverageInForce[], differs: ReadonlySet<string>, groupPolicyNumber: string | null): Edi834Member {
  const cobra = coverages.find((c) => c.benefitStatus === 'cobra')
  const address = member.residentialAddress
  return {
    subscriber: member.subscriber,
    relationship: member.relationship,
    maintenance: 'audit',
    reason: 'audit',
    benefitStatus: cobra ? 'cobra' : 'active',
    cobraQualifyingEvent: null,
    employmentStatus: member.employmentStatus,
    handicapped: null,
    subscriberIdentifier: member.subscriberIdentifier,
    groupPolicyNumber,
    memberId: member.memberId,
    carrierMemberId: carrierMemberIdOf(member.memberId),
    employmentStartDate: member.employmentStartDate,
    employmentEndDate: member.employmentEndDate,
    cobraStartDate: cobra?.startDate ?? null,
    eligibilityStartDate: member.eligibilityStartDate,
    eligibilityEndDate: null,
    maintenanceEffectiveDate: null,
    firstName: member.firstName.toUpperCase(),
    middleName: member.middleName,
    lastName: member.lastName.toUpperCase(),
    ssn: member.ssn,
    phone: member.phone,
    email: member.email,
    residentialAddress: address
      ? {
          ...address,
          address_line_1: differs.has('residential_address') ? '1 Carrier Records Way' : address.address_line_1.toUpperCase(),
          city: address.city.toUpperCase(),
          zip: address.zip.length === 5 ? `${address.zip}-0001` : address.zip,
        }
      : null,
    mailingAddress: member.mailingAddress,
    birthDate: differs.has('birth_date') ? shiftDay(member.birthDate) : member.birthDate,
    gender: member.gender,
    maritalStatus: member.maritalStatus,
    tobaccoUse: member.tobaccoUse,
    coverages: coverages.map(coverageRecord),
    reportingCategories: [],
  }
}

/**
 * The census records: every family with coverage in force on `date` (a subscriber whose
 * dependents are covered stays, with no coverage of its own; a dependent with none is left out),
 * subscriber first then its dependents, as an 834 audit file lists them.
 */
export function censusRecords(
  members: readonly RosterMember[],
  date: string,
  differences: ReadonlyMap<string, ReadonlySet<string>>,
  groupPolicyNumber: string | null,
): Edi834Member[] {
  const inForce = new Map(Edi834Roster.fromMembers(members).onDate(date).map((m) => [m.memberId, m.coverages]))
  const none = new Set<string>()
  const records: Edi834Member[] = []
  for (const family of familiesOf(members)) {
    const dependents = family.dependents.filter((d) => inForce.has(d.memberId) && !differences.get(d.memberId)?.has('dependent'))
    const own = inForce.get(family.subscriber.memberId) ?? []
    if (own.length === 0 && dependents.length === 0) continue
    records.push(auditRecord(family.subscriber, own, differences.get(family.subscriber.memberId) ?? none, groupPolicyNumber))
    for (const dependent of dependents) records.push(auditRecord(dependent, inForce.get(dependent.memberId)!, differences.get(dependent.memberId) ?? none, groupPolicyNumber))
  }
  return records
}
