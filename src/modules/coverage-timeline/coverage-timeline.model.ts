/**
 * Coverage over time, as pure functions (api-contract.md section 10). A member's coverage of one
 * line (a plan_elections key: medical, dental, voluntary_life, ...) is a sequence of spans that
 * never overlap. A qualifying life event changes them:
 *
 * - an election's coverage replaces, from its start date, whatever the member had in force on that
 *   line (the span in force ends the day before, also when the plan changes; spans starting later
 *   are dropped) and, unless it ends before it starts, starts a new span;
 * - an end date on or before the start date (Ideon's `end_date = start_date - 1`) cancels: the
 *   member has nothing on that line from the start date on;
 * - a waiver ends the line for every member of the family the day before the event's
 *   eligibility_start_date (at the earliest from its coverage period's start), in that coverage
 *   period only;
 * - an event speaks for its own plan year: coverage of a later coverage period (a renewal's
 *   open enrollment) is neither ended nor overlapped by it.
 *
 * Members an election does not list keep what they have: an election never ends anyone's coverage
 * by omission. Then each span gets the coverage level of its plan for the family (HD05), counting
 * only the members with the same benefit status (active or COBRA), split wherever those members
 * change, and neighbours that say the same are merged.
 *
 * Dates are ISO `YYYY-MM-DD` strings: text order is date order.
 */

export type CoverageStatus = 'employer_sponsored' | 'cobra'

export type CoverageLevel = 'employee_only' | 'employee_and_spouse' | 'employee_and_children' | 'family' | 'employee_and_one_dependent' | 'individual'

/** One span without its coverage level: what the events say. */
export interface Span {
  memberId: string
  line: string
  planId: string
  coveragePeriodId: string
  startDate: string
  endDate: string | null
  status: CoverageStatus
  volume: number | null
  /** The event whose election set it. */
  qualifyingLifeEventId: string
}

export interface LeveledSpan extends Span {
  coverageLevel: CoverageLevel
}

/** A coverage an election lists. */
export interface ElectedCoverage {
  memberId: string
  planId: string
  coveragePeriodId: string
  startDate: string
  endDate: string | null
  status: CoverageStatus
  volume: number | null
}

/** What one life event does to the family's coverage, line by line. */
export interface EventChanges {
  qualifyingLifeEventId: string
  /**
   * The last day of the event's coverage period (null: open). An event speaks for its own plan
   * year: coverage of a later plan year (a renewal's elections) is left as it is.
   */
  periodEndDate?: string | null
  /** The event's coverage period and its first day: a waiver ends that period's coverage only, from within it. */
  coveragePeriodId?: string
  periodStartDate?: string
  /** The event's eligibility_start_date: when a waiver takes effect. */
  eligibilityStartDate: string
  elections: readonly { line: string; coverages: readonly ElectedCoverage[] }[]
  waivedLines: readonly string[]
}

/** The family as levels need it: who the subscriber is and which dependents are partners. */
export interface FamilyShape {
  subscriberId: string
  /** Dependent id → subscriber_relationship. */
  relationships: ReadonlyMap<string, string | null>
}

const DAY_MS = 86_400_000

export function addDays(isoDate: string, days: number): string {
  return new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
}

/** Whether a span (or any start/end pair) is in force on `date`. */
export function inForceOn(span: { startDate: string; endDate: string | null }, date: string): boolean {
  return span.startDate <= date && (span.endDate === null || span.endDate >= date)
}

/**
 * The member's spans on the line cut so that nothing is in force from `from` on, up to the end of
 * the plan year (`until`): spans of a later plan year stay.
 */
function endFrom(spans: readonly Span[], from: string, until: string | null): Span[] {
  const dayBefore = addDays(from, -1)
  const kept: Span[] = []
  for (const span of spans) {
    if (until !== null && span.startDate > until) kept.push(span)
    else if (span.startDate >= from) continue
    else kept.push(span.endDate === null || span.endDate > dayBefore ? { ...span, endDate: dayBefore } : span)
  }
  return kept
}

/** A new span ends before the first span kept after it (a later plan year's), never overlapping it. */
function capBefore(span: Span, kept: readonly Span[]): Span {
  const next = kept.filter((other) => other.startDate > span.startDate).map((other) => other.startDate).sort()[0]
  if (next === undefined) return span
  const dayBefore = addDays(next, -1)
  return span.endDate === null || span.endDate > dayBefore ? { ...span, endDate: dayBefore } : span
}

const keyOf = (memberId: string, line: string) => `${memberId}\u0000${line}`

