import { addDays, inForceOn, type CoverageLevel, type CoverageStatus } from '../coverage-timeline/coverage-timeline.model.js'

/**
 * What a carrier holds about one member's coverages, and the difference to what is true
 * (api-contract.md section 10, x12-834-notes.md "Life events in the 834"). Pure functions: the
 * file builder reads the spans and the stored view, these decide the HD loops.
 *
 * A carrier record is one coverage as an 834 names it: a member in one plan with one benefit
 * status (active or COBRA) from a start date (DTP*348) to an end date (DTP*349) or open. Its
 * coverage level and amount may change during it (HD*001 dated by DTP*303): those are its terms.
 * Records are seen through the coverage period's window: a span reaching past the plan year's end
 * is open-ended for that carrier (the plan year ends it), so a renewal's elections do not tell the
 * old carrier anything.
 */

export interface CarrierTerm {
  from: string
  coverageLevel: CoverageLevel
  volume: number | null
}

export interface CarrierRecord {
  line: string
  planId: string
  status: CoverageStatus
  startDate: string
  endDate: string | null
  terms: CarrierTerm[]
}

/** The spans' fields records are made of (a stored span or a loaded one). */
export interface SpanLike {
  line: string
  planId: string
  status: CoverageStatus
  startDate: string
  endDate: string | null
  volume: number | null
  coverageLevel: CoverageLevel
}

export interface PeriodWindow {
  startDate: string
  endDate: string | null
}

const recordKey = (record: Pick<CarrierRecord, 'line' | 'planId' | 'status' | 'startDate'>) => `${record.line}|${record.planId}|${record.status}|${record.startDate}`

const sameTerm = (a: CarrierTerm, b: CarrierTerm, levels = true) => (!levels || a.coverageLevel === b.coverageLevel) && a.volume === b.volume

// Records and terms are copied field by field, never as `{ ...record, terms }`: on Node 20 a spread
// followed by more properties takes V8's slow path (about 1 µs, and an object slow to read after),
// which a full file would pay some 400,000 times.

/** The record with other terms. */
export const recordWithTerms = (record: CarrierRecord, terms: CarrierTerm[]): CarrierRecord => ({
  line: record.line,
  planId: record.planId,
  status: record.status,
  startDate: record.startDate,
  endDate: record.endDate,
  terms,
})

/** The term from another date. */
const termFrom = (term: CarrierTerm, from: string): CarrierTerm => ({ from, coverageLevel: term.coverageLevel, volume: term.volume })

/**
 * One member's records from its spans of one coverage period. `withLevels`: a subscriber's
 * records follow the family's coverage level; a dependent's keep the level they started with,
 * because level changes are told on the subscriber's loop only (the notes' table), except a level
 * without the subscriber (`individual`: the subscriber no longer holds the plan, as after its
 * death): no subscriber's loop can tell that one, so the dependent's own loop does.
 */
export function carrierRecords(spans: readonly SpanLike[], window: PeriodWindow, withLevels: boolean): CarrierRecord[] {
  const clipped = spans
    .filter((span) => (span.endDate === null || span.endDate >= window.startDate) && (window.endDate === null || span.startDate <= window.endDate))
    .map((span): SpanLike => ({
      line: span.line,
      planId: span.planId,
      status: span.status,
      startDate: span.startDate < window.startDate ? window.startDate : span.startDate,
      endDate: span.endDate === null || (window.endDate !== null && span.endDate >= window.endDate) ? null : span.endDate,
      volume: span.volume,
      coverageLevel: span.coverageLevel,
    }))
    .sort((a, b) => (a.line < b.line ? -1 : a.line > b.line ? 1 : a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : 0))
  const records: CarrierRecord[] = []
  for (const span of clipped) {
    const term: CarrierTerm = { from: span.startDate, coverageLevel: span.coverageLevel, volume: span.volume }
    const last = records.at(-1)
    if (last && last.line === span.line && last.planId === span.planId && last.status === span.status && last.endDate !== null && addDays(last.endDate, 1) === span.startDate) {
      last.endDate = span.endDate
      const lastTerm = last.terms.at(-1)!
      const next: CarrierTerm = withLevels || toldOnDependent(term) ? term : { from: term.from, coverageLevel: lastTerm.coverageLevel, volume: term.volume }
      if (!sameTerm(lastTerm, next)) last.terms.push(next)
    } else {
      records.push({ line: span.line, planId: span.planId, status: span.status, startDate: span.startDate, endDate: span.endDate, terms: [term] })
    }
  }
  return records
}

