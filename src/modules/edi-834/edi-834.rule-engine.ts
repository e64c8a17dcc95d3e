import { isNpi } from '../../lib/identifiers.js'
import { isStateCode } from '../../lib/us-geography.js'
import { isValidD8 } from './x12-segments.js'
import { el, type X12Token } from './x12-tokenize.js'

/**
 * A small engine that walks segments against a rule table (`edi-834.rules.ts`). The table is
 * data a reviewer can read next to the implementation guide; this file only knows how loops,
 * usage, repeats and element rules work.
 */

export interface Edi834Problem {
  /** 1-based ordinal of the segment in the file (ISA is 1). */
  position: number
  segment: string
  /** e.g. 'INS02', when the problem is one element. */
  element?: string
  /** e.g. '2300', when the problem is inside a loop. */
  loop?: string
  message: string
  /**
   * The 999 (005010X231A1) IK3-04 code of the problem when it lies in a transaction set: '8' an
   * element is wrong, '2' unexpected segment, '3' required segment missing, '4' loop over its
   * maximum, '5' segment over its maximum use. Absent for envelope cross-checks, which a 999
   * reports in IK5/AK9 and a TA1 in its note code instead.
   */
  segmentCode?: SegmentErrorCode
  /** For segmentCode '3': the id of the segment that is missing (`segment` is where it was noticed). */
  missingSegment?: string
  /** The 999 IK4-03 code when the problem is one element (see ElementErrorCode). */
  elementCode?: ElementErrorCode
  /** IK4-02: the X12 data element reference number of `element` (DMG02 is 1251), when known. */
  dataElement?: number
}

/** IK3-04 codes this engine produces. */
export type SegmentErrorCode = '2' | '3' | '4' | '5' | '8'
/**
 * IK4-03 codes this engine produces: '1' required element missing, '2' conditional required
 * element missing, '4' too short, '5' too long, '6' invalid character, '7' invalid code value,
 * '8' invalid date, '9' invalid time, 'I10' implementation not used element present, 'I12'
 * implementation pattern match failure.
 */
export type ElementErrorCode = '1' | '2' | '4' | '5' | '6' | '7' | '8' | '9' | 'I10' | 'I12'

export type Usage = 'required' | 'situational'

/** Dates checked so far: a file of 125,000 members holds some 600,000 dates of a few thousand values. */
const validD8 = new Map<string, boolean>()
const D8_CACHE_LIMIT = 50_000

function isValidD8Cached(value: string): boolean {
  let valid = validD8.get(value)
  if (valid === undefined) {
    valid = isValidD8(value)
    if (validD8.size >= D8_CACHE_LIMIT) validD8.clear()
    validD8.set(value, valid)
  }
  return valid
}

/** Named value formats; messages never echo the value of a formatted (possibly personal) element. */
export const FORMATS = {
  date8: { test: isValidD8Cached, describe: 'a CCYYMMDD date', code: '8' },
  dateRange8: { test: (v: string) => /^\d{8}-\d{8}$/.test(v) && isValidD8(v.slice(0, 8)) && isValidD8(v.slice(9)), describe: 'a CCYYMMDD-CCYYMMDD range', code: '8' },
  date6: { test: (v: string) => /^\d{6}$/.test(v) && isValidD8(`20${v}`), describe: 'a YYMMDD date', code: '8' },
  time4: { test: (v: string) => /^([01]\d|2[0-3])[0-5]\d$/.test(v), describe: 'an HHMM time', code: '9' },
  time: { test: (v: string) => /^([01]\d|2[0-3])[0-5]\d(\d{2}(\d{1,2})?)?$/.test(v), describe: 'an HHMM[SS[dd]] time', code: '9' },
  count: { test: (v: string) => /^\d+$/.test(v), describe: 'a whole number', code: '6' },
  amount: { test: (v: string) => /^-?(\d+\.?\d*|\.\d+)$/.test(v), describe: 'a decimal number', code: '6' },
  zip: { test: (v: string) => /^\d{5}(\d{4})?$/.test(v), describe: 'a 5 or 9 digit ZIP code', code: 'I12' },
  ssn: { test: (v: string) => /^\d{9}$/.test(v), describe: 'a 9 digit SSN', code: 'I12' },
  npi: { test: isNpi, describe: 'a valid NPI', code: 'I12' },
  fipsCounty: { test: (v: string) => /^\d{5}$/.test(v), describe: 'a 5 digit FIPS county code', code: 'I12' },
  state: { test: isStateCode, describe: 'a US state or territory code', code: '7' },
} as const satisfies Record<string, { test: (v: string) => boolean; describe: string; code: ElementErrorCode }>
export type FormatName = keyof typeof FORMATS