/** The family's spans after one event (no levels yet). */
export function applyEvent(spans: readonly Span[], family: FamilyShape, changes: EventChanges): Span[] {
  const byMemberLine = new Map<string, Span[]>()
  for (const span of spans) {
    const key = keyOf(span.memberId, span.line)
    byMemberLine.set(key, [...(byMemberLine.get(key) ?? []), span])
  }
  for (const line of changes.waivedLines) {
    for (const memberId of [family.subscriberId, ...family.relationships.keys()]) {
      const key = keyOf(memberId, line)
      const current = byMemberLine.get(key)
      if (!current) continue
      const own = current.filter((span) => changes.coveragePeriodId === undefined || span.coveragePeriodId === changes.coveragePeriodId)
      const others = current.filter((span) => !own.includes(span))
      const from = changes.periodStartDate !== undefined && changes.periodStartDate > changes.eligibilityStartDate ? changes.periodStartDate : changes.eligibilityStartDate
      byMemberLine.set(key, [...others, ...endFrom(own, from, changes.periodEndDate ?? null)])
    }
  }
  for (const election of changes.elections) {
    for (const coverage of election.coverages) {
      const key = keyOf(coverage.memberId, election.line)
      const kept = endFrom(byMemberLine.get(key) ?? [], coverage.startDate, changes.periodEndDate ?? null)
      if (coverage.endDate === null || coverage.endDate >= coverage.startDate) {
        kept.push(capBefore({ ...coverage, line: election.line, qualifyingLifeEventId: changes.qualifyingLifeEventId }, kept))
      }
      byMemberLine.set(key, kept)
    }
  }
  return [...byMemberLine.values()].flat()
}

/**
 * HD05 for a plan on a date, from who of the family holds it that day with one benefit status
 * (levelSpans). Members holding it without the subscriber (dependents left on a plan the employee
 * changed, an ex-spouse or a child continuing under COBRA) are each `individual`: the model has no
 * dependents-only levels (SPO, CHD, SPC, DEP).
 */
export function coverageLevelOf(family: FamilyShape, membersOnPlan: ReadonlySet<string>): CoverageLevel {
  if (!membersOnPlan.has(family.subscriberId)) return 'individual'
  const dependents = [...membersOnPlan].filter((id) => id !== family.subscriberId)
  if (dependents.length === 0) return 'employee_only'
  const partners = dependents.filter((id) => {
    const relationship = family.relationships.get(id)
    return relationship === 'spouse' || relationship === 'registered_domestic_partner'
  }).length
  if (dependents.length === 1) return partners === 1 ? 'employee_and_spouse' : 'employee_and_one_dependent'
  return partners === 0 ? 'employee_and_children' : 'family'
}

const sameTerms = (a: LeveledSpan, b: LeveledSpan) =>
  a.memberId === b.memberId && a.line === b.line && a.planId === b.planId && a.status === b.status && a.volume === b.volume && a.coverageLevel === b.coverageLevel

/**
 * Levels for every span: each is split where the family on its plan (with its benefit status)
 * changes, and neighbours of one member and line that say the same (plan, status, volume, level)
 * are merged, keeping the first one's event. Sorted by member, line and start date.
 *
 * A span is levelled among the family's spans on the same plan *and the same status*. COBRA
 * continuation is an enrolment of its own (the notes' `INS*…*021*09*C`, INS05 `C`), not part of the
 * employee's active coverage: an ex-spouse or a child aged out who continues under COBRA on the
 * employee's plan must not keep the employee at FAM or E1D (HD05 counts "the members covered on
 * that plan"; the carrier bills the active unit by it). The COBRA members are levelled as their own
 * unit: with the employee among them (COBRA after a termination) the usual levels (ESP, FAM, ...);
 * without (an ex-spouse, a child aged out) `individual` (IND), which is what coverageLevelOf says
 * of members covered without the subscriber. See docs/decisions.md, "Coverage over time".
 */
