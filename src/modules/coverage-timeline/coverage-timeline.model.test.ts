import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  addDays,
  applyEvent,
  changedCoveragePeriods,
  coverageLevelOf,
  firstDifference,
  inForceOn,
  levelSpans,
  unlevel,
  type CoverageLevel,
  type ElectedCoverage,
  type EventChanges,
  type FamilyShape,
  type LeveledSpan,
  type PeriodDates,
  type Span,
} from './coverage-timeline.model.js'

// S subscriber, P spouse, C and D children, R a registered domestic partner (of another family shape).
const FAMILY: FamilyShape = { subscriberId: 'S', relationships: new Map<string, string | null>([['P', 'spouse'], ['C', 'child'], ['D', 'child']]) }

const cov = (memberId: string, planId: string, startDate: string, endDate: string | null = null, o: Partial<ElectedCoverage> = {}): ElectedCoverage => ({
  memberId,
  planId,
  coveragePeriodId: 'cp27',
  startDate,
  endDate,
  status: 'employer_sponsored',
  volume: null,
  ...o,
})

let eventCounter = 0
/** One life event: elections by line, waived lines, and the eligibility start a waiver takes effect from. */
const event = (elections: Record<string, ElectedCoverage[]>, o: { waived?: string[]; eligibility?: string; id?: string } = {}): EventChanges => ({
  qualifyingLifeEventId: o.id ?? `e${++eventCounter}`,
  eligibilityStartDate: o.eligibility ?? '2027-01-01',
  elections: Object.entries(elections).map(([line, coverages]) => ({ line, coverages })),
  waivedLines: o.waived ?? [],
})

const apply = (events: EventChanges[], family: FamilyShape = FAMILY): Span[] => events.reduce<Span[]>((spans, e) => applyEvent(spans, family, e), [])
const timeline = (events: EventChanges[], family: FamilyShape = FAMILY): LeveledSpan[] => levelSpans(apply(events, family), family)

/** The spans of one member and line as `plan start..end level`, in date order. */
const of = (spans: readonly (Span | LeveledSpan)[], memberId: string, line = 'medical'): string[] =>
  spans
    .filter((s) => s.memberId === memberId && s.line === line)
    .sort((a, b) => (a.startDate < b.startDate ? -1 : 1))
    .map((s) => `${s.planId} ${s.startDate}..${s.endDate ?? ''}${'coverageLevel' in s ? ` ${s.coverageLevel}` : ''}`)

const FAMILY_ON_A = event({ medical: ['S', 'P', 'C'].map((m) => cov(m, 'A', '2027-01-01')) }, { id: 'enrol' })

describe('addDays', () => {
  it('when days cross a month, a year or a leap day, then the calendar date is right', () => {
    expect(addDays('2027-01-01', -1)).toBe('2026-12-31')
    expect(addDays('2027-02-28', 1)).toBe('2027-03-01')
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29')
    expect(addDays('2027-12-31', 1)).toBe('2028-01-01')
    expect(addDays('2027-03-31', 0)).toBe('2027-03-31')
  })
})

