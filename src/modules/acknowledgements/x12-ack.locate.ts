import { Edi834ParseError } from '../edi-834/edi-834.errors.js'
import { tokenizeX12, type X12Separators } from '../edi-834/x12-tokenize.js'

/**
 * Where a 999 finding (AK2 ST02, IK3 position counted from ST = 1) lies in the 834 we sent: the
 * segment there and, when it is inside a member loop (2000, from INS), that member's REF*17 (our
 * member id) and, inside a coverage loop (2300, from HD), the plan's REF*CE (its external id).
 * A file_validation error is linked to the member and plan with it.
 */
export interface FindingLocation {
  segmentId: string
  memberId: string | null
  planExternalId: string | null
}

/** What the batch locator also answers: enough to name the member field (edi-834.findings.ts). */
export interface LocatedSegment extends FindingLocation {
  /** Element 1 of the segment there (DTP's date qualifier, NM1's entity code, REF's qualifier); null when empty. */
  qualifier: string | null
  /** The X220A1 loop the segment is in ('2000', '2100A', '2300', ...); null in the header and for ST/SE. */
  loopId: string | null
}

/** One finding to locate: AK2-02 and IK3-02. */
export interface FindingPosition {
  st02: string
  position: number
}

/**
 * A segment id as a number, its (at most three) letters' codes: two million segments are told
 * apart without cutting a string out of the file for each (that took most of a 40 MB file's time).
 */
const idCode = (id: string): number => ((id.charCodeAt(0) || 0) << 16) | ((id.charCodeAt(1) || 0) << 8) | (id.charCodeAt(2) || 0)

/** idCode of the segment starting at `start`; -1 when its id is not one to three ASCII characters. */
function idCodeAt(text: string, start: number, end: number, separator: number): number {
  let code = 0
  for (let i = 0; i < 3; i++) {
    const at = start + i
    const c = at < end ? text.charCodeAt(at) : separator
    if (c === separator) return i === 0 ? -1 : code << (8 * (3 - i))
    if (c > 127) return -1
    code = (code << 8) | c
  }
  return start + 3 === end || text.charCodeAt(start + 3) === separator ? code : -1
}

const [ST, SE, GS, GE, ISA, IEA, INS, REF, DTP, AMT, HD, LS, LE, DSB, COB, ACT, LX, N1, NM1] = [
  'ST', 'SE', 'GS', 'GE', 'ISA', 'IEA', 'INS', 'REF', 'DTP', 'AMT', 'HD', 'LS', 'LE', 'DSB', 'COB', 'ACT', 'LX', 'N1', 'NM1',
].map(idCode) as [number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number]

/** Segments of loop 2000 before its 2100A: where the member's REF*17 is (2300 and 2750 have REF*17s of their own). */
const inMemberHeader = (id: number) => id === REF || id === DTP
/** Segments of loop 2300 before IDC and 2310: where the plan's REF*CE is. */
const inCoverageHeader = (id: number) => id === DTP || id === AMT || id === REF
/** Segments that end a 2300 loop: the next coverage, the next member, 2700, the set's end. */
const endsCoverage = (id: number) => id === HD || id === INS || id === LS || id === SE
/** Segments that end a transaction set's span without being in it. */
const outsideSet = (id: number) => id === ST || id === GE || id === GS || id === IEA || id === ISA

/** NM1-01 of the 2100 loops (X220A1); any other entity code in a member loop is a responsible person (2100G). */
const MEMBER_NAME_LOOPS: Readonly<Record<string, string>> = {
  IL: '2100A',
  '74': '2100A',
  '70': '2100B',
  '31': '2100C',
  '36': '2100D',
  M8: '2100E',
  S3: '2100F',
  '45': '2100H',
}
/** N1-01 of the header's 1000 loops. */
const HEADER_NAME_LOOPS: Readonly<Record<string, string>> = { P5: '1000A', IN: '1000B', BO: '1000C', TV: '1000C' }

/**
 * The loop a segment opens or stays in, from the loop before it. X220A1's nesting is fixed, so
 * the segment id and its element 1 (the caller reads it for N1 and NM1 only) are enough; segments
 * that open no loop stay where they are.
 */