/** A dependent's level told on its own loop: covered without the subscriber (see carrierRecords). */
const toldOnDependent = (term: CarrierTerm) => term.coverageLevel === 'individual'

/** The term of a record in force on a date (the first one before its start). */
export function termOn(record: CarrierRecord, date: string): CarrierTerm {
  let found = record.terms[0]!
  for (const term of record.terms) if (term.from <= date) found = term
  return found
}

/**
 * What a full file tells about a member: per line, the record in force on the file's effective
 * date or, when none is, the first one after it, with the terms of that day. Never two plans of
 * one line; whatever else is true travels in the change file that follows.
 */
export function fullFileRecords(records: readonly CarrierRecord[], effectiveDate: string): CarrierRecord[] {
  const byLine = new Map<string, CarrierRecord>()
  for (const record of records) {
    const chosen = byLine.get(record.line)
    if (inForceOn(record, effectiveDate)) {
      byLine.set(record.line, record)
    } else if (record.startDate > effectiveDate && (!chosen || (!inForceOn(chosen, effectiveDate) && record.startDate < chosen.startDate))) {
      byLine.set(record.line, record)
    }
  }
  return [...byLine.values()].map((record) => {
    const term = termOn(record, effectiveDate < record.startDate ? record.startDate : effectiveDate)
    return recordWithTerms(record, [termFrom(term, record.startDate)])
  })
}

export type CoverageChange =
  /** HD*021: a coverage the carrier does not hold. */
  | { kind: 'addition'; record: CarrierRecord }
  /** HD*024 with the new DTP*349 (in the past or the future; earlier or later than the end told before). */
  | { kind: 'termination'; record: CarrierRecord }
  /** HD*024 with DTP*349 = start - 1: a coverage that never took effect. */
  | { kind: 'cancellation'; record: CarrierRecord }
  /**
   * HD*025: a coverage the carrier holds as ended runs on with no end (`toldEnd`: the end it held,
   * so the change takes effect the day after), or a re-hire's coverage after a gap.
   */
  | { kind: 'reinstatement'; record: CarrierRecord; toldEnd?: string }
  /** HD*001: a new coverage level or amount from `term.from` (DTP*303). */
  | { kind: 'change'; record: CarrierRecord; term: CarrierTerm }

const KIND_ORDER: Record<CoverageChange['kind'], number> = { cancellation: 0, termination: 1, reinstatement: 2, addition: 3, change: 4 }

/**
 * The level and amount changes that turn `told`'s terms into `truth`'s, one per date they differ
 * within the coverage, and the terms the carrier then holds: a change from a date leaves the
 * carrier's later terms in place, so the view must keep them too (a later change may uncover
 * them). Without `levels` (a dependent's coverage) only amounts count.
 */
function termChanges(told: CarrierRecord, truth: CarrierRecord, levels: boolean): { changes: CoverageChange[]; held: CarrierTerm[] } {
  const within = (date: string) => date >= truth.startDate && (truth.endDate === null || date <= truth.endDate)
  const dates = [...new Set([...told.terms, ...truth.terms].map((term) => term.from))].filter(within).sort()
  const changes: CoverageChange[] = []
  let held = told.terms
  for (const date of dates) {
    const want = termOn(truth, date)
    if (!sameTerm(want, termOn(recordWithTerms(told, held), date), levels || toldOnDependent(want))) {
      const term = termFrom(want, date)
      changes.push({ kind: 'change', record: truth, term })
      held = [...held.filter((t) => t.from !== date), term].sort((x, y) => (x.from < y.from ? -1 : 1))
    }
  }
  return { changes, held }
}

