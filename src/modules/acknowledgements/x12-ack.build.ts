import { Edi834WriteError } from '../edi-834/edi-834.errors.js'
import { check834Tokens, type Edi834Problem } from '../edi-834/edi-834.rules.js'
import { envelopeStamps, isaElements, segment, serializeSegment, type X12Segment } from '../edi-834/x12-segments.js'
import { el, tokenizeX12, type X12Token, type X12Tokens } from '../edi-834/x12-tokenize.js'
import type { AcknowledgementInterchange } from './x12-ack.model.js'
import { parseAcknowledgement } from './x12-ack.parse.js'

/**
 * What the sandbox carrier answers to an 834 it receives: a TA1 for the interchange and a 999
 * for its functional groups, both computed from check834's problems. The carrier is the
 * answer's sender and the service its receiver (the 834's ISA06/ISA08 and GS02/GS03 swapped).
 *
 * The built 999 never copies a bad value (IK4-04) nor sends CTX: the sandbox's answers are
 * stored and shown to operators, and a member's birth date must not travel back with them.
 * Each answer is returned with the model parseAcknowledgement reads from it, so what the
 * sandbox sends and what the service understands cannot drift apart.
 */

export interface AckBuildOptions {
  /** ISA13 of the answer's interchange (the carrier's own numbering). */
  controlNumber: number
  /** GS06 of the 999's functional group; defaults to controlNumber. */
  groupControlNumber?: number
  at: Date
}

export interface BuiltAcknowledgement {
  x12: string
  acknowledgement: AcknowledgementInterchange
}

/** TA1-05 note code for a problem with an ISA or IEA element (000 means none). */
const ENVELOPE_NOTES: Readonly<Record<string, string>> = {
  ISA01: '010', ISA02: '011', ISA03: '012', ISA04: '013', ISA05: '005', ISA06: '006', ISA07: '007', ISA08: '008',
  ISA09: '014', ISA10: '015', ISA11: '026', ISA12: '017', ISA13: '018', ISA14: '019', ISA15: '020', ISA16: '027',
  IEA01: '021', IEA02: '001',
}
/** IK5-02 code for a problem with an ST or SE element. */
const SET_ERRORS: Readonly<Record<string, string>> = { ST01: '6', ST02: '7', ST03: '19', SE01: '4', SE02: '3' }
/** AK9-05 code for a problem with a GS or GE element. */
const GROUP_ERRORS: Readonly<Record<string, string>> = { GS01: '1', GS08: '2', GS06: '6', GE01: '5', GE02: '4' }

interface SetRange { st: X12Token; end: number; problems: Edi834Problem[] }
interface GroupRange { gs: X12Token; ge: X12Token | undefined; end: number; sets: SetRange[]; problems: Edi834Problem[] }

/** The 834's groups and sets by segment position, mirroring how check834 walks the envelope. */
function structure(tokens: readonly X12Token[]): GroupRange[] {
  const groups: GroupRange[] = []
  let i = 1
  while (tokens[i]?.id === 'GS') {
    const group: GroupRange = { gs: tokens[i] as X12Token, ge: undefined, end: 0, sets: [], problems: [] }
    i++
    while (i < tokens.length && !['GE', 'GS', 'IEA'].includes((tokens[i] as X12Token).id)) {
      const token = tokens[i] as X12Token
      if (token.id !== 'ST') { i++; continue }
      let end = i + 1
      while (end < tokens.length && !['SE', 'ST', 'GE', 'GS', 'IEA'].includes((tokens[end] as X12Token).id)) end++
      const hasSe = tokens[end]?.id === 'SE'
      group.sets.push({ st: token, end: hasSe ? (tokens[end] as X12Token).position : token.position + (end - i) - 1, problems: [] })
      i = hasSe ? end + 1 : end
    }
    if (tokens[i]?.id === 'GE') group.ge = tokens[i++]
    group.end = group.ge?.position ?? (tokens[i - 1] as X12Token).position
    groups.push(group)
  }
  return groups
}

interface Verdict {
  tokens: X12Token[]
  isa: X12Token
  /** TA1-05 of the first interchange problem, '000' when there is none. */
  note: string
  groups: GroupRange[]
}