export interface ElementRule {
  usage?: Usage | 'not_used'
  codes?: readonly string[]
  format?: FormatName
  min?: number
  max?: number
}

/** When element `when.element` holds one of `when.in`, element `then.element` must follow `then`. */
export interface Condition {
  when: { element: number; in: readonly string[] }
  then: ElementRule & { element: number }
}

export interface SegmentRule {
  kind: 'segment'
  id: string
  name: string
  usage: Usage
  max: number
  /** Tells apart segments sharing an id at one level (REF*0F vs REF*1L, NM1*IL vs NM1*31). */
  match?: { element: number; in: readonly string[] }
  elements: Readonly<Record<number, ElementRule>>
  conditions?: readonly Condition[]
}

export interface LoopRule {
  kind: 'loop'
  id: string
  name: string
  usage: Usage
  max: number
  /** The first child is the segment that starts the loop. */
  children: readonly [SegmentRule, ...(SegmentRule | LoopRule)[]]
  /** Segments (by id and qualifier) the loop must hold somewhere among its repeats of a child. */
  mustContain?: readonly { id: string; element: number; value: string }[]
}

function label(id: string, n: number): string {
  return `${id}${String(n).padStart(2, '0')}`
}

function reportElement(token: X12Token, n: number, out: Edi834Problem[], loop: string | undefined, elementCode: ElementErrorCode, message: string): void {
  // The label is made only here: a file of 125,000 members checks millions of valid elements.
  const element = label(token.id, n)
  out.push({ position: token.position, segment: token.id, element, ...(loop ? { loop } : {}), message: `${element} ${message}`, segmentCode: '8', elementCode })
}

function checkElement(token: X12Token, n: number, rule: ElementRule, out: Edi834Problem[], loop?: string): void {
  const value = el(token, n)
  if (value === '') {
    if (rule.usage === 'required') reportElement(token, n, out, loop, '1', 'is required')
    return
  }
  if (rule.usage === 'not_used') return reportElement(token, n, out, loop, 'I10', 'is not used here')
  // Codes are not personal data, so they may be echoed; other values never are.
  if (rule.codes && !rule.codes.includes(value)) return reportElement(token, n, out, loop, '7', `'${value}' is not one of ${rule.codes.join(', ')}`)
  if (rule.format && !FORMATS[rule.format].test(value)) return reportElement(token, n, out, loop, FORMATS[rule.format].code, `is not ${FORMATS[rule.format].describe}`)
  if (rule.min !== undefined && value.length < rule.min) return reportElement(token, n, out, loop, '4', `is shorter than ${rule.min} characters`)
  if (rule.max !== undefined && value.length > rule.max) return reportElement(token, n, out, loop, '5', `is longer than ${rule.max} characters`)
}

/** Each segment rule's element rules as [position, rule] pairs, listed once (a rule table is static). */
const ELEMENT_LISTS = new WeakMap<SegmentRule, readonly (readonly [number, ElementRule])[]>()

function elementList(rule: SegmentRule): readonly (readonly [number, ElementRule])[] {
  let list = ELEMENT_LISTS.get(rule)
  if (!list) {
    list = Object.entries(rule.elements).map(([n, elementRule]) => [Number(n), elementRule] as const)
    ELEMENT_LISTS.set(rule, list)
  }
  return list
}

/** Element rules and conditions of one segment. */
export function checkSegment(token: X12Token, rule: SegmentRule, out: Edi834Problem[], loop?: string): void {
  for (const [n, elementRule] of elementList(rule)) checkElement(token, n, elementRule, out, loop)
  if (!rule.conditions) return
  for (const condition of rule.conditions) {
    if (condition.when.in.includes(el(token, condition.when.element))) {
      const before = out.length
      // condition.then is an ElementRule with one key more (`element`), which checkElement ignores.
      checkElement(token, condition.then.element, condition.then, out, loop)
      for (let i = before; i < out.length; i++) {
        const problem = out[i]!
        problem.message += ` when ${label(token.id, condition.when.element)} is ${el(token, condition.when.element)}`
        // Required only because of another element: X12 calls that a conditional element.
        if (problem.elementCode === '1') problem.elementCode = '2'
      }
    }
  }
}

function matches(rule: SegmentRule | LoopRule, token: X12Token): boolean {
  const seg = rule.kind === 'loop' ? rule.children[0] : rule
  return seg.id === token.id && (!seg.match || seg.match.in.includes(el(token, seg.match.element)))
}

