import { isPlainObject } from '../../lib/plain-object.js'
import { maskSsn } from '../../lib/ssn-protection.js'
import { DISCREPANCY_PARAMETERS, type DiscrepancyKind, type DiscrepancyParameter } from '../errors/discrepancy-messages.js'
import {
  dateKey,
  EMPTY,
  genderNormaliser,
  isBlank,
  normaliseAddress,
  normaliseCents,
  normaliseDate,
  normaliseEmails,
  normaliseEmploymentStatus,
  normaliseMaritalStatus,
  normaliseNpi,
  normalisePhones,
  normaliseText,
  normaliseTobacco,
  normaliseWageFrequency,
  type Normaliser,
} from './normalise.js'
import type { ComparableCoverage, ComparableMember, FoundMemberDiscrepancy, MemberMatch, ReconcileOptions } from './reconcile.model.js'

/** One compared item: how to read it from a member or coverage, and how each side's value is normalised. */
interface FieldRule<Source> {
  parameter: DiscrepancyParameter
  read: (source: Source) => unknown
  platform: Normaliser
  /** The carrier's spelling when it differs from the platform's (its gender codes). */
  carrier?: Normaliser
  /** What the error shows instead of the value read (the masked SSN instead of its hash). */
  show?: (source: Source) => unknown
  /** The API gives dependents no such item, so a carrier's value for a dependent is not compared. */
  subscriberOnly?: boolean
}

// The SSN is compared through its keyed hash: neither side's number is ever in clear here.
const normaliseHash: Normaliser = (raw) => (typeof raw === 'string' && raw !== '' ? { kind: 'value', key: raw } : EMPTY)

function memberRules(options: ReconcileOptions): FieldRule<ComparableMember>[] {
  const employment = (read: (details: NonNullable<ComparableMember['employment']>) => unknown) =>
    (member: ComparableMember) => (member.employment ? read(member.employment) : null)
  return [
    { parameter: 'birth_date', read: (m) => m.birthDate, platform: normaliseDate },
    { parameter: 'gender', read: (m) => m.gender, platform: genderNormaliser(), carrier: genderNormaliser(options.genderMapping) },
    { parameter: 'marital_status', read: (m) => m.maritalStatus, platform: normaliseMaritalStatus, subscriberOnly: true },
    { parameter: 'earnings_effective_date', read: employment((e) => e.earnings_effective_date), platform: normaliseDate, subscriberOnly: true },
    { parameter: 'employment_start_date', read: employment((e) => e.start_date), platform: normaliseDate, subscriberOnly: true },
    { parameter: 'employment_end_date', read: employment((e) => e.end_date), platform: normaliseDate, subscriberOnly: true },
    { parameter: 'annual_earnings', read: employment((e) => e.annual_earnings), platform: normaliseCents, subscriberOnly: true },
    { parameter: 'wage_frequency', read: employment((e) => e.wage_frequency), platform: normaliseWageFrequency, subscriberOnly: true },
    { parameter: 'employment_status', read: employment((e) => e.status), platform: normaliseEmploymentStatus, subscriberOnly: true },
    { parameter: 'residential_address', read: (m) => m.residentialAddress, platform: normaliseAddress, subscriberOnly: true },
    {
      parameter: 'social_security_number',
      read: (m) => m.ssnHash,
      platform: normaliseHash,
      show: (m) => maskSsn(m.ssnLastFour ?? '****'),
    },
    { parameter: 'tobacco_use', read: (m) => m.tobaccoUse, platform: normaliseTobacco },
    { parameter: 'region', read: (m) => m.region, platform: normaliseText, subscriberOnly: true },
    { parameter: 'emails', read: (m) => m.emails, platform: normaliseEmails, subscriberOnly: true },
    { parameter: 'phone_numbers', read: (m) => m.phoneNumbers, platform: normalisePhones, subscriberOnly: true },
  ]
}

