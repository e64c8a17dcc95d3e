import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { addDays, type CoverageLevel, type CoverageStatus } from '../coverage-timeline/coverage-timeline.model.js'
import {
  carrierRecords,
  changeEffectiveDate,
  coverageChanges,
  recordsDifference,
  fullFileRecords,
  isPlanChange,
  termOn,
  type CarrierRecord,
  type CarrierTerm,
  type CoverageChange,
  type SpanLike,
} from './carrier-view.js'

const YEAR = { startDate: '2027-01-01', endDate: '2027-12-31' }

const span = (planId: string, startDate: string, endDate: string | null, coverageLevel: CoverageLevel = 'employee_only', o: Partial<SpanLike> = {}): SpanLike => ({
  line: 'medical',
  planId,
  status: 'employer_sponsored',
  startDate,
  endDate,
  volume: null,
  coverageLevel,
  ...o,
})

const record = (planId: string, startDate: string, endDate: string | null, terms: [string, CoverageLevel][] = [[startDate, 'employee_only']], o: Partial<CarrierRecord> = {}): CarrierRecord => ({
  line: 'medical',
  planId,
  status: 'employer_sponsored',
  startDate,
  endDate,
  terms: terms.map(([from, coverageLevel]) => ({ from, coverageLevel, volume: null })),
  ...o,
})

/** A change as `kind plan start..end` (and `@from level` for a term change). */
const show = (changes: readonly CoverageChange[]) =>
  changes.map((c) => `${c.kind} ${c.record.line}:${c.record.planId} ${c.record.startDate}..${c.record.endDate ?? ''}${c.kind === 'change' ? ` @${c.term.from} ${c.term.coverageLevel}` : ''}`)

describe('carrierRecords', () => {
  it('when spans reach outside the plan year, then records are clipped to it and a span reaching its last day is open', () => {
    const records = carrierRecords(
      [
        span('OLD', '2026-01-01', '2026-12-31'),
        span('A', '2026-10-01', '2027-03-31'),
        span('B', '2027-04-01', '2027-12-31', 'employee_only', { line: 'medical' }),
        span('X', '2027-02-01', '2028-03-31', 'employee_only', { line: 'dental' }),
        span('NEXT', '2028-01-01', null, 'employee_only', { line: 'vision' }),
      ],
      YEAR,
      true,
    )
    expect(records.map((r) => `${r.line}:${r.planId} ${r.startDate}..${r.endDate ?? ''}`)).toEqual(['dental:X 2027-02-01..', 'medical:A 2027-01-01..2027-03-31', 'medical:B 2027-04-01..'])
    expect(records.find((r) => r.planId === 'A')!.terms).toEqual([{ from: '2027-01-01', coverageLevel: 'employee_only', volume: null }])
  })

  it('when the window has no end, then ends stay as they are', () => {
    expect(carrierRecords([span('A', '2027-01-01', '2027-12-31')], { startDate: '2027-01-01', endDate: null }, true)[0]!.endDate).toBe('2027-12-31')
  })

  it('when neighbouring spans of one plan differ by level, then a subscriber’s record carries each level as a term', () => {
    const spans = [span('A', '2027-01-01', '2027-02-28', 'employee_only'), span('A', '2027-03-01', '2027-06-30', 'employee_and_spouse'), span('A', '2027-07-01', null, 'employee_only')]
    expect(carrierRecords(spans, YEAR, true)).toEqual([
      record('A', '2027-01-01', null, [
        ['2027-01-01', 'employee_only'],
        ['2027-03-01', 'employee_and_spouse'],
        ['2027-07-01', 'employee_only'],
      ]),
    ])
  })

  it('when a dependent’s spans differ by level only, then its record keeps the level it started with; a volume change is still a term', () => {
    const spans = [span('A', '2027-01-01', '2027-02-28', 'family'), span('A', '2027-03-01', null, 'employee_and_children')]
    expect(carrierRecords(spans, YEAR, false)).toEqual([record('A', '2027-01-01', null, [['2027-01-01', 'family']])])
    const life = [span('L', '2027-01-01', '2027-03-31', 'family', { line: 'voluntary_life', volume: 100 }), span('L', '2027-04-01', null, 'employee_and_children', { line: 'voluntary_life', volume: 200 })]
    expect(carrierRecords(life, YEAR, false)[0]!.terms).toEqual([
      { from: '2027-01-01', coverageLevel: 'family', volume: 100 },
      { from: '2027-04-01', coverageLevel: 'family', volume: 200 },
    ])
  })

  // The subscriber's loop cannot tell a level it is not part of: after the subscriber's death, the
  // survivors continuing on the plan are told IND on their own loops (docs/decisions.md, "Member loops").
  it('when a dependent continues without the subscriber (level individual), then its record carries that level as a term, and the difference is an HD*001', () => {
    const spans = [span('A', '2027-01-01', '2027-05-31', 'family'), span('A', '2027-06-01', null, 'individual')]
    const records = carrierRecords(spans, YEAR, false)
    expect(records).toEqual([
      record('A', '2027-01-01', null, [
        ['2027-01-01', 'family'],
        ['2027-06-01', 'individual'],
      ]),
    ])
    const told = [record('A', '2027-01-01', null, [['2027-01-01', 'family']])]
    expect(show(coverageChanges(told, records, false))).toEqual(['change medical:A 2027-01-01.. @2027-06-01 individual'])
  })

  it('when spans of one plan have a gap, or the plan or status changes, then they are separate records', () => {
    const records = carrierRecords(
      [span('A', '2027-01-01', '2027-02-28'), span('A', '2027-04-01', '2027-05-31'), span('B', '2027-06-01', '2027-07-31'), span('B', '2027-08-01', null, 'employee_only', { status: 'cobra' })],
      YEAR,
      true,
    )
    expect(records.map((r) => `${r.planId} ${r.status} ${r.startDate}..${r.endDate ?? ''}`)).toEqual([
      'A employer_sponsored 2027-01-01..2027-02-28',
      'A employer_sponsored 2027-04-01..2027-05-31',
      'B employer_sponsored 2027-06-01..2027-07-31',
      'B cobra 2027-08-01..',
    ])
  })
})

