import type { SsnProtection } from '../../lib/ssn-protection.js'
import { addDays } from '../coverage-timeline/coverage-timeline.model.js'
import type {
  Edi834Address,
  Edi834Coverage,
  Edi834Member,
  MaintenanceReason,
  MaintenanceType,
  MemberRelationship,
} from '../edi-834/edi-834.model.js'
import {
  carrierRecords,
  changeEffectiveDate,
  fullFileRecords,
  recordsDifference,
  isPlanChange,
  nothingOpen,
  recordWithTerms,
  termOn,
  type CarrierRecord,
  type CarrierTerm,
  type CoverageChange,
} from './carrier-view.js'
import { MARITAL_STATUS_AFTER, spansOf, type LoadedEvent, type LoadedFamily, type LoadedMember, type LoadedPlan, type LoadedSpan, type LoadWindow } from '../members/index.js'

/**
 * Turns loaded families into the 834 writer's members (x12-834-notes.md, "Life events in the
 * 834"). A full file tells the coverage in force on its effective date; a change file tells, per
 * member, the difference between what the carrier was last told (its view) and what is true now,
 * with the codes of the event that made it. Both answer the view to store for next time.
 */

/** One HD loop written, so the delivery can record it as a coverage transmission. */
export interface WrittenCoverage {
  memberId: string
  planId: string
  maintenance: MaintenanceType
  startDate: string
  endDate: string | null
  transactionId: string | null
}

/** What the carrier holds about a member after this file (stored in carrier_views). */
export interface CarrierMemberView {
  memberId: string
  subscriberId: string
  records: CarrierRecord[]
  digest: string
}

export interface ComposeContext {
  ssn: SsnProtection
  groupPolicyNumber: string | null
  window: LoadWindow
  /** The file's date: DTP*303 of a change without a date of its own (a demographic change). */
  today: string
  /** The coverage period's plans, by id. */
  plans: ReadonlyMap<string, LoadedPlan>
  /**
   * The coverage period renews the group's coverage with the same carrier (isFirstCoveragePeriodWithCarrier):
   * its full file enrols families by their benefit selection, not as new enrollments.
   */
  renewal: boolean
}

export interface ComposedFamily {
  members: Edi834Member[]
  views: CarrierMemberView[]
  written: WrittenCoverage[]
  /** A full file could not say everything (a later plan change, a future level): a change file must follow. */
  needsFollowUp: boolean
}

/** INS04 for each life event (the notes' table); events without a code of their own are benefit selections. */
const REASON_OF_EVENT: Record<string, MaintenanceReason> = {
  initial_enrollment: 'initial_enrollment',
  newly_eligible: 'initial_enrollment',
  new_hire: 'initial_enrollment',
  birth: 'birth',
  adoption: 'adoption',
  marriage: 'marriage',
  divorce: 'divorce',
  legal_separation: 'legal_separation',
  termination_of_employment: 'termination_of_employment',
  cobra: 'cobra',
  re_hire: 're_enrollment',
  death: 'death',
  open_enrollment: 'benefit_selection',
  loss_of_coverage: 'benefit_selection',
}

/** INS07: why a member continues under COBRA, from the family's event that ended its coverage. */
const COBRA_EVENT_AFTER: Record<string, NonNullable<Edi834Member['cobraQualifyingEvent']>> = {
  termination_of_employment: 'termination_of_employment',
  divorce: 'divorce',
  legal_separation: 'legal_separation',
  death: 'death',
}

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

/** What a member loop says about the person, digested by the enrollment read model (members/enrollment-read-model.ts). */
export const memberDigest = (member: LoadedMember): string => member.digest ?? ''

/**
 * The plan of a record, and the member's PCP for it. A record the carrier holds may name a plan
 * no span of the family holds any more (a coverage cancelled): the coverage period's plans know it.
 */
function planOf(family: LoadedFamily, context: ComposeContext, memberId: string, record: CarrierRecord): { plan: LoadedPlan; pcp: LoadedSpan['pcp'] } {
  const span = family.spans.find((s) => s.member_id === memberId && s.plan_id === record.planId)
  const plan = span ?? context.plans.get(record.planId)
  if (!plan) throw new Error(`plan ${record.planId} is not a plan of coverage period ${context.window.coveragePeriodId}`)
  return { plan, pcp: span?.pcp ?? null }
}