/** check834's problems sorted into the interchange, its groups and its sets; null when the text has no readable ISA. */
function judge(text: string): Verdict | null {
  let tokenized: X12Tokens
  try {
    tokenized = tokenizeX12(text)
  } catch {
    return null
  }
  const tokens = tokenized.segments
  const isa = tokens[0]
  if (!isa || !/^\d{9}$/.test(el(isa, 13))) return null
  const groups = structure(tokens)
  let note = '000'
  // The same tokens the structure came from: a 40 MB full file is read once, not once per answer.
  for (const problem of check834Tokens(tokenized)) {
    // A missing IEA is reported at the last segment, which may close a group: ISA and IEA problems are the envelope's.
    const envelope = problem.segment === 'ISA' || problem.segment === 'IEA'
    const group = envelope ? undefined : groups.find((g) => problem.position >= g.gs.position && problem.position <= g.end)
    const set = group?.sets.find((s) => problem.position >= s.st.position && problem.position <= s.end)
    if (set) set.problems.push(problem)
    else if (group) group.problems.push(problem)
    else if (note === '000') {
      // Outside every group: the envelope. A missing IEA or text after the last terminator is an early end.
      note = ENVELOPE_NOTES[problem.element ?? ''] ?? (problem.segment === 'IEA' || problem.position > tokens.length ? '023' : '022')
    }
  }
  return { tokens, isa, note, groups }
}

function interchange(isa: X12Token, options: AckBuildOptions, body: X12Segment[], groupCount: number): string {
  const { d6, hhmm } = envelopeStamps(options.at)
  const header = isaElements({
    senderQualifier: el(isa, 7).trim(),
    senderId: el(isa, 8).trim(),
    receiverQualifier: el(isa, 5).trim(),
    receiverId: el(isa, 6).trim(),
    date: d6,
    time: hhmm,
    controlNumber: options.controlNumber,
    usage: el(isa, 15) === 'P' ? 'P' : 'T',
  })
  const control = String(options.controlNumber).padStart(9, '0')
  return [['ISA', ...header], ...body, segment('IEA', String(groupCount), control)].map(serializeSegment).join('')
}

/** Builds only when the 834's ids can address an answer: swapping an unusable ISA06/ISA08 cannot. */
function orNull(build: () => string): BuiltAcknowledgement | null {
  try {
    const x12 = build()
    return { x12, acknowledgement: parseAcknowledgement(x12) }
  } catch (error) {
    if (error instanceof Edi834WriteError) return null
    throw error
  }
}

/**
 * The TA1 for a received 834: A with note 000, or R with the note code of its first envelope
 * (ISA/IEA) problem. Null when the text has no readable ISA13 to acknowledge.
 */
export function buildTa1(text834: string, options: AckBuildOptions): BuiltAcknowledgement | null {
  const verdict = judge(text834)
  return verdict && ta1Of(verdict, options)
}

function ta1Of(verdict: Verdict, options: AckBuildOptions): BuiltAcknowledgement | null {
  const { isa, note } = verdict
  const { d6, hhmm } = envelopeStamps(options.at)
  const date = /^\d{6}$/.test(el(isa, 9)) ? el(isa, 9) : d6
  const time = /^\d{4}$/.test(el(isa, 10)) ? el(isa, 10) : hhmm
  return orNull(() => interchange(isa, options, [segment('TA1', el(isa, 13), date, time, note === '000' ? 'A' : 'R', note)], 0))
}

function ik3s(set: SetRange): { segments: X12Segment[]; setErrors: string[] } {
  const segments: X12Segment[] = []
  const setErrors = new Set<string>()
  const offset = set.st.position - 1
  const findings = new Map<string, { ik3: X12Segment; ik4s: X12Segment[] }>()
  for (const problem of [...set.problems].sort((a, b) => a.position - b.position)) {
    const setError = SET_ERRORS[problem.element ?? ''] ?? (problem.missingSegment === 'SE' ? '2' : undefined)
    if (setError) { setErrors.add(setError); continue }
    if (!problem.segmentCode) { setErrors.add('5'); continue }
    const loopId = problem.loop && problem.loop !== 'ST' ? problem.loop : ''
    const segmentId = problem.missingSegment ?? problem.segment
    const key = `${problem.position}|${segmentId}|${problem.segmentCode}`
    let finding = findings.get(key)
    if (!finding) {
      finding = { ik3: segment('IK3', segmentId, String(problem.position - offset), loopId, problem.segmentCode), ik4s: [] }
      findings.set(key, finding)
    }
    if (problem.element && problem.elementCode) {
      const position = problem.element.slice(problem.segment.length)
      // IK4-04, the bad value, is left out on purpose (see the file comment).
      finding.ik4s.push(segment('IK4', String(Number(position)), problem.dataElement ? String(problem.dataElement) : '', problem.elementCode))
    }
  }
  for (const { ik3, ik4s } of findings.values()) segments.push(ik3, ...ik4s)
  if (findings.size > 0) setErrors.add('5')
  return { segments, setErrors: [...setErrors].slice(0, 5) }
}