describe('termOn', () => {
  it('when asked for a date, then the last term from on or before it answers (the first before the start)', () => {
    const r = record('A', '2027-01-01', null, [
      ['2027-01-01', 'employee_only'],
      ['2027-05-01', 'family'],
    ])
    expect(termOn(r, '2026-12-01').coverageLevel).toBe('employee_only')
    expect(termOn(r, '2027-04-30').coverageLevel).toBe('employee_only')
    expect(termOn(r, '2027-05-01').coverageLevel).toBe('family')
    expect(termOn(r, '2027-12-31').coverageLevel).toBe('family')
  })
})

describe('fullFileRecords', () => {
  it('when a line has a plan in force on the effective date and another later, then the one in force is told, with the terms of that day', () => {
    const records = [
      record('A', '2027-01-01', '2027-03-31', [
        ['2027-01-01', 'employee_only'],
        ['2027-02-01', 'family'],
      ]),
      record('B', '2027-04-01', null),
      record('X', '2027-01-01', null, [['2027-01-01', 'family']], { line: 'dental' }),
    ]
    expect(fullFileRecords(records, '2027-01-01')).toEqual([record('A', '2027-01-01', '2027-03-31'), record('X', '2027-01-01', null, [['2027-01-01', 'family']], { line: 'dental' })])
    // From a later effective date: that day's terms, from the record's start.
    expect(fullFileRecords(records.slice(0, 1), '2027-02-15')).toEqual([record('A', '2027-01-01', '2027-03-31', [['2027-01-01', 'family']])])
  })

  it('when nothing is in force on the effective date, then the first record after it is told', () => {
    const records = [record('C', '2027-06-01', null), record('B', '2027-03-01', '2027-05-31', [['2027-03-01', 'employee_and_spouse']])]
    expect(fullFileRecords(records, '2027-01-01')).toEqual([record('B', '2027-03-01', '2027-05-31', [['2027-03-01', 'employee_and_spouse']])])
  })

  it('when the full file cannot say everything, then the changes that follow it bring the carrier to the truth', () => {
    const records = [record('A', '2027-01-01', '2027-03-31'), record('B', '2027-04-01', null)]
    const told = fullFileRecords(records, '2027-01-01')
    expect(show(coverageChanges(told, records))).toEqual(['addition medical:B 2027-04-01..'])
  })
})