describe('applyEvent', () => {
  it('when a family enrols, then each listed member holds the plan from its start, open-ended', () => {
    const spans = apply([FAMILY_ON_A])
    for (const member of ['S', 'P', 'C']) expect(of(spans, member)).toEqual(['A 2027-01-01..'])
    expect(spans.every((s) => s.qualifyingLifeEventId === 'enrol')).toBe(true)
  })

  it('when an election changes the plan, then the old plan ends the day before the new start', () => {
    const spans = apply([FAMILY_ON_A, event({ medical: ['S', 'P', 'C'].map((m) => cov(m, 'B', '2027-04-01')) })])
    for (const member of ['S', 'P', 'C']) expect(of(spans, member)).toEqual(['A 2027-01-01..2027-03-31', 'B 2027-04-01..'])
  })

  it('when an election lists only some members, then the others keep what they have', () => {
    const spans = apply([FAMILY_ON_A, event({ medical: [cov('S', 'B', '2027-04-01')] })])
    expect(of(spans, 'S')).toEqual(['A 2027-01-01..2027-03-31', 'B 2027-04-01..'])
    expect(of(spans, 'P')).toEqual(['A 2027-01-01..'])
    expect(of(spans, 'C')).toEqual(['A 2027-01-01..'])
  })

  it('when an election replaces a line, then spans starting on or after its start are dropped and other lines are untouched', () => {
    const spans = apply([
      event({ medical: [cov('S', 'A', '2027-01-01')], dental: [cov('S', 'X', '2027-01-01')] }),
      event({ medical: [cov('S', 'B', '2027-06-01')] }),
      event({ medical: [cov('S', 'A', '2027-03-01')] }),
    ])
    expect(of(spans, 'S')).toEqual(['A 2027-01-01..2027-02-28', 'A 2027-03-01..'])
    expect(of(spans, 'S', 'dental')).toEqual(['X 2027-01-01..'])
  })

  it('when an election gives an end date, then the coverage ends on it', () => {
    const spans = apply([FAMILY_ON_A, event({ medical: [cov('P', 'A', '2027-01-01', '2027-06-30')] })])
    expect(of(spans, 'P')).toEqual(['A 2027-01-01..2027-06-30'])
    expect(of(spans, 'S')).toEqual(['A 2027-01-01..'])
  })

  it('when the end date is the day before the start, then the coverage is cancelled: nothing from its start on', () => {
    const spans = apply([FAMILY_ON_A, event({ medical: [cov('P', 'A', '2027-01-01', '2026-12-31')] })])
    expect(of(spans, 'P')).toEqual([])
    expect(of(spans, 'S')).toEqual(['A 2027-01-01..'])
  })

  it('when a future plan change is cancelled, then the old plan stays ended and nothing replaces it', () => {
    const spans = apply([FAMILY_ON_A, event({ medical: [cov('S', 'B', '2027-06-01')] }), event({ medical: [cov('S', 'B', '2027-06-01', '2027-05-31')] })])
    expect(of(spans, 'S')).toEqual(['A 2027-01-01..2027-05-31'])
  })

  it('when a line is waived, then every member of the family loses it from the eligibility start, and spans starting later are dropped', () => {
    const spans = apply([
      event({ medical: ['S', 'P', 'C'].map((m) => cov(m, 'A', '2027-01-01')), dental: ['S', 'P'].map((m) => cov(m, 'X', '2027-01-01')) }),
      event({ dental: [cov('C', 'X', '2027-08-01')] }),
      event({}, { waived: ['dental'], eligibility: '2027-05-01' }),
    ])
    expect(of(spans, 'S', 'dental')).toEqual(['X 2027-01-01..2027-04-30'])
    expect(of(spans, 'P', 'dental')).toEqual(['X 2027-01-01..2027-04-30'])
    expect(of(spans, 'C', 'dental')).toEqual([])
    for (const member of ['S', 'P', 'C']) expect(of(spans, member)).toEqual(['A 2027-01-01..'])
  })

  it('when a waiver takes effect before a coverage starts, then that coverage is gone', () => {
    const spans = apply([FAMILY_ON_A, event({}, { waived: ['medical'], eligibility: '2027-01-01' })])
    expect(spans).toEqual([])
  })
})

describe('coverageLevelOf', () => {
  const level = (members: string[]) => coverageLevelOf(FAMILY, new Set(members))
  it('when the plan is held by these members, then HD05 counts them', () => {
    expect(level(['S'])).toBe('employee_only')
    expect(level(['S', 'P'])).toBe('employee_and_spouse')
    expect(level(['S', 'C'])).toBe('employee_and_one_dependent')
    expect(level(['S', 'C', 'D'])).toBe('employee_and_children')
    expect(level(['S', 'P', 'C'])).toBe('family')
    expect(level(['P', 'C'])).toBe('individual')
    expect(level([])).toBe('individual')
  })

  it('when the partner is a registered domestic partner, then it counts as a spouse', () => {
    const family: FamilyShape = { subscriberId: 'S', relationships: new Map([['R', 'registered_domestic_partner'], ['C', 'child']]) }
    expect(coverageLevelOf(family, new Set(['S', 'R']))).toBe('employee_and_spouse')
    expect(coverageLevelOf(family, new Set(['S', 'R', 'C']))).toBe('family')
  })
})

