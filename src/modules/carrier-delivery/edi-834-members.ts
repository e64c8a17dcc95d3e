import type { TransactionKind } from '../../db/schema.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import type {
  Edi834Address,
  Edi834Coverage,
  Edi834Member,
  MaintenanceReason,
  MaintenanceType,
  MemberRelationship,
} from '../edi-834/edi-834.model.js'
import type { LoadedCoverage, LoadedFamily, LoadedMember } from './family-loader.js'

/**
 * Turns loaded families into the 834 writer's members: the full file's (every member, every
 * current coverage, as additions for initial enrollment) and a change file's (only the members
 * and coverages the pending transactions touch).
 */

/** What a change file says about one family: its transactions in this delivery. */
export interface FamilyChanges {
  transactions: readonly { id: string; kind: TransactionKind; member_id: string; qualifying_life_event_id: string | null }[]
}

/** One HD loop written, so the delivery can record it as a coverage transmission. */
export interface WrittenCoverage {
  memberId: string
  planId: string
  maintenance: MaintenanceType
  startDate: string
  endDate: string | null
  transactionId: string | null
}

const REASON_OF_EVENT: Record<string, MaintenanceReason> = {
  initial_enrollment: 'initial_enrollment',
  newly_eligible: 'initial_enrollment',
  birth: 'birth',
  marriage: 'marriage',
  divorce: 'divorce',
  termination_of_employment: 'termination_of_employment',
}
const reasonOfEvent = (event: string): MaintenanceReason => REASON_OF_EVENT[event] ?? 'benefit_selection'

function address(value: Record<string, string | null> | null): Edi834Address | null {
  if (!value || !value.address_line_1) return null
  return {
    address_line_1: value.address_line_1,
    address_line_2: value.address_line_2 ?? null,
    city: value.city ?? '',
    state: value.state ?? '',
    zip: value.zip ?? '',
    fips_county_code: value.fips_county_code ?? null,
  }
}

/** HD05 from the family members on the same plan. */
function coverageLevel(family: LoadedFamily, planId: string): Edi834Coverage['coverageLevel'] {
  const onPlan = new Set(family.coverages.filter((c) => c.plan_id === planId).map((c) => c.member_id))
  const covered = family.dependents.filter((d) => onPlan.has(d.id))
  if (!onPlan.has(family.subscriber.id)) return 'individual'
  if (covered.length === 0) return 'employee_only'
  const partners = covered.filter((d) => d.subscriber_relationship === 'spouse' || d.subscriber_relationship === 'registered_domestic_partner')
  if (covered.length === 1) return partners.length === 1 ? 'employee_and_spouse' : 'employee_and_one_dependent'
  if (partners.length === 0) return 'employee_and_children'
  return 'family'
}

function coverageOf(family: LoadedFamily, coverage: LoadedCoverage, maintenance: MaintenanceType): Edi834Coverage {
  return {
    maintenance,
    productLine: coverage.product_line,
    productType: coverage.product_type,
    planDescription: coverage.plan_description,
    planExternalIdentifier: coverage.plan_external_identifier,
    coverageLevel: coverageLevel(family, coverage.plan_id),
    startDate: coverage.start_date,
    endDate: coverage.end_date,
    maintenanceEffectiveDate: null,
    volume: coverage.volume,
    primaryCareProvider: coverage.pcp,
  }
}

function memberOf(
  family: LoadedFamily,
  member: LoadedMember,
  ssn: SsnProtection,
  groupPolicyNumber: string | null,
  maintenance: MaintenanceType,
  reason: MaintenanceReason,
  coverages: Edi834Coverage[],
  maintenanceEffectiveDate: string | null,
): Edi834Member {
  const subscriber = member.kind === 'subscriber'
  const employment = subscriber ? family.subscriber.employment_details : null
  const cobra = family.coverages.some((c) => c.member_id === member.id && c.status === 'cobra')
  const phone = member.phone_numbers?.[0]?.contact ?? null
  const email = member.emails?.[0]?.contact ?? null
  const classification = family.subscriber.classification
  return {
    subscriber,
    relationship: (subscriber ? 'self' : member.subscriber_relationship) as MemberRelationship,
    maintenance,
    reason,
    benefitStatus: cobra ? 'cobra' : 'active',
    cobraQualifyingEvent: null,
    employmentStatus: employment ? String(employment.status ?? '') || null : null,
    handicapped: member.handicapped,
    subscriberIdentifier: family.subscriber.external_identifier,
    groupPolicyNumber,
    memberId: member.id,
    carrierMemberId: member.carrier_member_id,
    employmentStartDate: employment?.start_date ? String(employment.start_date) : null,
    employmentEndDate: employment?.end_date ? String(employment.end_date) : null,
    cobraStartDate: null,
    eligibilityStartDate: family.latestEvent?.eligibility_start_date ?? null,
    eligibilityEndDate: null,
    maintenanceEffectiveDate,
    firstName: member.first_name,
    middleName: member.middle_name,
    lastName: member.last_name,
    // Opened only here, for the file; the plain SSN never leaves this object.
    ssn: member.ssn_ciphertext && member.ssn_key_id ? ssn.open(member.ssn_ciphertext, member.ssn_key_id) : null,
    phone,
    email,
    residentialAddress: subscriber ? address(member.residential_address) : null,
    mailingAddress: subscriber ? address(member.mailing_address) : null,
    birthDate: member.birth_date,
    gender: member.gender,
    maritalStatus: member.marital_status,
    tobaccoUse: member.tobacco_use,
    coverages,
    reportingCategories: subscriber && classification ? [{ name: classification.type, value: classification.code }] : [],
  }
}