interface Frame {
  loop: LoopRule
  /** Index of the child last matched: order only moves forward. */
  at: number
}

function findChild(frame: Frame, token: X12Token): number {
  const { children } = frame.loop
  for (let j = Math.max(frame.at, 1); j < children.length; j++) if (matches(children[j] as SegmentRule | LoopRule, token)) return j
  return -1
}

/** Whether an enclosing loop takes `token` (a plain loop: this runs for every loop a member closes). */
function endsRepeat(parents: readonly Frame[], token: X12Token): boolean {
  for (let i = 0; i < parents.length; i++) if (findChild(parents[i]!, token) >= 0) return true
  return false
}

function describe(rule: SegmentRule | LoopRule): string {
  return rule.kind === 'loop' ? `loop ${rule.id} (${rule.name})` : `${rule.id} (${rule.name})`
}

/** Required children of `loop` from `from` to `to` (exclusive) that never occurred, noticed at `near`. */
function missingChildren(loop: LoopRule, counts: readonly number[], from: number, to: number, near: X12Token, out: Edi834Problem[]): void {
  for (let k = from; k < to; k++) {
    const child = loop.children[k] as SegmentRule | LoopRule
    if (child.usage === 'required' && counts[k] === 0) {
      const missingSegment = child.kind === 'loop' ? child.children[0].id : child.id
      out.push({ position: near.position, segment: near.id, loop: loop.id, message: `missing required ${describe(child)} in loop ${loop.id}`, segmentCode: '3', missingSegment })
    }
  }
}

/** What the walk does with each segment it places: checkSegment, or a caller's wrapper of it (edi-834.member-check.ts). */
export type SegmentCheck = (token: X12Token, rule: SegmentRule, out: Edi834Problem[], loop: string) => void

/**
 * Walks `tokens[cursor.pos]` onward as one repeat of `loop` (its first segment at `cursor.pos`),
 * descending into child loops, until a segment belongs to an enclosing loop or the end.
 */
export function walkLoop(
  loop: LoopRule,
  tokens: readonly X12Token[],
  cursor: { pos: number },
  parents: readonly Frame[],
  out: Edi834Problem[],
  check: SegmentCheck = checkSegment,
): void {
  const frame: Frame = { loop, at: 1 }
  const counts = new Array<number>(loop.children.length).fill(0)
  const start = tokens[cursor.pos] as X12Token
  // Only a loop that must contain a segment keeps what it saw (the check runs on every member of a full file).
  const seen = loop.mustContain ? [start] : null
  check(start, loop.children[0], out, loop.id)
  counts[0] = 1
  cursor.pos++
  while (cursor.pos < tokens.length) {
    const token = tokens[cursor.pos] as X12Token
    const j = findChild(frame, token)
    if (j < 0) {
      // An enclosing loop's later child (or a repeat of this loop) ends this repeat.
      if (endsRepeat(parents, token)) break
      out.push({ position: token.position, segment: token.id, loop: loop.id, message: `${token.id}${token.elements[0] ? `*${token.elements[0]}` : ''} is not expected here in loop ${loop.id}`, segmentCode: '2' })
      cursor.pos++
      continue
    }
    if (j > frame.at) missingChildren(loop, counts, frame.at, j, token, out)
    frame.at = j
    const child = loop.children[j] as SegmentRule | LoopRule
    counts[j] = (counts[j] ?? 0) + 1
    if ((counts[j] as number) > child.max) {
      out.push({ position: token.position, segment: token.id, loop: loop.id, message: `${describe(child)} occurs more often than its maximum of ${child.max}`, segmentCode: child.kind === 'loop' ? '4' : '5' })
    }
    if (child.kind === 'segment') {
      check(token, child, out, loop.id)
      seen?.push(token)
      cursor.pos++
    } else {
      walkLoop(child, tokens, cursor, [...parents, frame], out, check)
    }
  }
  const last = tokens[Math.min(cursor.pos, tokens.length) - 1] ?? start
  missingChildren(loop, counts, frame.at, loop.children.length, last, out)
  for (const must of loop.mustContain ?? []) {
    if (!seen!.some((t) => t.id === must.id && el(t, must.element) === must.value)) {
      out.push({ position: start.position, segment: start.id, loop: loop.id, message: `loop ${loop.id} has no ${must.id}*${must.value}`, segmentCode: '3', missingSegment: must.id })
    }
  }
}