describe('levelSpans', () => {
  it('when a spouse joins on marriage, then the others’ spans split where the family on the plan changes', () => {
    const spans = timeline([event({ medical: ['S', 'C', 'D'].map((m) => cov(m, 'A', '2027-01-01')) }), event({ medical: [cov('P', 'A', '2027-03-01')] })])
    expect(of(spans, 'S')).toEqual(['A 2027-01-01..2027-02-28 employee_and_children', 'A 2027-03-01.. family'])
    expect(of(spans, 'C')).toEqual(['A 2027-01-01..2027-02-28 employee_and_children', 'A 2027-03-01.. family'])
    expect(of(spans, 'P')).toEqual(['A 2027-03-01.. family'])
  })

  it('when a divorce ends the spouse, then the subscriber’s level changes the day after', () => {
    const spans = timeline([event({ medical: ['S', 'P'].map((m) => cov(m, 'A', '2027-01-01')) }), event({ medical: [cov('P', 'A', '2027-01-01', '2027-06-30')] })])
    expect(of(spans, 'S')).toEqual(['A 2027-01-01..2027-06-30 employee_and_spouse', 'A 2027-07-01.. employee_only'])
    expect(of(spans, 'P')).toEqual(['A 2027-01-01..2027-06-30 employee_and_spouse'])
  })

  it('when members are on different plans of one line, then each plan’s level counts only its own members', () => {
    const spans = timeline([FAMILY_ON_A, event({ medical: [cov('S', 'B', '2027-04-01')] })])
    expect(of(spans, 'S')).toEqual(['A 2027-01-01..2027-03-31 family', 'B 2027-04-01.. employee_only'])
    expect(of(spans, 'P')).toEqual(['A 2027-01-01..2027-03-31 family', 'A 2027-04-01.. individual'])
  })

  it('when neighbours say the same, then they are merged and keep the first event', () => {
    const spans = timeline([FAMILY_ON_A, event({ medical: [cov('S', 'A', '2027-04-01')] }, { id: 'again' })])
    expect(spans.filter((s) => s.memberId === 'S')).toEqual([
      { memberId: 'S', line: 'medical', planId: 'A', coveragePeriodId: 'cp27', startDate: '2027-01-01', endDate: null, status: 'employer_sponsored', volume: null, qualifyingLifeEventId: 'enrol', coverageLevel: 'family' },
    ])
  })

  it('when neighbours differ in volume or status, then they stay apart', () => {
    const spans = timeline([
      event({ voluntary_life: [cov('S', 'L', '2027-01-01', null, { volume: 5_000_000 })] }),
      event({ voluntary_life: [cov('S', 'L', '2027-04-01', null, { volume: 10_000_000 })] }),
      event({ medical: [cov('S', 'A', '2027-01-01')] }),
      event({ medical: [cov('S', 'A', '2027-07-01', null, { status: 'cobra' })] }),
    ])
    expect(of(spans, 'S', 'voluntary_life')).toEqual(['L 2027-01-01..2027-03-31 employee_only', 'L 2027-04-01.. employee_only'])
    expect(spans.filter((s) => s.memberId === 'S' && s.line === 'medical').map((s) => s.status)).toEqual(['employer_sponsored', 'cobra'])
  })

  // COBRA continuation is an enrolment of its own (x12-834-notes.md, `INS*…*021*09*C`): COBRA spans
  // are levelled among the COBRA spans on the plan, active spans among the active ones.
  const cobra = { status: 'cobra' } as const

  it('when a divorced spouse continues under COBRA on the same plan, then the employee’s level drops to the remaining active members and the ex-spouse is individual', () => {
    const spans = timeline([
      event({ medical: ['S', 'P', 'C', 'D'].map((m) => cov(m, 'A', '2027-01-01')) }),
      event({ medical: [cov('P', 'A', '2027-01-01', '2027-03-31')] }, { id: 'divorce' }),
      event({ medical: [cov('P', 'A', '2027-04-01', null, cobra)] }, { id: 'cobra' }),
    ])
    expect(of(spans, 'S')).toEqual(['A 2027-01-01..2027-03-31 family', 'A 2027-04-01.. employee_and_children'])
    expect(of(spans, 'C')).toEqual(['A 2027-01-01..2027-03-31 family', 'A 2027-04-01.. employee_and_children'])
    expect(of(spans, 'P')).toEqual(['A 2027-01-01..2027-03-31 family', 'A 2027-04-01.. individual'])
    expect(spans.filter((s) => s.memberId === 'P').map((s) => s.status)).toEqual(['employer_sponsored', 'cobra'])
  })

  it('when a child ages out onto COBRA, then the employee alone with it is employee only, no longer employee and one dependent', () => {
    const spans = timeline([
      event({ medical: ['S', 'C'].map((m) => cov(m, 'A', '2027-01-01')) }),
      event({ medical: [cov('C', 'A', '2027-01-01', '2027-08-31')] }, { id: 'ages-out' }),
      event({ medical: [cov('C', 'A', '2027-09-01', null, cobra)] }, { id: 'cobra' }),
    ])
    expect(of(spans, 'S')).toEqual(['A 2027-01-01..2027-08-31 employee_and_one_dependent', 'A 2027-09-01.. employee_only'])
    expect(of(spans, 'C')).toEqual(['A 2027-01-01..2027-08-31 employee_and_one_dependent', 'A 2027-09-01.. individual'])
  })

  it('when a COBRA member holds the plan beside active ones, then neither counts the other, and COBRA members with the employee among them are levelled as a family of their own', () => {
    // Beside: the spouse and a child stay active with the employee; the other child is on COBRA.
    const beside = timeline([event({ medical: ['S', 'P', 'D'].map((m) => cov(m, 'A', '2027-01-01')).concat(cov('C', 'A', '2027-01-01', null, cobra)) })])
    for (const member of ['S', 'P', 'D']) expect(of(beside, member)).toEqual(['A 2027-01-01.. family'])
    expect(of(beside, 'C')).toEqual(['A 2027-01-01.. individual'])
    // After a termination the employee and the spouse continue under COBRA: employee and spouse,
    // whatever else holds the plan actively (here nobody).
    const terminated = timeline([
      event({ medical: ['S', 'P', 'C'].map((m) => cov(m, 'A', '2027-01-01', '2027-04-30')) }),
      event({ medical: ['S', 'P'].map((m) => cov(m, 'A', '2027-05-01', null, cobra)) }),
    ])
    expect(of(terminated, 'S')).toEqual(['A 2027-01-01..2027-04-30 family', 'A 2027-05-01.. employee_and_spouse'])
    expect(of(terminated, 'P')).toEqual(['A 2027-01-01..2027-04-30 family', 'A 2027-05-01.. employee_and_spouse'])
    expect(of(terminated, 'C')).toEqual(['A 2027-01-01..2027-04-30 family'])
  })

  it('when levels are taken off again, then spans that differ only by level become one', () => {
    const spans = timeline([event({ medical: ['S', 'C'].map((m) => cov(m, 'A', '2027-01-01')) }), event({ medical: [cov('P', 'A', '2027-03-01', '2027-08-31')] })])
    expect(of(spans, 'S')).toHaveLength(3)
    expect(of(unlevel(spans), 'S')).toEqual(['A 2027-01-01..'])
    expect(levelSpans(unlevel(spans), FAMILY)).toEqual(spans)
  })
})