describe('coverageChanges', () => {
  const open = record('A', '2027-01-01', null)

  it('when the carrier holds the truth, then there is nothing to tell', () => {
    expect(coverageChanges([], [])).toEqual([])
    expect(coverageChanges([open], [open])).toEqual([])
    const leveled = record('A', '2027-01-01', null, [
      ['2027-01-01', 'employee_only'],
      ['2027-03-01', 'family'],
    ])
    expect(coverageChanges([leveled], [structuredClone(leveled)])).toEqual([])
  })

  it('when the carrier holds nothing, then each record is an addition, followed by its later terms as changes', () => {
    const truth = record('A', '2027-02-01', null, [
      ['2027-02-01', 'employee_only'],
      ['2027-05-01', 'employee_and_spouse'],
    ])
    const changes = coverageChanges([], [truth])
    expect(show(changes)).toEqual(['addition medical:A 2027-02-01..', 'change medical:A 2027-02-01.. @2027-05-01 employee_and_spouse'])
    expect(changes.map(changeEffectiveDate)).toEqual(['2027-02-01', '2027-05-01'])
  })

  it('when a coverage the carrier holds ends earlier (past or future), then it is a termination dated the day after its end', () => {
    for (const end of ['2027-03-31', '2027-10-31']) {
      const changes = coverageChanges([open], [record('A', '2027-01-01', end)])
      expect(show(changes)).toEqual([`termination medical:A 2027-01-01..${end}`])
      expect(changeEffectiveDate(changes[0]!)).toBe(addDays(end, 1))
    }
    expect(show(coverageChanges([record('A', '2027-01-01', '2027-10-31')], [record('A', '2027-01-01', '2027-03-31')]))).toEqual(['termination medical:A 2027-01-01..2027-03-31'])
  })

  it('when a coverage the carrier holds is no longer true at all, then it is a cancellation dated its start', () => {
    const future = record('B', '2027-06-01', null)
    const changes = coverageChanges([future], [])
    expect(show(changes)).toEqual(['cancellation medical:B 2027-06-01..'])
    expect(changeEffectiveDate(changes[0]!)).toBe('2027-06-01')
  })

  it('when a coverage the carrier holds as ended runs on with no end, then it is a reinstatement', () => {
    expect(show(coverageChanges([record('A', '2027-01-01', '2027-03-31')], [open]))).toEqual(['reinstatement medical:A 2027-01-01..'])
  })

  it('when a coverage the carrier holds as ended ends later instead, then it is a termination with the new last day, not a reinstatement', () => {
    expect(show(coverageChanges([record('A', '2027-01-01', '2027-03-31')], [record('A', '2027-01-01', '2027-08-31')]))).toEqual(['termination medical:A 2027-01-01..2027-08-31'])
  })

  it('when only the level changes, then each date it differs is a change with that date', () => {
    const told = record('A', '2027-01-01', null, [
      ['2027-01-01', 'employee_only'],
      ['2027-03-01', 'family'],
    ])
    const truth = record('A', '2027-01-01', null, [
      ['2027-01-01', 'employee_only'],
      ['2027-05-01', 'family'],
    ])
    const changes = coverageChanges([told], [truth])
    expect(show(changes)).toEqual(['change medical:A 2027-01-01.. @2027-03-01 employee_only', 'change medical:A 2027-01-01.. @2027-05-01 family'])
    expect(changes.map(changeEffectiveDate)).toEqual(['2027-03-01', '2027-05-01'])
    expect(show(coverageChanges([open], [record('A', '2027-01-01', null, [['2027-01-01', 'family']])]))).toEqual(['change medical:A 2027-01-01.. @2027-01-01 family'])
  })

  it('when the plan changes, then the old plan is terminated and the new one added, and that is a plan change', () => {
    const changes = coverageChanges([open], [record('A', '2027-01-01', '2027-03-31'), record('B', '2027-04-01', null)])
    expect(show(changes)).toEqual(['termination medical:A 2027-01-01..2027-03-31', 'addition medical:B 2027-04-01..'])
    expect(isPlanChange(changes)).toBe(true)
    // The plan change undone: the new plan is cancelled and the old one runs on.
    const back = coverageChanges([record('A', '2027-01-01', '2027-03-31'), record('B', '2027-04-01', null)], [open])
    expect(show(back)).toEqual(['cancellation medical:B 2027-04-01..', 'reinstatement medical:A 2027-01-01..'])
    expect(isPlanChange(back)).toBe(false)
  })

  it('when a plan ends and the same plan starts again, or a line only ends, then it is not a plan change', () => {
    expect(isPlanChange(coverageChanges([open], [record('A', '2027-01-01', '2027-03-31'), record('A', '2027-06-01', null)]))).toBe(false)
    expect(isPlanChange(coverageChanges([open], [record('A', '2027-01-01', '2027-03-31')]))).toBe(false)
    expect(isPlanChange([])).toBe(false)
  })

  it('when changes touch several lines, then they go out by line, cancellations and terminations before additions', () => {
    const told = [open, record('X', '2027-01-01', null, undefined, { line: 'dental' })]
    const truth = [record('A', '2027-01-01', '2027-05-31'), record('B', '2027-06-01', null), record('Y', '2027-03-01', null, undefined, { line: 'dental' })]
    expect(show(coverageChanges(told, truth))).toEqual([
      'cancellation dental:X 2027-01-01..',
      'addition dental:Y 2027-03-01..',
      'termination medical:A 2027-01-01..2027-05-31',
      'addition medical:B 2027-06-01..',
    ])
  })

  it('when levels are not told on the member’s loop (a dependent), then only amounts are changes', () => {
    const truth = record('A', '2027-01-01', null, [
      ['2027-01-01', 'employee_only'],
      ['2027-03-01', 'family'],
    ])
    expect(coverageChanges([open], [truth], false)).toEqual([])
    expect(show(coverageChanges([], [truth], false))).toEqual(['addition medical:A 2027-01-01..'])
    const life = (volume: number) => ({ ...open, line: 'voluntary_life', terms: [{ from: '2027-01-01', coverageLevel: 'family' as const, volume }] })
    const changes = coverageChanges([life(100)], [{ ...life(200), terms: [{ from: '2027-01-01', coverageLevel: 'individual', volume: 200 }] }], false)
    expect(changes.map((c) => (c.kind === 'change' ? [c.term.from, c.term.volume] : c.kind))).toEqual([['2027-01-01', 200]])
  })

  it('when the status changes from the same start, then the carrier is told to cancel one and add the other', () => {
    expect(show(coverageChanges([open], [{ ...open, status: 'cobra' }]))).toEqual(['cancellation medical:A 2027-01-01..', 'addition medical:A 2027-01-01..'])
  })

  it('when a coverage ends before a level change the carrier was told, then no change is dated after the coverage ends', () => {
    // Told: employee only, with the spouse from May. Truth: the coverage ends in March (termination of employment).
    const told = record('A', '2027-01-01', null, [
      ['2027-01-01', 'employee_only'],
      ['2027-05-01', 'employee_and_spouse'],
    ])
    const changes = coverageChanges([told], [record('A', '2027-01-01', '2027-03-31')])
    expect(show(changes)).toEqual(['termination medical:A 2027-01-01..2027-03-31'])
  })
})