function coverageLoop(family: LoadedFamily, context: ComposeContext, memberId: string, change: CoverageChange): Edi834Coverage {
  const { plan, pcp } = planOf(family, context, memberId, change.record)
  const record = change.record
  // One literal per case, not `{ ...base, ... }`: see carrier-view.ts on spreads in hot paths.
  const loop = (maintenance: Edi834Coverage['maintenance'], term: CarrierTerm, endDate: string | null, maintenanceEffectiveDate: string | null, withPcp: boolean): Edi834Coverage => ({
    maintenance,
    productLine: plan.product_line,
    productType: plan.product_type,
    planDescription: plan.plan_description,
    planExternalIdentifier: plan.plan_external_identifier,
    coverageLevel: term.coverageLevel,
    volume: term.volume,
    startDate: record.startDate,
    endDate,
    maintenanceEffectiveDate,
    primaryCareProvider: withPcp ? pcp : null,
  })
  switch (change.kind) {
    case 'addition':
      return loop('addition', record.terms[0]!, record.endDate, null, true)
    case 'termination':
      return loop('termination', levelOnLastDay(family, memberId, record), record.endDate, null, false)
    case 'cancellation':
      return loop('termination', record.terms[0]!, addDays(record.startDate, -1), null, false)
    case 'reinstatement':
      return loop('reinstatement', record.terms.at(-1)!, record.endDate, null, true)
    case 'change':
      return loop('change', change.term, null, change.term.from, false)
  }
}

/**
 * The term of a coverage ending, with HD05 as the plan covers the family on its last day
 * (x12-834-notes.md: "HD05 … counts the members covered on that plan on the effective date, never
 * members whose coverage has ended"). A dependent's record keeps the level it was added with
 * (level changes are told on the subscriber's loop), so its level comes from its span of that day.
 */
function levelOnLastDay(family: LoadedFamily, memberId: string, record: CarrierRecord): CarrierTerm {
  const term = termOn(record, record.endDate!)
  const last = record.endDate!
  const span = family.spans.find(
    (s) => s.member_id === memberId && s.plan_id === record.planId && s.status === record.status && s.start_date <= last && (s.end_date === null || s.end_date >= last),
  )
  return span && span.coverage_level !== term.coverageLevel ? { from: term.from, coverageLevel: span.coverage_level, volume: term.volume } : term
}

interface LoopCodes {
  maintenance: MaintenanceType
  reason: MaintenanceReason
  maintenanceEffectiveDate: string | null
  eligibilityStartDate: string | null
  eligibilityEndDate: string | null
  benefitStatus: 'active' | 'cobra'
  cobraQualifyingEvent: Edi834Member['cobraQualifyingEvent']
  cobraStartDate: string | null
  /** The event that made the loop (its date stands in for a missing employment end). */
  event: LoadedEvent | null
  /**
   * The latest marriage, divorce or legal separation among the file's events, if any: the
   * subscriber's DMG04 says its outcome whichever event names the loop.
   */
  maritalEvent?: LoadedEvent | null
}

function memberLoop(family: LoadedFamily, member: LoadedMember, context: ComposeContext, codes: LoopCodes, coverages: Edi834Coverage[]): Edi834Member {
  const subscriber = member.kind === 'subscriber'
  const employment = subscriber ? family.subscriber.employment_details : null
  const classification = family.subscriber.classification
  const event = codes.event?.event
  const terminated = subscriber && event === 'termination_of_employment'
  const employmentEnd = employment?.end_date ? String(employment.end_date) : terminated ? codes.event!.date : null
  return {
    subscriber,
    relationship: (subscriber ? 'self' : member.subscriber_relationship) as MemberRelationship,
    maintenance: codes.maintenance,
    reason: codes.reason,
    benefitStatus: codes.benefitStatus,
    employmentStatus: terminated ? 'terminated' : employment ? String(employment.status ?? '') || null : null,
    handicapped: member.handicapped,
    subscriberIdentifier: family.subscriber.external_identifier,
    groupPolicyNumber: context.groupPolicyNumber,
    memberId: member.id,
    carrierMemberId: member.carrier_member_id,
    employmentStartDate: employment?.start_date ? String(employment.start_date) : null,
    employmentEndDate: subscriber ? employmentEnd : null,
    cobraQualifyingEvent: codes.cobraQualifyingEvent,
    cobraStartDate: codes.cobraStartDate,
    eligibilityStartDate: codes.eligibilityStartDate,
    eligibilityEndDate: codes.eligibilityEndDate,
    maintenanceEffectiveDate: codes.maintenanceEffectiveDate,
    firstName: member.first_name,
    middleName: member.middle_name,
    lastName: member.last_name,
    // Opened only here, for the file; the plain SSN never leaves this object.
    ssn: member.ssn_ciphertext && member.ssn_key_id ? context.ssn.open(member.ssn_ciphertext, member.ssn_key_id) : null,
    phone: member.phone_numbers?.[0]?.contact ?? null,
    email: member.emails?.[0]?.contact ?? null,
    residentialAddress: subscriber ? address(member.residential_address) : null,
    mailingAddress: subscriber ? address(member.mailing_address) : null,
    birthDate: member.birth_date,
    gender: member.gender,
    maritalStatus: (subscriber && ((codes.maritalEvent && MARITAL_STATUS_AFTER[codes.maritalEvent.event]) || (event && MARITAL_STATUS_AFTER[event]))) || member.marital_status,
    tobaccoUse: member.tobacco_use,
    coverages,
    reportingCategories: subscriber && classification ? [{ name: classification.type, value: classification.code }] : [],
  }
}