/** The HD loops from `told` to `truth` for one member, and the records the carrier then holds. */
export interface RecordsDifference {
  changes: CoverageChange[]
  /** What the carrier holds once it applied the changes: the view to store. */
  held: CarrierRecord[]
}

/**
 * The HD loops that bring the carrier from `told` to `truth` for one member, in the order they go
 * out. `levels`: whether coverage level changes are told on this member's loop (the subscriber's;
 * a dependent's HD05 is its level when added, x12-834-notes.md).
 */
export function recordsDifference(told: readonly CarrierRecord[], truth: readonly CarrierRecord[], levels = true): RecordsDifference {
  const toldByKey = new Map(told.map((record) => [recordKey(record), record]))
  const truthKeys = new Set(truth.map(recordKey))
  const changes: CoverageChange[] = []
  const held: CarrierRecord[] = []
  for (const record of told) {
    if (!truthKeys.has(recordKey(record))) changes.push({ kind: 'cancellation', record })
  }
  for (const record of truth) {
    const known = toldByKey.get(recordKey(record))
    if (!known) changes.push({ kind: 'addition', record })
    else if (known.endDate !== record.endDate) {
      // A coverage that still ends, earlier or later than told, is a termination with its new
      // last day (HD*024, DTP*349): the member keeps no coverage past it, so nothing is
      // reinstated (x12-834-notes.md: INS03 024 when nothing stays in force). Only an end removed
      // brings the coverage back (HD*025).
      changes.push(record.endDate !== null ? { kind: 'termination', record } : { kind: 'reinstatement', record, toldEnd: known.endDate! })
    }
    const terms = termChanges(known ?? recordWithTerms(record, [record.terms[0]!]), record, levels)
    changes.push(...terms.changes)
    held.push(recordWithTerms(record, terms.held))
  }
  changes.sort((a, b) => (a.record.line < b.record.line ? -1 : a.record.line > b.record.line ? 1 : KIND_ORDER[a.kind] - KIND_ORDER[b.kind]))
  return { changes, held }
}

/** The HD loops alone (see recordsDifference). */
export function coverageChanges(told: readonly CarrierRecord[], truth: readonly CarrierRecord[], levels = true): CoverageChange[] {
  return recordsDifference(told, truth, levels).changes
}

/** The date a change takes effect: DTP*303 of its member loop is the earliest of its changes'. */
export function changeEffectiveDate(change: CoverageChange): string {
  switch (change.kind) {
    case 'addition':
    case 'cancellation':
      return change.record.startDate
    case 'termination':
      return addDays(change.record.endDate!, 1)
    case 'reinstatement':
      // An end removed takes effect the day after the end told; a re-hire's coverage on its start.
      return change.toldEnd !== undefined ? addDays(change.toldEnd, 1) : change.record.startDate
    case 'change':
      return change.term.from
  }
}

/** Whether a line's changes are a plan change: the old plan ended or cancelled, another one added. */
export function isPlanChange(changes: readonly CoverageChange[]): boolean {
  const byLine = new Map<string, CoverageChange[]>()
  for (const change of changes) byLine.set(change.record.line, [...(byLine.get(change.record.line) ?? []), change])
  if (byLine.size === 0) return false
  for (const lineChanges of byLine.values()) {
    const ended = lineChanges.filter((c) => c.kind === 'termination' || c.kind === 'cancellation')
    const added = lineChanges.filter((c) => c.kind === 'addition')
    const others = lineChanges.filter((c) => c.kind !== 'termination' && c.kind !== 'cancellation' && c.kind !== 'addition')
    if (others.length > 0 || ended.length === 0 || added.length === 0) return false
    if (added.some((a) => ended.some((e) => e.record.planId === a.record.planId))) return false
  }
  return true
}

/** Whether the records hold nothing open: every coverage ends. */
export const nothingOpen = (records: readonly CarrierRecord[]) => records.every((record) => record.endDate !== null)