describe('firstDifference', () => {
  const before = timeline([FAMILY_ON_A])
  it('when two timelines say the same on every date, then there is no difference', () => {
    expect(firstDifference(before, before)).toBeNull()
    expect(firstDifference([], [])).toBeNull()
    // Split differently but saying the same: still no difference.
    expect(firstDifference(before, timeline([FAMILY_ON_A, event({ medical: [cov('S', 'A', '2027-05-01')] })]))).toBeNull()
  })

  it('when an event changes the plan from a date, then that date is the first difference', () => {
    expect(firstDifference(before, timeline([FAMILY_ON_A, event({ medical: [cov('S', 'B', '2027-04-01')] })]))).toBe('2027-04-01')
  })

  it('when only an end moves, then the difference starts the day after the earlier end', () => {
    const ending = (end: string) => timeline([FAMILY_ON_A, event({ medical: [cov('C', 'A', '2027-01-01', end)] })])
    expect(firstDifference(ending('2027-03-31'), ending('2027-05-31'))).toBe('2027-04-01')
    expect(firstDifference(before, ending('2027-09-30'))).toBe('2027-10-01')
  })

  it('when only a coverage level changes, then its date is the difference', () => {
    const withSpouse = timeline([event({ medical: ['S', 'C'].map((m) => cov(m, 'A', '2027-01-01')) }), event({ medical: [cov('P', 'A', '2027-06-01')] })])
    const alone = timeline([event({ medical: ['S', 'C'].map((m) => cov(m, 'A', '2027-01-01')) })])
    expect(firstDifference(alone, withSpouse)).toBe('2027-06-01')
  })

  it('when a coverage is cancelled, then its start is the difference', () => {
    expect(firstDifference(before, timeline([FAMILY_ON_A, event({ dental: [cov('S', 'X', '2027-02-01')] }), event({ dental: [cov('S', 'X', '2027-02-01', '2027-01-31')] })]))).toBeNull()
    const withDental = timeline([FAMILY_ON_A, event({ dental: [cov('S', 'X', '2027-02-01')] })])
    expect(firstDifference(withDental, before)).toBe('2027-02-01')
  })
})