/** One ST*999 answering one 834 functional group. */
function ack999(group: GroupRange, number: number): X12Segment[] {
  const control = String(number).padStart(4, '0')
  const body: X12Segment[] = [segment('AK1', 'BE', el(group.gs, 6), '005010X220A1')]
  let accepted = 0
  for (const set of group.sets) {
    const { segments, setErrors } = ik3s(set)
    const st01 = el(set.st, 1)
    body.push(segment('AK2', /^\d{3}$/.test(st01) ? st01 : '834', el(set.st, 2), '005010X220A1'), ...segments)
    if (setErrors.length === 0) accepted++
    body.push(setErrors.length === 0 ? segment('IK5', 'A') : segment('IK5', 'R', ...setErrors))
  }
  const groupErrors = [...new Set(group.problems.map((p) => GROUP_ERRORS[p.element ?? ''] ?? '').filter((c) => c !== ''))]
  if (!group.ge) groupErrors.push('3')
  const received = group.sets.length
  const rejectedGroup = group.problems.length > 0 || !group.ge
  if (rejectedGroup) accepted = 0
  const status = rejectedGroup || accepted === 0 ? 'R' : accepted === received ? 'A' : 'P'
  const declared = group.ge && /^\d+$/.test(el(group.ge, 1)) ? el(group.ge, 1) : String(received)
  body.push(segment('AK9', status, declared, String(received), String(accepted), ...groupErrors.slice(0, 5)))
  return [segment('ST', '999', control, '005010X231A1'), ...body, segment('SE', String(body.length + 2), control)]
}

/**
 * The 999 for a received 834: one ST*999 per functional group of the 834, each set's IK3/IK4
 * findings, IK5 and AK9 from check834's problems. Null when the interchange itself is rejected
 * (its TA1 is R: a carrier does not acknowledge the groups of an interchange it could not accept)
 * or has no readable ISA.
 */
export function build999(text834: string, options: AckBuildOptions): BuiltAcknowledgement | null {
  const verdict = judge(text834)
  return verdict && ack999Of(verdict, options)
}

function ack999Of(verdict: Verdict, options: AckBuildOptions): BuiltAcknowledgement | null {
  if (verdict.note !== '000' || verdict.groups.length === 0) return null
  const first = verdict.groups[0] as GroupRange
  const { d8, hhmm } = envelopeStamps(options.at)
  const groupControl = String(options.groupControlNumber ?? options.controlNumber)
  const sets = verdict.groups.flatMap((group, i) => ack999(group, i + 1))
  const body = [
    segment('GS', 'FA', el(first.gs, 3), el(first.gs, 2), d8, hhmm, groupControl, 'X', '005010X231A1'),
    ...sets,
    segment('GE', String(verdict.groups.length), groupControl),
  ]
  return orNull(() => interchange(verdict.isa, options, body, 1))
}

/** What a carrier answers to one 834: its TA1 and, unless the TA1 rejects the interchange, its 999. */
export interface Answer834 {
  ta1: BuiltAcknowledgement
  ack999: BuiltAcknowledgement | null
}

/**
 * Both answers from one reading of the file (buildTa1 then build999 would tokenize and check a
 * 50,000-family file twice). Null when the text has no readable ISA13 to acknowledge. The 999 is
 * numbered `ack999ControlNumber`; the TA1 `options.controlNumber`.
 */
export function answer834(text834: string, options: AckBuildOptions & { ack999ControlNumber: number }): Answer834 | null {
  const verdict = judge(text834)
  const ta1 = verdict && ta1Of(verdict, options)
  if (!verdict || !ta1) return null
  const rejected = ta1.acknowledgement.ta1s[0]?.status === 'rejected'
  return { ta1, ack999: rejected ? null : ack999Of(verdict, { at: options.at, controlNumber: options.ack999ControlNumber }) }
}