function loopAfter(current: string | null, id: number, qualifier: string): string | null {
  switch (id) {
    case ST:
    case SE:
      return null
    case INS:
      return '2000'
    case DSB:
      return '2200'
    case HD:
      return '2300'
    case COB:
      return '2320'
    case LS:
    case LE:
      return '2700'
    case ACT:
      return '1100C'
    case LX:
      return current !== null && current >= '2700' ? '2710' : '2310'
    case N1:
      if (current !== null && current >= '2700') return '2750'
      return HEADER_NAME_LOOPS[qualifier] ?? current
    case NM1:
      if (current === '2310') return '2310'
      if (current === '2320' || current === '2330') return '2330'
      return MEMBER_NAME_LOOPS[qualifier] ?? '2100G'
    default:
      return current
  }
}

/** A member or coverage loop whose REF is looked for in the segments after it opens. */
interface LoopReference {
  value: string | null
  /** Still in the loop's header, where the REF may come. */
  open: boolean
}

/** Two control numbers name the same set: equal, or both digits of equal value (ST02 is padded, AK2-02 may not be). */
function sameControlNumber(a: string, b: string): boolean {
  return a === b || (/^\d+$/.test(a) && /^\d+$/.test(b) && Number(a) === Number(b))
}

/** Whitespace or a byte order mark before a segment (tokenizeX12 skips the same). */
const isBlank = (code: number) => code <= 32 || code === 0xfeff || code === 0xa0 || code === 0x2028 || code === 0x2029

/** Element `n` (1-based) of the segment text[start, end), or '' when absent. */
function elementAt(text: string, start: number, end: number, separator: string, n: number): string {
  let at = start
  for (let i = 0; i < n; i++) {
    const next = text.indexOf(separator, at)
    if (next < 0 || next >= end) return ''
    at = next + separator.length
  }
  const stop = text.indexOf(separator, at)
  return text.slice(at, stop < 0 || stop > end ? end : stop)
}

/** Element 1 of the segment text[start, end) is `expected`: compared in place, without cutting it out. */
function qualifierIs(text: string, start: number, end: number, separator: string, expected: string): boolean {
  const at = text.indexOf(separator, start) + separator.length
  const after = at + expected.length
  return at > 0 && after <= end && text.startsWith(expected, at) && (after === end || text.startsWith(separator, after))
}

function separatorsOf(text: string): { separators: X12Separators; start: number } | null {
  const start = text.indexOf('ISA')
  if (start < 0 || text.slice(0, start).trim().replace(/\uFEFF/g, '') !== '') return null
  try {
    // Only the ISA is needed to learn the separators: tokenizing 40 MB to read them would double the work.
    return { separators: tokenizeX12(text.slice(start, start + 1024)).separators, start }
  } catch (error) {
    if (error instanceof Edi834ParseError) return null
    throw error
  }
}

/**
 * Locates many findings in one pass over the 834's text, in the order asked (null for each one
 * that is not inside its transaction set, ST through SE, or when the text is not X12). Segments
 * are cut out one at a time and split only when they matter (ST, REF, N1, NM1, the ones asked
 * for): a 40 MB full file is read once, whatever the number of findings, and the pass stops once
 * every finding and the REFs they wait for are known.
 */