const recordsOf = (family: LoadedFamily, member: LoadedMember, window: LoadWindow) => carrierRecords(spansOf(family, member.id), window, member.kind === 'subscriber')

/**
 * How long a coverage may run on past the event that ends it: to the end of the month the event
 * takes effect in, at most.
 */
const COVERAGE_RUNS_ON_DAYS = 31

/** The family's spans on one line: on every plan year when its history was loaded (spanHistory, ends clipped to their period's end), else on this one. */
function lineSpans(family: LoadedFamily, line: string): readonly { member_id: string; status: string; start_date: string; end_date: string | null }[] {
  return (family.spanHistory ?? family.spans).filter((span) => span.line === line)
}

/**
 * The first day of the COBRA run on `line` that the record from `cobraStart` belongs to (a
 * renewal's COBRA span continues last year's; a plan change under COBRA continues the same run).
 * It is DTP*340, COBRA begin: the carrier counts the continuation's 18 or 36 months from it, so a
 * renewal's file must not restart it at the plan year (until 2026-11-27 it did).
 */
function continuationStart(family: LoadedFamily, memberId: string, line: string, cobraStart: string): string {
  const cobra = lineSpans(family, line).filter((span) => span.member_id === memberId && span.status === 'cobra')
  let start = cobraStart
  for (;;) {
    const before = cobra.find((span) => span.end_date !== null && addDays(span.end_date, 1) === start)
    if (!before) return start
    start = before.start_date
  }
}

/** The day a member lost the active coverage on `line` its COBRA from `cobraStart` continues: the day after the last active end before it. */
function activeCoverageLostFrom(family: LoadedFamily, memberId: string, line: string, cobraStart: string): string | undefined {
  const ends = lineSpans(family, line)
    .filter((span) => span.member_id === memberId && span.status !== 'cobra' && span.end_date !== null && span.end_date < cobraStart)
    .map((span) => span.end_date!)
    .sort()
  return ends.length > 0 ? addDays(ends.at(-1)!, 1) : undefined
}

/**
 * INS07 for a member continuing under COBRA from `cobraStart`: the family's latest event that
 * ended this member's active coverage, or a child's ageing out. An event the coverage outlived by
 * more than a month (a divorce months before a child ages out) or that took effect after it ended
 * did not end it; an event that took effect the day after it ended did, and when it has no COBRA
 * code of its own (a child's loss of coverage) the member's default stands (cobraReasonWithoutEvent).
 */
function cobraQualifyingEvent(family: LoadedFamily, member: LoadedMember, before: LoadedEvent | null, line: string, recordStart: string): Edi834Member['cobraQualifyingEvent'] {
  const upTo = before ? family.events.indexOf(before) : -1
  const earlier = upTo >= 0 ? family.events.slice(0, upTo + 1) : family.events
  const cobraStart = continuationStart(family, member.id, line, recordStart)
  const endedFrom = activeCoverageLostFrom(family, member.id, line, cobraStart)
  for (const event of [...earlier].reverse()) {
    if (event.event === 'cobra') continue
    if (endedFrom !== undefined && (addDays(event.eligibility_start_date, COVERAGE_RUNS_ON_DAYS) < endedFrom || event.eligibility_start_date > endedFrom)) continue
    const found = COBRA_EVENT_AFTER[event.event]
    if (found) return found
    if (event.eligibility_start_date === endedFrom) break
  }
  return cobraReasonWithoutEvent(family, member, line, endedFrom ?? cobraStart)
}

/** Employment statuses of an employee still working, with fewer hours: part time, or on leave (COBRA counts a leave as a reduction of hours). */
const REDUCED_HOURS: ReadonlySet<unknown> = new Set(['part_time', 'leave_of_absence'])

/**
 * INS07 when no event of the family says why a member continues under COBRA; `lostFrom` is the
 * day its active coverage on `line` ended. A child (or any dependent but a spouse or partner) who
 * lost it while the employee kept theirs has aged out (`7`). Otherwise the member lost it with the
 * employee, and the employee's situation decides: still working part time or on leave, a
 * reduction of hours (`2`: there is no event for it, and a client sends the `cobra` election after
 * changing the employment status); anything else a termination of employment (`1`). Until
 * 2026-11-27 a family moved to COBRA by reduced hours went out as terminated, its children as
 * aged out.
 */