describe('changedCoveragePeriods', () => {
  const periods = new Map<string, PeriodDates>([
    ['cp27', { startDate: '2027-01-01', endDate: '2027-12-31' }],
    ['cp28', { startDate: '2028-01-01', endDate: '2028-12-31' }],
  ])
  const before = timeline([FAMILY_ON_A])
  const renew = (o: Partial<ElectedCoverage> = {}) => event({ medical: [cov('S', 'A28', '2028-01-01', null, { coveragePeriodId: 'cp28', ...o })] })

  it('when a renewal cuts last year’s coverage exactly at its period’s end, then only the new period has something to tell', () => {
    const after = timeline([FAMILY_ON_A, renew()])
    expect(of(after, 'S')).toEqual(['A 2027-01-01..2027-12-31 family', 'A28 2028-01-01.. employee_only'])
    expect(changedCoveragePeriods(before, after, periods)).toEqual(['cp28'])
  })

  it('when a change falls within a period, then that period is told', () => {
    const after = timeline([FAMILY_ON_A, event({ medical: [cov('C', 'A', '2027-01-01', '2027-11-30')] })])
    expect(changedCoveragePeriods(before, after, periods)).toEqual(['cp27'])
  })

  it('when a coverage level changes within a period, then that period is told', () => {
    const after = timeline([FAMILY_ON_A, event({ medical: [cov('C', 'A', '2027-01-01', '2027-12-30')] })])
    expect(changedCoveragePeriods(before, after, periods)).toEqual(['cp27'])
  })

  it('when nothing changes, or the coverage period is unknown, then no period is told', () => {
    expect(changedCoveragePeriods(before, before, periods)).toEqual([])
    const elsewhere = timeline([FAMILY_ON_A, renew({ coveragePeriodId: 'cp-unknown' })])
    expect(changedCoveragePeriods(before, elsewhere, new Map([['cp-unknown-other', { startDate: '2028-01-01', endDate: null }]]))).toEqual([])
  })
})

/*
 * The rules again, day by day: an independent reference for what the spans must say. For each
 * member and line, the days of 2027 each hold a plan or nothing; an election clears its member's
 * line from its start and fills start..end; a waiver clears every member's line from the
 * eligibility start. Levels count the members holding the plan that day with the same benefit
 * status (active members among active ones, COBRA members among COBRA ones).
 */
const month = (m: number) => `2027-${String(m).padStart(2, '0')}-01`
const monthEnd = (m: number) => addDays(m === 12 ? '2028-01-01' : month(m + 1), -1)
/** Every boundary of the events below falls on a month's first or last day: these days see every change. */
const DAYS = Array.from({ length: 12 }, (_, i) => i + 1).flatMap((m) => [month(m), `${month(m).slice(0, 8)}15`, monthEnd(m)])
const MEMBERS = ['S', 'P', 'C', 'D']
const LINES = ['medical', 'dental']
const PLANS: Record<string, string[]> = { medical: ['A', 'B'], dental: ['X'] }
type Held = { plan: string; status: string } | null

function referenceDays(events: readonly EventChanges[]): Map<string, Held[]> {
  const days = new Map<string, Held[]>(MEMBERS.flatMap((m) => LINES.map((l) => [`${m}|${l}`, DAYS.map((): Held => null)] as const)))
  for (const e of events) {
    for (const line of e.waivedLines) for (const m of MEMBERS) days.get(`${m}|${line}`)!.forEach((_, i, held) => DAYS[i]! >= e.eligibilityStartDate && (held[i] = null))
    for (const { line, coverages } of e.elections) {
      for (const c of coverages) {
        const held = days.get(`${c.memberId}|${line}`)!
        DAYS.forEach((day, i) => {
          if (day >= c.startDate) held[i] = day <= (c.endDate ?? '9999-12-31') ? { plan: c.planId, status: c.status } : null
        })
      }
    }
  }
  return days
}

