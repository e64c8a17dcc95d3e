import { Edi834ParseError } from '../edi-834/edi-834.errors.js'
import { el, tokenizeX12, type X12Token } from '../edi-834/x12-tokenize.js'
import { AcknowledgementParseError } from './x12-ack.errors.js'
import {
  ACK_STATUS_WORDS,
  ackCode,
  ELEMENT_ERRORS,
  GROUP_ERRORS,
  SEGMENT_ERRORS,
  TA1_NOTES,
  TRANSACTION_SET_ERRORS,
  type AckCode,
  type AcknowledgementInterchange,
  type AckEnvelope,
  type ElementFinding,
  type FunctionalGroupAck,
  type SegmentFinding,
  type Ta1Acknowledgement,
  type TransactionSetAck,
} from './x12-ack.model.js'

/**
 * Reads one acknowledgement interchange: ISA, any TA1s, then GS*FA groups of ST*999 sets, IEA.
 * Strict about structure and control numbers (a half-read acknowledgement must not mark a
 * delivery accepted) and about the form of every element kept, so a value we keep is always a
 * code, a count or a control number. IK4-04 and CTX are skipped unread (see x12-ack.model.ts).
 */

const CODE = /^[A-Z0-9]{1,3}$/
const SEGMENT_ID = /^[A-Z][A-Z0-9]{1,2}$/
const DIGITS = /^\d+$/

class Reader {
  index = 0
  constructor(
    readonly segments: readonly X12Token[],
    readonly component: string,
  ) {}

  peek(): X12Token | undefined {
    return this.segments[this.index]
  }

  /** The segment at the cursor, which must be `id`; a missing one is a truncation when the text ended. */
  take(id: string, what: string): X12Token {
    const token = this.peek()
    if (!token) throw new AcknowledgementParseError('truncated', `the acknowledgement ends where ${id} (${what}) was expected`, this.segments.length)
    if (token.id !== id) throw new AcknowledgementParseError('missing_segment', `${id} (${what}) was expected, found ${safeId(token)}`, token.position)
    this.index++
    return token
  }
}

/** A segment id as found, only when it looks like one: an id is never personal data, other text may be. */
function safeId(token: X12Token): string {
  return SEGMENT_ID.test(token.id) ? token.id : 'a segment that is not X12'
}

function label(token: X12Token, n: number): string {
  return `${token.id}${String(n).padStart(2, '0')}`
}

/** Element `n`, required to match `form` (described for the message; the value is never echoed). */
function field(token: X12Token, n: number, form: RegExp, describe: string): string {
  const value = el(token, n)
  if (!form.test(value)) {
    throw new AcknowledgementParseError('bad_value', `${label(token, n)} ${value === '' ? 'is missing' : `is not ${describe}`}`, token.position)
  }
  return value
}

function optionalField(token: X12Token, n: number, form: RegExp, describe: string): string | null {
  return el(token, n) === '' ? null : field(token, n, form, describe)
}

function status<T>(token: X12Token, n: number, words: Readonly<Record<string, T>>): T {
  const word = words[el(token, n)]
  if (word === undefined) throw new AcknowledgementParseError('bad_value', `${label(token, n)} is not one of ${Object.keys(words).join(', ')}`, token.position)
  return word
}

/** Elements from..to that hold codes, empty ones skipped. */
function codes(token: X12Token, from: number, to: number, table: Readonly<Record<string, string>>): AckCode[] {
  const out: AckCode[] = []
  for (let n = from; n <= to; n++) if (el(token, n) !== '') out.push(ackCode(table, field(token, n, CODE, 'an error code')))
  return out
}

function mismatch(token: X12Token, n: number, what: string): AcknowledgementParseError {
  return new AcknowledgementParseError('control_mismatch', `${label(token, n)} does not match ${what}`, token.position)
}

function readEnvelope(isa: X12Token): AckEnvelope {
  return {
    senderQualifier: el(isa, 5).trim(),
    senderId: el(isa, 6).trim(),
    receiverQualifier: el(isa, 7).trim(),
    receiverId: el(isa, 8).trim(),
    controlNumber: field(isa, 13, /^\d{9}$/, 'a 9 digit control number'),
    date: field(isa, 9, /^\d{6}$/, 'a YYMMDD date'),
    time: field(isa, 10, /^\d{4}$/, 'an HHMM time'),
    usage: status(isa, 15, { P: 'P', T: 'T' } as const),
  }
}