function cobraReasonWithoutEvent(family: LoadedFamily, member: LoadedMember, line: string, lostFrom: string): Edi834Member['cobraQualifyingEvent'] {
  const employeeReason = REDUCED_HOURS.has(family.subscriber.employment_details?.status) ? 'reduction_of_hours' : 'termination_of_employment'
  // A grandchild or a ward is a dependent child as much as a child is (INS07 7 "dependent child loses eligibility").
  if (member.kind !== 'dependent' || isPartner(member)) return employeeReason
  const employeeStillActive = lineSpans(family, line).some(
    (span) => span.member_id === family.subscriber.id && span.status !== 'cobra' && span.start_date <= lostFrom && (span.end_date === null || span.end_date >= lostFrom),
  )
  return employeeStillActive ? 'ineligible_child' : employeeReason
}

/**
 * The full file's members of one family: every member with coverage in the plan year, each with
 * the record of each line in force on the file's effective date (or the first after it), as
 * additions for initial enrollment. The subscriber's loop opens the family even without coverage
 * of its own.
 */
export function fullFileMembers(family: LoadedFamily, context: ComposeContext): ComposedFamily {
  const effectiveDate = context.window.startDate
  const members: Edi834Member[] = []
  const views: CarrierMemberView[] = []
  const written: WrittenCoverage[] = []
  let needsFollowUp = false
  const everyone = [family.subscriber, ...family.dependents].map((member) => ({ member, records: recordsOf(family, member, context.window) }))
  // A family with nothing this file can carry (only lines without an 834 code, or coverage outside
  // the plan year) is not in it, as countEnrolled does not count it.
  if (everyone.every(({ records }) => records.length === 0)) return { members, views, written, needsFollowUp }
  for (const { member, records } of everyone) {
    if (records.length === 0 && member.kind === 'dependent') continue
    // Most members hold one coverage per line with one level: then the file tells exactly their
    // records (records are sorted by line, so a repeated line sits next to itself).
    const simple = records.every((record, i) => record.terms.length === 1 && (i === 0 || records[i - 1]!.line !== record.line))
    const told = simple ? records : fullFileRecords(records, effectiveDate)
    // Told everything unless a record was left out or one changes level or amount later on.
    if (!simple && (told.length !== records.length || records.some((record) => record.terms.length > 1))) needsFollowUp = true
    const cobra = told.find((record) => record.status === 'cobra')
    // Its coverage transmissions are recorded from its views once it is sent (carrier-views.repo.ts, takeViews).
    const coverages = told.map((record) => coverageLoop(family, context, member.id, { kind: 'addition', record }))
    members.push(
      memberLoop(
        family,
        member,
        context,
        {
          maintenance: 'addition',
          reason: fullFileReason(family, context),
          maintenanceEffectiveDate: null,
          eligibilityStartDate: family.latestEvent?.eligibility_start_date ?? null,
          eligibilityEndDate: null,
          benefitStatus: cobra ? 'cobra' : 'active',
          cobraQualifyingEvent: cobra ? cobraQualifyingEvent(family, member, family.latestEvent, cobra.line, cobra.startDate) : null,
          cobraStartDate: cobra ? continuationStart(family, member.id, cobra.line, cobra.startDate) : null,
          event: family.latestEvent,
        },
        coverages,
      ),
    )
    views.push({ memberId: member.id, subscriberId: family.subscriber.id, records: told, digest: memberDigest(member) })
  }
  return { members, views, written, needsFollowUp }
}

/**
 * INS04 of a full file's loops: why the family is covered in this plan year. A group's first
 * plan year with the carrier enrols everyone (`28`); a renewal with the same carrier carries the
 * members' open-enrollment elections (`EC`, the notes' "Open enrollment / benefit selection" row,
 * whose new members are `021*EC`), except a family the renewal's year brought in as new (a new
 * hire or a newly eligible employee, whatever events followed: `28`). A move to another carrier
 * is a first plan year with it.
 */
function fullFileReason(family: LoadedFamily, context: ComposeContext): MaintenanceReason {
  return !context.renewal || family.enrolledAsNew ? 'initial_enrollment' : 'benefit_selection'
}

/** What the carrier was last told about each member of a family (absent: never told). */
export type ToldViews = ReadonlyMap<string, { records: CarrierRecord[]; digest: string }>

/** Who a death is to the member of a loop: the deceased, a surviving spouse, or another survivor. */
type DeathRole = 'deceased' | 'surviving_spouse' | 'survivor'

/**
 * INS04 of a member loop: the event's code, a plan change's own code, or identifying data alone.
 * COBRA continuation starting is `09` whichever event carries it (the notes' `INS*…*021*09*C`). A
 * death gives 03 to the deceased only and 11 (surviving spouse) to its spouse or partner, whether
 * its coverage goes on or ends; any other survivor it changes has no reason given (`AI`), never a
 * code that says it died.
 */