const monthStart = fc.integer({ min: 1, max: 12 }).map(month)
/** An election of one member: open, cancelled (end = start - 1), or ending at the end of a month on or after its start. */
const electedCoverage = (line: string) =>
  fc
    .record({
      memberId: fc.constantFrom(...MEMBERS),
      planId: fc.constantFrom(...PLANS[line]!),
      startMonth: fc.integer({ min: 1, max: 12 }),
      end: fc.oneof(fc.constant<'open'>('open'), fc.constant<'cancel'>('cancel'), fc.integer({ min: 0, max: 11 })),
      status: fc.constantFrom<ElectedCoverage['status']>('employer_sponsored', 'employer_sponsored', 'cobra'),
    })
    .map(({ startMonth, end, memberId, planId, status }): ElectedCoverage => {
      const startDate = month(startMonth)
      const endDate = end === 'open' ? null : end === 'cancel' ? addDays(startDate, -1) : monthEnd(Math.min(12, startMonth + end))
      return { memberId, planId, status, startDate, endDate, coveragePeriodId: 'cp27', volume: null }
    })
const randomEvent = fc
  .record({
    medical: fc.option(fc.uniqueArray(electedCoverage('medical'), { minLength: 1, maxLength: 4, selector: (c) => c.memberId }), { nil: undefined }),
    dental: fc.option(fc.uniqueArray(electedCoverage('dental'), { minLength: 1, maxLength: 4, selector: (c) => c.memberId }), { nil: undefined }),
    waive: fc.option(fc.constantFrom('medical', 'dental'), { freq: 5, nil: undefined }),
    eligibility: monthStart,
  })
  .map(({ medical, dental, waive, eligibility }) =>
    event(
      Object.fromEntries(
        Object.entries({ medical, dental })
          .filter(([line, c]) => c !== undefined && line !== waive)
          .map(([line, c]) => [line, c!]),
      ),
      { waived: waive ? [waive] : [], eligibility },
    ),
  )

describe('the coverage timeline against a day-by-day reference', () => {
  it('when random events are applied, then the leveled spans hold on every day what the rules say, at most one per line, and levelling is stable', () => {
    fc.assert(
      fc.property(fc.array(randomEvent, { minLength: 1, maxLength: 6 }), (events) => {
        // Applied the way the service does: each event to the stored (leveled) timeline, unlevelled first.
        const spans = events.reduce<LeveledSpan[]>((stored, e) => levelSpans(applyEvent(unlevel(stored), FAMILY, e), FAMILY), [])
        const reference = referenceDays(events)
        DAYS.forEach((day, i) => {
          const holders = new Map<string, Set<string>>()
          for (const m of MEMBERS) for (const l of LINES) {
            const held = reference.get(`${m}|${l}`)![i]
            const unit = held && `${held.plan}|${held.status}`
            if (unit) holders.set(unit, new Set([...(holders.get(unit) ?? []), m]))
          }
          for (const m of MEMBERS) {
            for (const l of LINES) {
              const inForce = spans.filter((s) => s.memberId === m && s.line === l && inForceOn(s, day))
              const held = reference.get(`${m}|${l}`)![i]
              const want: { planId: string; status: string; coverageLevel: CoverageLevel }[] = held
                ? [{ planId: held.plan, status: held.status, coverageLevel: coverageLevelOf(FAMILY, holders.get(`${held.plan}|${held.status}`)!) }]
                : []
              expect(inForce.map((s) => ({ planId: s.planId, status: s.status, coverageLevel: s.coverageLevel })), `${m} ${l} on ${day}`).toEqual(want)
            }
          }
        })
        // Stored spans are canonical: no two neighbours of one member and line say the same.
        const sorted = [...spans].sort((a, b) => `${a.memberId}${a.line}${a.startDate}`.localeCompare(`${b.memberId}${b.line}${b.startDate}`))
        sorted.forEach((s, i) => {
          const next = sorted[i + 1]
          if (next && next.memberId === s.memberId && next.line === s.line && s.endDate !== null && addDays(s.endDate, 1) === next.startDate) {
            expect([s.planId, s.status, s.coverageLevel]).not.toEqual([next.planId, next.status, next.coverageLevel])
          }
        })
        const withoutEvent = (list: LeveledSpan[]) => list.map(({ qualifyingLifeEventId: _e, ...rest }) => rest)
        expect(withoutEvent(levelSpans(unlevel(spans), FAMILY))).toEqual(withoutEvent(spans))
      }),
      { numRuns: 150 },
    )
  })
})