export function levelSpans(spans: readonly Span[], family: FamilyShape): LeveledSpan[] {
  const byUnit = new Map<string, Span[]>()
  for (const span of spans) {
    const unit = `${span.planId}\u0000${span.status}`
    byUnit.set(unit, [...(byUnit.get(unit) ?? []), span])
  }
  const pieces: LeveledSpan[] = []
  for (const onPlan of byUnit.values()) {
    // The dates the unit on the plan may change: every start and every day after an end.
    const changes = new Set<string>()
    for (const span of onPlan) {
      changes.add(span.startDate)
      if (span.endDate !== null) changes.add(addDays(span.endDate, 1))
    }
    const boundaries = [...changes].sort()
    for (const span of onPlan) {
      const cuts = boundaries.filter((date) => date > span.startDate && (span.endDate === null || date <= span.endDate))
      const starts = [span.startDate, ...cuts]
      starts.forEach((start, index) => {
        const next = starts[index + 1]
        const endDate = next === undefined ? span.endDate : addDays(next, -1)
        const members = new Set(onPlan.filter((other) => inForceOn(other, start)).map((other) => other.memberId))
        pieces.push({ ...span, startDate: start, endDate, coverageLevel: coverageLevelOf(family, members) })
      })
    }
  }
  pieces.sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : a.line < b.line ? -1 : a.line > b.line ? 1 : a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : 0))
  const merged: LeveledSpan[] = []
  for (const piece of pieces) {
    const last = merged.at(-1)
    if (last && sameTerms(last, piece) && last.endDate !== null && addDays(last.endDate, 1) === piece.startDate) {
      merged[merged.length - 1] = { ...last, endDate: piece.endDate }
    } else {
      merged.push(piece)
    }
  }
  return merged
}

/** Stored spans back to what the events say: neighbours that differ only by level become one. */
export function unlevel(spans: readonly LeveledSpan[]): Span[] {
  const sorted = [...spans].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : a.line < b.line ? -1 : a.line > b.line ? 1 : a.startDate < b.startDate ? -1 : 1))
  const out: Span[] = []
  for (const { coverageLevel: _level, ...span } of sorted) {
    const last = out.at(-1)
    if (
      last &&
      last.memberId === span.memberId &&
      last.line === span.line &&
      last.planId === span.planId &&
      last.status === span.status &&
      last.volume === span.volume &&
      last.endDate !== null &&
      addDays(last.endDate, 1) === span.startDate
    ) {
      out[out.length - 1] = { ...last, endDate: span.endDate }
    } else {
      out.push(span)
    }
  }
  return out
}

/** A span's identity for storage: two spans with the same key say the same thing. */
export const spanKey = (span: LeveledSpan) =>
  [span.memberId, span.line, span.planId, span.startDate, span.endDate ?? '', span.status, span.volume ?? '', span.coverageLevel].join('|')

/** What a member holds on a line on a date, as text (for comparisons). */
function holdingOn(spans: readonly LeveledSpan[], date: string): Map<string, string> {
  const held = new Map<string, string>()
  for (const span of spans) {
    if (inForceOn(span, date)) held.set(keyOf(span.memberId, span.line), [span.planId, span.status, span.volume ?? '', span.coverageLevel].join('|'))
  }
  return held
}

/**
 * The first date on which two timelines of a family differ (what a change is effective from), or
 * null when they say the same on every date.
 */
export function firstDifference(before: readonly LeveledSpan[], after: readonly LeveledSpan[]): string | null {
  const dates = new Set<string>()
  for (const span of [...before, ...after]) {
    dates.add(span.startDate)
    if (span.endDate !== null) dates.add(addDays(span.endDate, 1))
  }
  for (const date of [...dates].sort()) {
    const a = holdingOn(before, date)
    const b = holdingOn(after, date)
    if (a.size !== b.size || [...a].some(([key, value]) => b.get(key) !== value)) return date
  }
  return null
}

/** A coverage period's dates. */
export interface PeriodDates {
  startDate: string
  endDate: string | null
}

/** The spans of one coverage period as its carrier sees them: within its dates, open to its end. */
function withinPeriod(spans: readonly LeveledSpan[], coveragePeriodId: string, dates: PeriodDates): string[] {
  return spans
    .filter((span) => span.coveragePeriodId === coveragePeriodId)
    .filter((span) => (span.endDate === null || span.endDate >= dates.startDate) && (dates.endDate === null || span.startDate <= dates.endDate))
    .map((span) =>
      spanKey({
        ...span,
        startDate: span.startDate < dates.startDate ? dates.startDate : span.startDate,
        endDate: span.endDate === null || (dates.endDate !== null && span.endDate >= dates.endDate) ? null : span.endDate,
      }),
    )
    .sort()
}

/**
 * The coverage periods whose carrier would be told something by going from `before` to `after`:
 * a change effective after a period's end (a renewal ending last year's coverage on its last
 * day) changes nothing for that period's carrier.
 */
export function changedCoveragePeriods(before: readonly LeveledSpan[], after: readonly LeveledSpan[], periods: ReadonlyMap<string, PeriodDates>): string[] {
  const touched = new Set([...before, ...after].map((span) => span.coveragePeriodId))
  return [...touched].filter((id) => {
    const dates = periods.get(id)
    if (!dates) return false
    const a = withinPeriod(before, id, dates)
    const b = withinPeriod(after, id, dates)
    return a.length !== b.length || a.some((key, index) => key !== b[index])
  })
}