function reasonOf(event: LoadedEvent | null, changes: readonly CoverageChange[], maintenance: MaintenanceType, demographicsOnly: boolean, deathRole: DeathRole): MaintenanceReason {
  if (demographicsOnly) return 'identifying_data'
  // The notes' reinstatement row: `025*41`, whichever event brought the coverage back (a COBRA end undone included).
  if (maintenance === 'reinstatement') return 're_enrollment'
  if (!event) return 'no_reason'
  if (maintenance === 'addition' && changes.some(startsCobra)) return 'cobra'
  if (event.event === 'death') return deathRole === 'deceased' ? 'death' : deathRole === 'surviving_spouse' ? 'surviving_spouse' : 'no_reason'
  if (event.event !== 'open_enrollment' && maintenance === 'change' && isPlanChange(changes)) return 'plan_change'
  return REASON_OF_EVENT[event.event] ?? 'no_reason'
}

const isPartner = (member: LoadedMember) =>
  member.kind === 'subscriber' || member.subscriber_relationship === 'spouse' || member.subscriber_relationship === 'registered_domestic_partner'
const startsCobra = (c: CoverageChange) => (c.kind === 'addition' || c.kind === 'reinstatement') && c.record.status === 'cobra'

/**
 * A COBRA coverage starting a member's continuation on its line for this plan year's carrier, not
 * one carrying on a COBRA coverage of this plan year from the day before (a plan change under
 * COBRA). Only the first is a new enrollment for the carrier (`021*09`); the second is a plan
 * change like any other (`001*22`, old plan HD*024 and new plan HD*021 in one loop,
 * x12-834-notes.md), and COBRA goes on. Last year's COBRA does not count: a renewal's carrier
 * told the member active (a COBRA election after the renewal's full file) holds no COBRA to carry
 * on, whatever DTP*340 then says. Until 2026-11-27 a plan change under COBRA was sent as a
 * termination of the member (`024`, eligibility ended) followed by a new COBRA enrollment.
 */
const beginsCobra = (family: LoadedFamily, memberId: string) => (c: CoverageChange) =>
  startsCobra(c) &&
  !family.spans.some((span) => span.member_id === memberId && span.line === c.record.line && span.status === 'cobra' && span.end_date !== null && addDays(span.end_date, 1) === c.record.startDate)

/**
 * A member's changes in the loops they need, in the order the carrier reads them (INS03 and
 * INS05 are the loop's): COBRA coverages beginning a continuation (with any COBRA coverage carrying
 * it on in the same file) in a loop of their own, after the rest; and among the rest, COBRA
 * coverages carried on to another plan apart from changes to active coverage (an employee's
 * dental changing while its medical COBRA changes plan must not be told as COBRA). One group
 * when nothing needs telling apart. Until 2026-11-27 the second split was missing (b320251).
 */
function loopGroups(changes: readonly CoverageChange[], begins: (c: CoverageChange) => boolean): CoverageChange[][] {
  const beginning = changes.filter(begins)
  const joinsBeginning = (c: CoverageChange) => beginning.length > 0 && startsCobra(c)
  const rest = changes.filter((c) => !begins(c) && !joinsBeginning(c))
  const beginningLoop = changes.filter((c) => begins(c) || joinsBeginning(c))
  const active = rest.filter((c) => c.record.status !== 'cobra')
  const cobra = rest.filter((c) => c.record.status === 'cobra')
  const groups = cobra.some(startsCobra) && active.length > 0 ? [active, cobra] : [rest]
  return [...groups, beginningLoop].filter((group) => group.length > 0)
}

/**
 * A change file's members for one family: for each member, the HD loops that bring the carrier's
 * view to what is true, and a change of identifying data where the member's data changed. A
 * member with nothing to tell has no loop: a birth that leaves the subscriber's level as it was
 * sends the child alone.
 *
 * `events` are the family's life events among the changes in this file, oldest first. A member
 * the carrier was never sent is named by the event of the file that brought it (the earliest that
 * set one of its active coverages: a spouse by the marriage, a newborn by the birth, whatever
 * else the family did in the same window); COBRA coverages starting go in a loop of their own
 * named by the latest `cobra` event; every other loop by the latest other event (a termination
 * and the COBRA that follows it, batched in one file, each keep their codes). `transactionId` is
 * recorded with each HD loop written.
 */