function readTa1(token: X12Token): Ta1Acknowledgement {
  return {
    acknowledgedControlNumber: field(token, 1, /^\d{9}$/, 'a 9 digit control number'),
    date: field(token, 2, /^\d{6}$/, 'a YYMMDD date'),
    time: field(token, 3, /^\d{4}$/, 'an HHMM time'),
    status: status(token, 4, ACK_STATUS_WORDS.ta1),
    note: ackCode(TA1_NOTES, field(token, 5, /^\d{3}$/, 'a 3 digit note code')),
  }
}

function readElementFinding(token: X12Token, component: string): ElementFinding {
  const [position, componentPosition, repetition] = field(token, 1, new RegExp(`^\\d+(${escape(component)}\\d*){0,2}$`), 'an element position').split(component)
  const dataElement = optionalField(token, 2, DIGITS, 'a data element number')
  // IK4-04 (the copy of the bad value) is deliberately never read.
  return {
    position: Number(position),
    componentPosition: componentPosition ? Number(componentPosition) : null,
    repetition: repetition ? Number(repetition) : null,
    dataElement: dataElement === null ? null : Number(dataElement),
    error: ackCode(ELEMENT_ERRORS, field(token, 3, CODE, 'an error code')),
  }
}

function escape(character: string): string {
  return character.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')
}

/** AK2, its IK3/IK4/CTX, IK5. */
function readTransactionSet(reader: Reader): TransactionSetAck {
  const ak2 = reader.take('AK2', 'transaction set response header')
  const segments: SegmentFinding[] = []
  for (let token = reader.peek(); token && ['IK3', 'IK4', 'CTX'].includes(token.id); token = reader.peek()) {
    reader.index++
    if (token.id === 'IK3') {
      const error = optionalField(token, 4, CODE, 'an error code')
      segments.push({
        segmentId: field(token, 1, SEGMENT_ID, 'a segment id'),
        position: Number(field(token, 2, DIGITS, 'a segment position')),
        loopId: optionalField(token, 3, /^[A-Z0-9]{1,6}$/, 'a loop id'),
        error: error === null ? null : ackCode(SEGMENT_ERRORS, error),
        elements: [],
      })
    } else if (token.id === 'IK4') {
      const finding = segments.at(-1)
      if (!finding) throw new AcknowledgementParseError('unexpected_segment', 'IK4 (element error) comes before any IK3 (segment error)', token.position)
      finding.elements.push(readElementFinding(token, reader.component))
    }
    // CTX (context: business unit values, a segment's position) is skipped: nothing of it is kept.
  }
  const ik5 = reader.take('IK5', 'transaction set response trailer')
  return {
    transactionSetId: field(ak2, 1, /^\d{3}$/, 'a transaction set id'),
    controlNumber: field(ak2, 2, /^[A-Za-z0-9]{1,9}$/, 'a transaction set control number'),
    implementationReference: optionalField(ak2, 3, /^[A-Za-z0-9]{1,35}$/, 'an implementation reference'),
    segments,
    status: status(ik5, 1, ACK_STATUS_WORDS.transactionSet),
    errors: codes(ik5, 2, 6, TRANSACTION_SET_ERRORS),
  }
}