/*
 * The carrier's side, simply: it holds records by plan and start; an addition adds one with its
 * first term, a termination or reinstatement sets the end, a cancellation removes it, a change
 * sets the term from its date (from the start when dated before it). Applying the changes to what
 * was told must give the truth.
 */
function applyChanges(told: readonly CarrierRecord[], changes: readonly CoverageChange[]): CarrierRecord[] {
  const held = told.map((r) => structuredClone(r))
  const find = (r: CarrierRecord) => {
    const index = held.findIndex((h) => h.planId === r.planId && h.startDate === r.startDate)
    if (index < 0) throw new Error(`carrier holds no ${r.planId} from ${r.startDate}`)
    return index
  }
  for (const change of changes) {
    const r = change.record
    switch (change.kind) {
      case 'addition':
        if (held.some((h) => h.planId === r.planId && h.startDate === r.startDate)) throw new Error(`${r.planId} from ${r.startDate} added twice`)
        held.push({ ...structuredClone(r), terms: [{ ...r.terms[0]!, from: r.startDate }] })
        break
      case 'cancellation':
        held.splice(find(r), 1)
        break
      case 'termination':
      case 'reinstatement':
        held[find(r)]!.endDate = r.endDate
        break
      case 'change': {
        const h = held[find(r)]!
        const from = change.term.from < h.startDate ? h.startDate : change.term.from
        h.terms = [...h.terms.filter((t) => t.from !== from), { ...change.term, from }].sort((a, b) => a.from.localeCompare(b.from))
        break
      }
    }
  }
  return held
}