export function changeFileMembers(
  family: LoadedFamily,
  told: ToldViews,
  events: readonly LoadedEvent[],
  transactionId: string | null,
  context: ComposeContext,
): ComposedFamily {
  const members: Edi834Member[] = []
  const views: CarrierMemberView[] = []
  const written: WrittenCoverage[] = []
  const latest = (which: (e: LoadedEvent) => boolean) => [...events].reverse().find(which) ?? events.at(-1) ?? null
  const cobraEvent = latest((e) => e.event === 'cobra')
  const otherEvent = latest((e) => e.event !== 'cobra')
  // DMG04: the latest marriage, divorce or legal separation posted since this file's first event,
  // whether or not it changed coverage (until 2026-11-28 a file holding a separation and then a
  // divorce that changed nothing told the divorced employee separated, X). Since 2026-11-28 such
  // an event records a transaction of its own (life-events.service.ts), so it is among the file's
  // events, and tells the carrier the subscriber's new status even when nothing else changed: the
  // notes' demographic change, `001*25`, on the event's date. Older ones were among the family's
  // events only.
  const position = new Map(events.map((event, index) => [event.id, index]))
  const firstOfFile = family.events.findIndex((e) => position.has(e.id))
  const maritalEvent = firstOfFile < 0 ? null : (family.events.slice(firstOfFile).reverse().find((e) => MARITAL_STATUS_AFTER[e.event] !== undefined) ?? null)
  const maritalInFile = maritalEvent !== null && position.has(maritalEvent.id)
  /**
   * Where in `events` the events of this file stand that wrote a member's active coverage spans:
   * those that set one, and with `replacedToo` those that replaced one (voided it for another).
   */
  const positionsWriting = (member: LoadedMember, replacedToo: boolean): number[] => {
    const found: number[] = []
    for (const written of family.coverageEvents) {
      if (written.member_id !== member.id || (written.replaced && !replacedToo)) continue
      const index = position.get(written.qualifying_life_event_id)
      if (index !== undefined) found.push(index)
    }
    return found
  }
  /**
   * The earliest event of this file that set one of a member's active coverages, replaced since
   * or not (see above): a child enrolled, then given an end by a later event, was brought by the first.
   */
  const broughtBy = (member: LoadedMember): LoadedEvent | null => {
    const found = positionsWriting(member, false)
    return found.length === 0 ? null : events[Math.min(...found)]!
  }
  /**
   * The latest event of this file, other than a COBRA election, that changed what a loop tells
   * of a member the carrier holds: the events that set one of its active coverage spans and, for
   * the subscriber, those that replaced one (a new coverage level: levels are told on the
   * subscriber's loop only). A dependent's span replaced for its level alone (a birth re-levels
   * everyone still covered) changes nothing told of it. A divorce ending an ex-spouse's coverage,
   * then a birth or a plan change of her COBRA in the same file: her loop is the divorce's
   * (`024*01`), whatever the family did after it; the employee's, whose level both changed, the
   * latest's.
   */
  const changedBy = (member: LoadedMember): LoadedEvent | null => {
    const found = positionsWriting(member, member.kind === 'subscriber').filter((index) => events[index]!.event !== 'cobra')
    return found.length === 0 ? null : events[Math.max(...found)]!
  }

  // A re-hire names the loops of a family it brings back: the event before it in this file (the
  // termination) names a loop ending what the carrier holds, when the carrier was never told it.
  const rehire = otherEvent?.event === 're_hire' ? otherEvent : null
  const endedBeforeRehire = rehire ? ([...events.slice(0, position.get(rehire.id))].reverse().find((e) => e.event !== 'cobra') ?? rehire) : null

  const differences = [family.subscriber, ...family.dependents].flatMap((member) => {
    const truth = recordsOf(family, member, context.window)
    const digest = memberDigest(member)
    const known = told.get(member.id)
    if (!known && truth.length === 0) return []
    const difference = recordsDifference(known?.records ?? [], truth, member.kind === 'subscriber')
    const demographicsChanged = known !== undefined && (known.digest !== digest || (member.kind === 'subscriber' && maritalInFile))
    if (difference.changes.length === 0 && !demographicsChanged) return []
    return [{ member, truth, digest, known, held: difference.held, changes: difference.changes }]
  })
  // Who a death took: the subscriber when it ends every coverage of the subscriber's (its
  // dependents' coverage ending too is the survivors'), else the dependents whose every coverage
  // it ends. Their spouse or partner survives them.
  const taken = differences.filter(({ changes, truth }) => changes.some((c) => c.kind === 'termination' || c.kind === 'cancellation') && nothingOpen(truth)).map((d) => d.member)
  const deceased = new Set(taken.some((m) => m.kind === 'subscriber') ? [family.subscriber] : taken)
  const widowed = [...deceased].some(isPartner)
  const deathRoleOf = (member: LoadedMember): DeathRole => (deceased.has(member) ? 'deceased' : widowed && isPartner(member) ? 'surviving_spouse' : 'survivor')

  for (const { member, truth, digest, known, held, changes } of differences) {
    const loops = loopsOf(member, changes, known, truth, held, digest)
    // A loop of identifying data alone takes effect on the file's date, unless it is the
    // subscriber's and a marital event of this file says when its status changed.
    const toldOn = member.kind === 'subscriber' && maritalInFile ? maritalEvent.date : context.today
    for (const loop of loops) {
      members.push(composeChangeLoop(family, member, context, loop.event, loop.changes, loop.known, loop.truth, deathRoleOf(member), maritalEvent, toldOn))
      for (const change of loop.changes) {
        const hdLoop = coverageLoop(family, context, member.id, change)
        written.push({ memberId: member.id, planId: change.record.planId, maintenance: hdLoop.maintenance, startDate: hdLoop.startDate, endDate: hdLoop.endDate, transactionId })
      }
    }
    views.push({ memberId: member.id, subscriberId: family.subscriber.id, records: held, digest })
  }
  return { members, views, written, needsFollowUp: false }

  /**
   * A member's loops: usually one. INS03, INS04 and INS05 are the loop's, so two are sent when one
   * cannot say it all, each read by the carrier after the one before:
   * - COBRA coverage beginning, or carried on to another plan, beside other changes: loopGroups.
   * - A re-hire whose termination the carrier was never told, after a gap: first the termination
   *   (ending everything the carrier holds, named by the event before the re-hire), then the
   *   re-enrollment, as two files would say it. A re-hire of a member the carrier holds as ended
   *   reinstates (HD*025 from the new start, x12-834-notes.md) rather than adds.
   */
  function loopsOf(member: LoadedMember, difference: CoverageChange[], known: { records: CarrierRecord[]; digest: string } | undefined, truth: CarrierRecord[], held: CarrierRecord[], digest: string) {
    const reinstate = (change: CoverageChange): CoverageChange => (change.kind === 'addition' ? { kind: 'reinstatement', record: change.record } : change)
    const changes = rehire && known !== undefined && nothingOpen(known.records) ? difference.map(reinstate) : difference
    const begins = beginsCobra(family, member.id)
    const eventOf = (loopChanges: readonly CoverageChange[]) =>
      loopChanges.some(begins)
        ? cobraEvent
        : known === undefined
          ? (broughtBy(member) ?? otherEvent)
          : loopChanges.some((c) => c.record.status !== 'cobra')
            ? (changedBy(member) ?? otherEvent)
            : otherEvent
    const groups = loopGroups(changes, begins)
    if (groups.length > 1) {
      // Each loop is read without what the loops after it bring (an ex-spouse's active coverage
      // ending before her COBRA begins leaves nothing in force then: 024, benefit status A).
      return groups.map((group, k) => {
        const later = new Set(groups.slice(k + 1).flatMap((after) => after.map((c) => c.record)))
        return { changes: group, event: eventOf(group), known: k === 0 ? known : { records: held, digest }, truth: truth.filter((record) => !later.has(record)) }
      })
    }
    if (rehire && known !== undefined && !nothingOpen(known.records)) {
      const added = new Set(changes.filter((c) => c.kind === 'addition').map((c) => c.record))
      const before = truth.filter((record) => !added.has(record))
      if (added.size > 0 && nothingOpen(before) && changes.some((c) => c.kind === 'termination' || c.kind === 'cancellation')) {
        const ending = changes.filter((c) => !added.has(c.record))
        const addedKeys = new Set([...added].map(keyOf))
        return [
          { changes: ending, event: endedBeforeRehire, known, truth: before },
          { changes: changes.filter((c) => added.has(c.record)).map(reinstate), event: rehire, known: { records: held.filter((record) => !addedKeys.has(keyOf(record))), digest }, truth },
        ]
      }
    }
    return [{ changes, event: eventOf(changes), known, truth }]
  }
}