/** ST*999 ... SE, the reader at its ST. */
function read999(reader: Reader, gs: X12Token): FunctionalGroupAck {
  const st = reader.take('ST', 'transaction set header')
  if (el(st, 1) !== '999') {
    throw new AcknowledgementParseError('not_an_acknowledgement', 'ST01 is not 999: this transaction set is not an implementation acknowledgement', st.position)
  }
  const controlNumber = field(st, 2, /^[A-Za-z0-9]{4,9}$/, 'a transaction set control number')
  const start = reader.index - 1
  const ak1 = reader.take('AK1', 'functional group response header')
  const transactionSets: TransactionSetAck[] = []
  while (reader.peek()?.id === 'AK2') transactionSets.push(readTransactionSet(reader))
  const ak9 = reader.take('AK9', 'functional group response trailer')
  const se = reader.take('SE', 'transaction set trailer')
  if (el(se, 1) !== String(reader.index - start)) throw mismatch(se, 1, 'the number of segments from ST to SE')
  if (el(se, 2) !== controlNumber) throw mismatch(se, 2, 'ST02')
  const count = (n: number): number => Number(field(ak9, n, DIGITS, 'a count'))
  return {
    ackControlNumber: controlNumber,
    ackGroupControlNumber: el(gs, 6),
    functionalId: field(ak1, 1, /^[A-Z]{2}$/, 'a functional identifier code'),
    acknowledgedGroupControlNumber: field(ak1, 2, /^\d{1,9}$/, 'a group control number'),
    version: optionalField(ak1, 3, /^[A-Za-z0-9]{1,12}$/, 'a version code'),
    transactionSets,
    status: status(ak9, 1, ACK_STATUS_WORDS.group),
    counts: { included: count(2), received: count(3), accepted: count(4) },
    errors: codes(ak9, 5, 9, GROUP_ERRORS),
  }
}

function tokenize(text: string) {
  if (text.trim() === '') throw new AcknowledgementParseError('empty', 'the acknowledgement is empty', 0)
  try {
    return tokenizeX12(text)
  } catch (error) {
    if (error instanceof Edi834ParseError) throw new AcknowledgementParseError('not_x12', `not an X12 interchange: ${error.message}`, 0)
    throw error
  }
}

/**
 * Parses one acknowledgement interchange (a TA1 alone, 999s, or a TA1 before the 999 groups).
 * Throws AcknowledgementParseError for anything else, its message never echoing a value.
 */
export function parseAcknowledgement(text: string): AcknowledgementInterchange {
  const tokens = tokenize(text)
  if (tokens.trailing !== '') {
    throw new AcknowledgementParseError('truncated', 'text after the last segment terminator: the acknowledgement is truncated or unterminated', tokens.segments.length + 1)
  }
  const reader = new Reader(tokens.segments, tokens.separators.component)
  const isa = reader.take('ISA', 'interchange control header')
  const envelope = readEnvelope(isa)
  const ta1s: Ta1Acknowledgement[] = []
  while (reader.peek()?.id === 'TA1') ta1s.push(readTa1(reader.take('TA1', 'interchange acknowledgement')))
  const groups: FunctionalGroupAck[] = []
  let groupCount = 0
  while (reader.peek()?.id === 'GS') {
    const gs = reader.take('GS', 'functional group header')
    if (el(gs, 1) !== 'FA') {
      throw new AcknowledgementParseError('not_an_acknowledgement', 'GS01 is not FA: this functional group holds no acknowledgement (an 834 group is BE)', gs.position)
    }
    field(gs, 6, /^\d{1,9}$/, 'a group control number')
    groupCount++
    let sets = 0
    while (reader.peek()?.id === 'ST') {
      groups.push(read999(reader, gs))
      sets++
    }
    const ge = reader.take('GE', 'functional group trailer')
    if (el(ge, 1) !== String(sets)) throw mismatch(ge, 1, 'the number of transaction sets in the group')
    if (el(ge, 2) !== el(gs, 6)) throw mismatch(ge, 2, 'GS06')
  }
  const iea = reader.take('IEA', 'interchange control trailer')
  if (el(iea, 1) !== String(groupCount)) throw mismatch(iea, 1, 'the number of functional groups')
  if (el(iea, 2) !== envelope.controlNumber) throw mismatch(iea, 2, 'ISA13')
  const after = reader.peek()
  if (after) throw new AcknowledgementParseError('unexpected_segment', `${safeId(after)} after IEA: one acknowledgement interchange at a time`, after.position)
  if (ta1s.length === 0 && groups.length === 0) {
    throw new AcknowledgementParseError('not_an_acknowledgement', 'the interchange holds neither a TA1 nor a 999', isa.position)
  }
  return { envelope, ta1s, groups }
}