/** Records as values: sorted, with the terms that apply within their dates, neighbours that say the same merged. */
function canonical(records: readonly CarrierRecord[]): CarrierRecord[] {
  return [...records]
    .map((r) => {
      const terms: CarrierTerm[] = []
      for (const t of [...r.terms].sort((a, b) => a.from.localeCompare(b.from))) {
        if (r.endDate !== null && t.from > r.endDate) continue
        const last = terms.at(-1)
        if (last && last.coverageLevel === t.coverageLevel && last.volume === t.volume) continue
        terms.push({ ...t })
      }
      return { ...r, terms }
    })
    .sort((a, b) => `${a.line}${a.startDate}${a.planId}`.localeCompare(`${b.line}${b.startDate}${b.planId}`))
}

const MONTHS = Array.from({ length: 12 }, (_, i) => `2027-${String(i + 1).padStart(2, '0')}-01`)
const LEVELS: CoverageLevel[] = ['employee_only', 'employee_and_spouse', 'family']
const PLANS: Record<string, string[]> = { medical: ['M1', 'M2'], dental: ['D1'] }

/** One line's records of one member: non-overlapping, from month starts, each with terms from its start. */
const lineRecords = (line: string) =>
  fc
    .array(
      fc.record({
        gap: fc.integer({ min: 0, max: 2 }),
        months: fc.integer({ min: 1, max: 6 }),
        open: fc.boolean(),
        planId: fc.constantFrom(...PLANS[line]!),
        status: fc.constantFrom<CoverageStatus>('employer_sponsored', 'cobra'),
        terms: fc.array(fc.record({ at: fc.integer({ min: 0, max: 5 }), level: fc.constantFrom(...LEVELS), volume: fc.constantFrom(null, 100, 200) }), { maxLength: 3 }),
        firstLevel: fc.constantFrom(...LEVELS),
      }),
      { maxLength: 3 },
    )
    .map((pieces) => {
      const records: CarrierRecord[] = []
      let month = 0
      for (const piece of pieces) {
        month += piece.gap
        if (month >= 12) break
        const startDate = MONTHS[month]!
        const endMonth = Math.min(12, month + piece.months)
        const endDate = endMonth === 12 || piece.open ? null : addDays(MONTHS[endMonth]!, -1)
        const terms = new Map<string, CarrierTerm>([[startDate, { from: startDate, coverageLevel: piece.firstLevel, volume: null }]])
        for (const t of piece.terms) {
          const from = MONTHS[Math.min(11, month + t.at)]!
          if (endDate === null || from <= endDate) terms.set(from, { from, coverageLevel: t.level, volume: t.volume })
        }
        // As carrierRecords makes them: a term only where the level or volume changes.
        const sorted = [...terms.values()].sort((a, b) => a.from.localeCompare(b.from))
        const kept = sorted.filter((t, i) => i === 0 || t.coverageLevel !== sorted[i - 1]!.coverageLevel || t.volume !== sorted[i - 1]!.volume)
        records.push({ line, planId: piece.planId, status: piece.status, startDate, endDate, terms: kept })
        if (endDate === null) break
        month = endMonth
      }
      return records
    })