const keyOf = (record: CarrierRecord) => `${record.line}|${record.planId}|${record.status}|${record.startDate}`

/** One member loop of a change file: its INS codes and dates from the changes it carries. */
function composeChangeLoop(
  family: LoadedFamily,
  member: LoadedMember,
  context: ComposeContext,
  event: LoadedEvent | null,
  changes: readonly CoverageChange[],
  known: { records: CarrierRecord[]; digest: string } | undefined,
  truth: readonly CarrierRecord[],
  deathRole: DeathRole,
  maritalEvent: LoadedEvent | null,
  demographicsEffectiveDate: string,
): Edi834Member {
  const ended = changes.some((c) => c.kind === 'termination' || c.kind === 'cancellation')
  const cobra = changes.find((c) => (c.kind === 'addition' || c.kind === 'reinstatement') && c.record.status === 'cobra')
  const begins = beginsCobra(family, member.id)
  // COBRA continuation is a new enrollment for the carrier (x12-834-notes.md: INS*…*021*09*C).
  const maintenance: MaintenanceType =
    !known || changes.some((c) => c.kind === 'addition' && begins(c))
      ? 'addition'
      : changes.some((c) => c.kind === 'reinstatement') && nothingOpen(known.records)
        ? 'reinstatement'
        : ended && nothingOpen(truth)
          ? 'termination'
          : 'change'
  const effectiveDates = changes.map(changeEffectiveDate).sort()
  const startsActive = changes.some((c) => (c.kind === 'addition' || c.kind === 'reinstatement') && c.record.status !== 'cobra')
  const inCobra = cobra !== undefined || (!startsActive && truth.some((record) => record.status === 'cobra' && (record.endDate === null || record.endDate >= context.today)))
  const lastCovered = truth.map((record) => record.endDate!).sort().at(-1) ?? null
  // A loop ending the member's coverage (024) takes effect when the member stops being covered by
  // what this loop tells: the day after the latest end among its changes (a line ended, a line
  // added or reinstated with its end), even when it also tells an earlier change (a divorce's new
  // level, a plan change): those keep their own dates in their HD loops (HD*001's DTP*303, HD*024's
  // 349, HD*021's 348). A cancelled line ends nothing (it never takes effect, and its record's end
  // is one told in an earlier file, if any): a loop of cancellations alone keeps the earliest
  // cancelled start. Until 2026-11-28 a 024 loop took its earliest change's date, and a carrier
  // keying the termination on 303 ended an employee divorced in March and terminated in September
  // from April.
  const endsTold = changes.flatMap((c) => (c.kind !== 'change' && c.kind !== 'cancellation' && c.record.endDate !== null ? [c.record.endDate] : [])).sort()
  const terminationTakesEffect = endsTold.length > 0 ? addDays(endsTold.at(-1)!, 1) : null
  // A member the carrier holds with nothing open (its eligibility end told) whose coverage starts
  // again is eligible again: DTP*356, as for an addition (x12-834-notes.md, New enrollment).
  const eligibleAgain = maintenance === 'change' && known !== undefined && nothingOpen(known.records) && changes.some((c) => c.kind === 'addition')
  return memberLoop(
    family,
    member,
    context,
    {
      maintenance,
      reason: reasonOf(event, changes, maintenance, changes.length === 0, deathRole),
      maintenanceEffectiveDate: maintenance === 'termination' && terminationTakesEffect !== null ? terminationTakesEffect : (effectiveDates[0] ?? demographicsEffectiveDate),
      eligibilityStartDate: maintenance === 'addition' || maintenance === 'reinstatement' || eligibleAgain ? (event?.eligibility_start_date ?? null) : null,
      eligibilityEndDate: maintenance === 'termination' ? lastCovered : null,
      benefitStatus: inCobra ? 'cobra' : 'active',
      cobraQualifyingEvent: cobra ? cobraQualifyingEvent(family, member, event, cobra.record.line, cobra.record.startDate) : null,
      cobraStartDate: cobra ? continuationStart(family, member.id, cobra.record.line, cobra.record.startDate) : null,
      event,
      maritalEvent,
    },
    changes.map((change) => coverageLoop(family, context, member.id, change)),
  )
}