const COVERAGE_RULES: readonly FieldRule<ComparableCoverage>[] = [
  { parameter: 'plan_start_date', read: (c) => c.startDate, platform: normaliseDate },
  { parameter: 'plan_end_date', read: (c) => c.endDate, platform: normaliseDate },
  { parameter: 'plan_volume', read: (c) => c.volume, platform: normaliseCents },
  { parameter: 'primary_care_provider', read: (c) => c.primaryCareProviderNpi, platform: normaliseNpi },
]

type Where = Pick<FoundMemberDiscrepancy, 'memberId' | 'censusKey' | 'planId'>

/**
 * Whether two values read are the same input to any normaliser (a pure function of what it is
 * given): the same value, or arrays or plain objects whose items are the same values. Anything
 * else counts as different and is normalised on each side.
 */
function sameRaw(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
    return true
  }
  // A Date or any other class keeps its value outside its own keys.
  if (!isPlainObject(a) || !isPlainObject(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  for (const key of keys) if (!Object.hasOwn(b, key) || a[key] !== b[key]) return false
  return true
}

/**
 * The discrepancy, if any, between two sides' values of one item. An unreadable value on either
 * side is value_invalid (comparing it would report a difference that may not exist). Each side
 * shows its raw value, or null when it has none, so the kind and the values always agree.
 */
function compareField<Source>(rule: FieldRule<Source>, platform: Source, carrier: Source, where: Where): FoundMemberDiscrepancy | null {
  const platformRaw = rule.read(platform)
  const carrierRaw = rule.read(carrier)
  const platformValue = rule.platform(platformRaw)
  // Most values are the same on both sides: one normalising serves both (a census normalises
  // some 1.5 million values), unless the carrier's spelling has a normaliser of its own.
  const carrierValue = rule.carrier === undefined && sameRaw(platformRaw, carrierRaw) ? platformValue : (rule.carrier ?? rule.platform)(carrierRaw)
  let kind: DiscrepancyKind
  if (platformValue.kind === 'invalid' || carrierValue.kind === 'invalid') kind = 'value_invalid'
  else if (platformValue.kind === 'empty' && carrierValue.kind === 'empty') return null
  else if (carrierValue.kind === 'empty') kind = 'carrier_missing'
  else if (platformValue.kind === 'empty') kind = 'platform_missing'
  else if (platformValue.key === carrierValue.key) return null
  else kind = 'carrier_value_differs'
  const shown = (source: Source, empty: boolean) => (empty ? null : (rule.show ?? rule.read)(source))
  return {
    ...where,
    parameter: rule.parameter,
    kind,
    carrier: shown(carrier, carrierValue.kind === 'empty'),
    platform: shown(platform, platformValue.kind === 'empty'),
  }
}

/** Who a missing member is, for the operator: never the SSN. */
function memberSummary(member: ComparableMember): Record<string, unknown> {
  return {
    first_name: member.firstName,
    last_name: member.lastName,
    birth_date: member.birthDate,
    ...(member.kind === 'dependent' ? { relationship: member.relationship } : {}),
    ...(isBlank(member.carrierMemberId) ? {} : { carrier_member_id: member.carrierMemberId }),
  }
}

const coverageSummary = (coverage: ComparableCoverage) => ({
  plan: coverage.planReference,
  start_date: coverage.startDate,
  end_date: coverage.endDate,
})

/** Coverages per plan, earliest start first: a plan held twice (ended, then re-elected) pairs span by span. */
function byPlan(coverages: readonly ComparableCoverage[]): Map<string, ComparableCoverage[]> {
  const plans = new Map<string, ComparableCoverage[]>()
  for (const coverage of coverages) {
    if (coverage.planId === null) continue
    const spans = plans.get(coverage.planId)
    if (spans) spans.push(coverage)
    else plans.set(coverage.planId, [coverage])
  }
  const start = (coverage: ComparableCoverage) => dateKey(coverage.startDate) ?? '~'
  for (const spans of plans.values()) spans.sort((a, b) => (start(a) < start(b) ? -1 : start(a) > start(b) ? 1 : 0))
  return plans
}

function compareCoverages(platform: ComparableMember, carrier: ComparableMember, out: FoundMemberDiscrepancy[]): void {
  const member = { memberId: platform.key, censusKey: carrier.key }
  for (const coverage of carrier.coverages) {
    if (coverage.planId !== null) continue
    out.push({ ...member, planId: null, parameter: 'plan_id', kind: 'value_invalid', carrier: coverage.planReference, platform: null })
  }
  // The platform resolves its own plans, so a platform coverage without a plan id cannot occur and is not compared.
  const platformPlans = byPlan(platform.coverages)
  const carrierPlans = byPlan(carrier.coverages)
  for (const planId of new Set([...platformPlans.keys(), ...carrierPlans.keys()])) {
    const platformSpans = platformPlans.get(planId) ?? []
    const carrierSpans = carrierPlans.get(planId) ?? []
    const where = { ...member, planId }
    for (let i = 0; i < Math.max(platformSpans.length, carrierSpans.length); i++) {
      const platformSpan = platformSpans[i]
      const carrierSpan = carrierSpans[i]
      if (platformSpan && carrierSpan) {
        for (const rule of COVERAGE_RULES) {
          const found = compareField(rule, platformSpan, carrierSpan, where)
          if (found) out.push(found)
        }
      } else if (platformSpan) {
        out.push({ ...where, parameter: 'coverage', kind: 'carrier_missing', carrier: null, platform: coverageSummary(platformSpan) })
      } else if (carrierSpan) {
        out.push({ ...where, parameter: 'coverage', kind: 'platform_missing', carrier: coverageSummary(carrierSpan), platform: null })
      }
    }
  }
}

const PARAMETER_ORDER = new Map<DiscrepancyParameter, number>(DISCREPANCY_PARAMETERS.map((parameter, i) => [parameter, i]))

function compareText(a: string | null, b: string | null): number {
  // Absent keys sort last; plain code-unit order, so the order does not depend on the locale.
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  return a < b ? -1 : 1
}

/** By member (platform id, then census key), then the catalogue's parameter order, then plan; ties keep the order found. */
export function byMemberParameterPlan(a: FoundMemberDiscrepancy, b: FoundMemberDiscrepancy): number {
  return (
    compareText(a.memberId, b.memberId) ||
    compareText(a.censusKey, b.censusKey) ||
    PARAMETER_ORDER.get(a.parameter)! - PARAMETER_ORDER.get(b.parameter)! ||
    compareText(a.planId, b.planId)
  )
}

/**
 * Every discrepancy of service-interface 2.5 between matched members, plus the members each side
 * lacks. A member one side lacks raises one subscriber or dependent error and nothing else: its
 * fields and coverages have nothing to be compared with. A carrier-only dependent of a matched
 * subscriber is filed on the platform subscriber, so the error lands on the family.
 */
export function compareMembers(match: MemberMatch, options: ReconcileOptions = {}): FoundMemberDiscrepancy[] {
  const rules = memberRules(options)
  const found: FoundMemberDiscrepancy[] = []
  const platformSubscriberOf = new Map<string, string>()
  for (const { platform, carrier } of match.pairs) {
    if (carrier.kind === 'subscriber') platformSubscriberOf.set(carrier.key, platform.key)
    const where = { memberId: platform.key, censusKey: carrier.key, planId: null }
    for (const rule of rules) {
      if (rule.subscriberOnly && platform.kind === 'dependent') continue
      const discrepancy = compareField(rule, platform, carrier, where)
      if (discrepancy) found.push(discrepancy)
    }
    compareCoverages(platform, carrier, found)
  }
  for (const member of match.platformOnly) {
    found.push({ memberId: member.key, censusKey: null, planId: null, parameter: member.kind, kind: 'carrier_missing', carrier: null, platform: memberSummary(member) })
  }
  for (const member of match.carrierOnly) {
    const family = member.kind === 'dependent' && member.subscriberKey !== null ? platformSubscriberOf.get(member.subscriberKey) : undefined
    found.push({ memberId: family ?? null, censusKey: member.key, planId: null, parameter: member.kind, kind: 'platform_missing', carrier: memberSummary(member), platform: null })
  }
  return found.sort(byMemberParameterPlan)
}