const memberRecords = fc.tuple(lineRecords('medical'), lineRecords('dental')).map(([m, d]) => [...m, ...d])

describe('coverageChanges against a reference carrier', () => {
  it('when the carrier applies the changes from any told records to any true ones, then it holds the truth', () => {
    fc.assert(
      fc.property(memberRecords, memberRecords, (told, truth) => {
        const changes = coverageChanges(told, truth)
        expect(canonical(applyChanges(told, changes))).toEqual(canonical(truth))
        // Nothing left to tell afterwards, and nothing at all when told already equals the truth.
        expect(coverageChanges(truth, truth)).toEqual([])
      }),
      { numRuns: 500 },
    )
  })

  it('when the carrier is told change after change, each from the view stored after the last, then it holds the truth after each', () => {
    // One plan, two levels, a few dates: where a level told for a later date can outlive the view.
    const simple = fc
      .record({
        end: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
        terms: fc.uniqueArray(fc.record({ month: fc.integer({ min: 1, max: 4 }), level: fc.constantFrom<CoverageLevel>('employee_only', 'family') }), { maxLength: 3, selector: (t) => t.month }),
        first: fc.constantFrom<CoverageLevel>('employee_only', 'family'),
      })
      .map(({ end, terms, first }) => {
        const endDate = end === null ? null : addDays(MONTHS[end]!, -1)
        const all = [{ month: 0, level: first }, ...terms.filter((t) => endDate === null || MONTHS[t.month]! <= endDate)].sort((a, b) => a.month - b.month)
        const kept = all.filter((t, i) => i === 0 || t.level !== all[i - 1]!.level)
        return [record('A', MONTHS[0]!, endDate, kept.map((t) => [MONTHS[t.month]!, t.level]))]
      })
    fc.assert(
      fc.property(fc.array(fc.oneof(simple, memberRecords), { minLength: 2, maxLength: 4 }), (truths) => {
        let view: CarrierRecord[] = []
        let carrier: CarrierRecord[] = []
        for (const truth of truths) {
          const difference = recordsDifference(view, truth)
          carrier = applyChanges(carrier, difference.changes)
          expect(canonical(carrier)).toEqual(canonical(truth))
          view = difference.held // what the file builder stores as the carrier's view
        }
      }),
      { numRuns: 1000 },
    )
  })

  it('when a level from a later date was undone and an earlier change follows, then the carrier is not left with the later level', () => {
    // Told: employee and child, family from March. Then family from January (a retroactive spouse),
    // then family in January only: the carrier must end up with employee and child from February.
    const steps = [
      record('A', '2027-01-01', null, [
        ['2027-01-01', 'employee_and_one_dependent'],
        ['2027-03-01', 'family'],
      ]),
      record('A', '2027-01-01', null, [['2027-01-01', 'family']]),
      record('A', '2027-01-01', null, [
        ['2027-01-01', 'family'],
        ['2027-02-01', 'employee_and_one_dependent'],
      ]),
    ]
    let view: CarrierRecord[] = []
    let carrier: CarrierRecord[] = []
    for (const truth of steps) {
      const difference = recordsDifference(view, [truth])
      carrier = applyChanges(carrier, difference.changes)
      view = difference.held
    }
    expect(termOn(carrier[0]!, '2027-03-01').coverageLevel).toBe('employee_and_one_dependent')
  })

  it('when changes are told, then no term change is dated outside its coverage', () => {
    fc.assert(
      fc.property(memberRecords, memberRecords, (told, truth) => {
        for (const change of coverageChanges(told, truth)) {
          if (change.kind !== 'change') continue
          expect(change.term.from >= change.record.startDate && (change.record.endDate === null || change.term.from <= change.record.endDate), show([change])[0]).toBe(true)
        }
      }),
      { numRuns: 300 },
    )
  })
})