/**
 * A family as the carrier holds it on `date`: each member with the coverages in force that day
 * (their terms of that day). What a census of a carrier that took every file would say.
 */
export function membersInForce(family: LoadedFamily, context: ComposeContext, date: string): Edi834Member[] {
  const members: Edi834Member[] = []
  for (const member of [family.subscriber, ...family.dependents]) {
    const records = recordsOf(family, member, context.window).filter((record) => record.startDate <= date && (record.endDate === null || record.endDate >= date))
    if (records.length === 0 && member.kind === 'dependent') continue
    const held = records.map((record) => {
      const term = termOn(record, date)
      return recordWithTerms(record, [{ from: record.startDate, coverageLevel: term.coverageLevel, volume: term.volume }])
    })
    const cobra = held.find((record) => record.status === 'cobra')
    members.push(
      memberLoop(
        family,
        member,
        context,
        {
          maintenance: 'audit',
          reason: 'audit',
          maintenanceEffectiveDate: null,
          eligibilityStartDate: family.latestEvent?.eligibility_start_date ?? null,
          eligibilityEndDate: null,
          benefitStatus: cobra ? 'cobra' : 'active',
          cobraQualifyingEvent: null,
          cobraStartDate: cobra ? continuationStart(family, member.id, cobra.line, cobra.startDate) : null,
          event: null,
        },
        held.map((record) => Object.assign(coverageLoop(family, context, member.id, { kind: 'addition', record }), { maintenance: 'audit' as const })),
      ),
    )
  }
  return members.length === 1 && members[0]!.coverages.length === 0 ? [] : members
}