/**
 * The full file: every member of each family with every current coverage, as initial enrollments.
 * Its coverage transmissions are recorded in SQL once it is sent (delivery-sent.ts).
 */
export function fullFileMembers(family: LoadedFamily, ssn: SsnProtection, groupPolicyNumber: string | null): Edi834Member[] {
  return [family.subscriber, ...family.dependents].map((member) => {
    const own = family.coverages.filter((c) => c.member_id === member.id)
    return memberOf(family, member, ssn, groupPolicyNumber, 'addition', 'initial_enrollment', own.map((c) => coverageOf(family, c, 'addition')), null)
  })
}

/**
 * A change file's members for one family: a created member is an addition with its coverages; an
 * updated one a change of identifying data without coverage loops; a life event a change of the
 * subscriber and of every member it covers, with the event's coverages added (or terminated
 * where they end). A member touched twice in one delivery appears once, with the strongest
 * maintenance (addition over change).
 */
export function changeFileMembers(family: LoadedFamily, changes: FamilyChanges, ssn: SsnProtection, groupPolicyNumber: string | null, today: string, written: WrittenCoverage[]): Edi834Member[] {
  const byMember = new Map<string, { maintenance: MaintenanceType; reason: MaintenanceReason; coverages: Map<string, { coverage: LoadedCoverage; maintenance: MaintenanceType; transactionId: string }> }>()
  const touch = (memberId: string, maintenance: MaintenanceType, reason: MaintenanceReason) => {
    const entry = byMember.get(memberId)
    if (!entry) {
      const created = { maintenance, reason, coverages: new Map() }
      byMember.set(memberId, created)
      return created
    }
    if (maintenance === 'addition') Object.assign(entry, { maintenance, reason })
    return entry
  }
  for (const transaction of changes.transactions) {
    if (transaction.kind === 'subscriber_created' || transaction.kind === 'dependent_created') {
      const entry = touch(transaction.member_id, 'addition', 'no_reason')
      for (const c of family.coverages.filter((c) => c.member_id === transaction.member_id)) {
        entry.coverages.set(c.plan_id, { coverage: c, maintenance: 'addition', transactionId: transaction.id })
      }
    } else if (transaction.kind === 'subscriber_updated' || transaction.kind === 'dependent_updated') {
      touch(transaction.member_id, 'change', 'identifying_data')
    } else if (transaction.kind === 'qualifying_life_event') {
      const eventCoverages = family.coverages.filter((c) => c.qualifying_life_event_id === transaction.qualifying_life_event_id)
      const reason = reasonOfEvent(eventCoverages[0]?.event ?? family.latestEvent?.event ?? '')
      touch(family.subscriber.id, 'change', reason)
      for (const c of eventCoverages) {
        const maintenance: MaintenanceType = c.end_date !== null && c.end_date <= today ? 'termination' : 'addition'
        touch(c.member_id, 'change', reason).coverages.set(c.plan_id, { coverage: c, maintenance, transactionId: transaction.id })
      }
    }
  }
  // A dependent's loop follows its subscriber's: a change to dependents alone carries the
  // subscriber as an unchanged member (001, no reason given, no coverage loops).
  if (byMember.size > 0 && !byMember.has(family.subscriber.id)) touch(family.subscriber.id, 'change', 'no_reason')
  const members: Edi834Member[] = []
  for (const member of [family.subscriber, ...family.dependents]) {
    const entry = byMember.get(member.id)
    if (!entry) continue
    const coverages = [...entry.coverages.values()]
    for (const { coverage, maintenance, transactionId } of coverages) {
      written.push({ memberId: member.id, planId: coverage.plan_id, maintenance, startDate: coverage.start_date, endDate: coverage.end_date, transactionId })
    }
    members.push(
      memberOf(family, member, ssn, groupPolicyNumber, entry.maintenance, entry.reason, coverages.map((c) => coverageOf(family, c.coverage, c.maintenance)), today),
    )
  }
  return members
}