export function locateFindings(text834: string, findings: readonly FindingPosition[]): (LocatedSegment | null)[] {
  const answers: (LocatedSegment | null)[] = findings.map(() => null)
  const envelope = separatorsOf(text834)
  if (!envelope) return answers
  const { element, segment: terminator } = envelope.separators
  // tokenizeX12 accepts single-character separators only.
  const separator = element.charCodeAt(0)

  let unanswered = 0
  const wanted = new Map<string, Map<number, number[]>>()
  findings.forEach((finding, index) => {
    if (!Number.isInteger(finding.position) || finding.position < 1) return
    let key = [...wanted.keys()].find((st02) => sameControlNumber(st02, finding.st02))
    if (key === undefined) wanted.set((key = finding.st02), new Map())
    const positions = wanted.get(key)!
    positions.set(finding.position, [...(positions.get(finding.position) ?? []), index])
    unanswered++
  })
  if (unanswered === 0) return answers
  const seenSets = new Set<string>()

  // The set being read (null outside the sets asked about), its segment count so far, its loops.
  let positions: Map<number, number[]> | null = null
  let count = 0
  let loop: string | null = null
  let member: LoopReference | null = null
  let coverage: LoopReference | null = null
  const located: { index: number; segmentId: string; qualifier: string | null; loopId: string | null; member: LoopReference | null; coverage: LoopReference | null }[] = []

  // Segments are walked by index, not cut out: a full file has two million of them.
  let from = envelope.start
  const length = text834.length
  while (from < length) {
    const to = text834.indexOf(terminator, from)
    // Text after the last terminator is a cut-off segment: not a segment of the file (tokenizeX12).
    if (to < 0) break
    let start = from
    from = to + terminator.length
    while (start < to && isBlank(text834.charCodeAt(start))) start++
    let end = to
    if (terminator === '\n' && end > start && text834.charCodeAt(end - 1) === 13) end--
    if (start === end) continue
    const id = idCodeAt(text834, start, end, separator)

    // A set that ends without its SE: positions past the cut are nowhere.
    if (positions !== null && outsideSet(id)) {
      positions = null
      if (member) member.open = false
      if (coverage) coverage.open = false
    }
    if (positions === null) {
      if (id !== ST) continue
      const st02 = elementAt(text834, start, end, element, 2)
      const key = [...wanted.keys()].find((asked) => sameControlNumber(asked, st02))
      // A set's ST02 repeated in the file: the first set with it is the one acknowledged.
      if (key === undefined || seenSets.has(key)) continue
      seenSets.add(key)
      positions = wanted.get(key)!
      count = 0
      loop = null
      member = null
      coverage = null
    }
    count++

    if (member?.open && !inMemberHeader(id)) member.open = false
    if (coverage?.open && !inCoverageHeader(id)) coverage.open = false
    if (id === REF && member?.open && member.value === null && qualifierIs(text834, start, end, element, '17')) member.value = elementAt(text834, start, end, element, 2) || null
    if (id === REF && coverage?.open && coverage.value === null && qualifierIs(text834, start, end, element, 'CE')) coverage.value = elementAt(text834, start, end, element, 2) || null
    if (id === INS) {
      member = { value: null, open: true }
      coverage = null
    } else if (id === HD && member) coverage = { value: null, open: true }
    else if (endsCoverage(id)) coverage = null
    // SE closes the last member loop; the segment itself is not in it.
    if (id === SE) member = null
    loop = loopAfter(loop, id, id === N1 || id === NM1 ? elementAt(text834, start, end, element, 1) : '')

    const asked = positions.get(count)
    if (asked) {
      const cut = text834.indexOf(element, start)
      const segmentId = text834.slice(start, cut < 0 || cut > end ? end : cut)
      const qualifier = elementAt(text834, start, end, element, 1) || null
      for (const index of asked) located.push({ index, segmentId, qualifier, loopId: loop, member, coverage })
      unanswered -= asked.length
    }
    if (id === SE) positions = null
    if (unanswered === 0 && !member?.open && !coverage?.open) break
  }
  for (const found of located) {
    answers[found.index] = {
      segmentId: found.segmentId,
      memberId: found.member?.value ?? null,
      planExternalId: found.coverage?.value ?? null,
      qualifier: found.qualifier,
      loopId: found.loopId,
    }
  }
  return answers
}

/**
 * One finding: null when the text is not X12, has no transaction set with that ST02, or the
 * position is not inside it (ST through SE). Many findings of one file: locateFindings.
 */
export function locateFinding(text834: string, st02: string, positionFromSt: number): FindingLocation | null {
  const [found] = locateFindings(text834, [{ st02, position: positionFromSt }])
  return found ? { segmentId: found.segmentId, memberId: found.memberId, planExternalId: found.planExternalId } : null
}
