import { FILE_ACTION } from './edi-834.codes.js'
import { Edi834ParseError } from './edi-834.errors.js'
import type { Edi834Envelope, Edi834Header, Edi834Member } from './edi-834.model.js'
import { MemberBuilder, dateOf, wordOf } from './edi-834.parse-member.js'
import { el, tokenizeX12, type X12Token } from './x12-tokenize.js'

export interface Edi834ParsedEnvelope extends Edi834Envelope {
  groupControlNumber: number
  /** ST02. */
  transactionSetControlNumber: string
}

export interface Edi834ParsedHeader {
  reference: string
  action: Edi834Header['action']
  masterPolicyNumber: string | null
  effectiveDate: string | null
  /** From QTY*ET / QTY*DT; null when the file has no control totals. */
  totals: { subscribers: number; dependents: number } | null
  /** `fein` when N103 is FI or 24, `groupExternalIdentifier` when it is 94. */
  sponsor: { name: string; fein: string | null; groupExternalIdentifier: string | null }
  /** `carrierName` is N104 when N103 is 94 (what our writer sends), else null. */
  payer: { name: string; carrierName: string | null }
  brokers: { name: string; nationalProducerNumber: string }[]
}

export interface Edi834ParsedFile {
  envelope: Edi834ParsedEnvelope
  header: Edi834ParsedHeader
  members: Edi834Member[]
}

function count(value: string, token: X12Token): number {
  if (!/^\d{1,15}$/.test(value)) throw new Edi834ParseError('bad_value', 'QTY02 is not a whole number', token.position)
  return Number(value)
}

/**
 * Reads an 834 (ours, or a carrier's audit file with INS03 030) back into the model: the inverse
 * of `write834`. Separators come from the ISA, so files with other separators, or without
 * newlines, read the same. Segments this service does not use (2100B/D-H, 2200, 2320, IDC,
 * other REF qualifiers...) are skipped. It reads the first ST*834 of the file.
 *
 * Throws `Edi834ParseError` (with the segment position) on anything it cannot read faithfully:
 * a missing required segment, a code with no word in the service, an invalid date. It does
 * not check envelope counts: `check834` does that.
 *
 * What does not survive writing then reading (by X12's design): medical product type (HD03 is
 * HLT), non_binary gender (U reads as unknown), the mailing address county (not used in 2100C),
 * life_accidental_death_dismemberment (reads as life), phone formatting (digits only), and
 * text cut to an element's maximum length or cleaned by `sanitizeElement`.
 */
export function parse834(text: string): Edi834ParsedFile {
  const reader = new Edi834Reader()
  const members: Edi834Member[] = []
  for (const segment of tokenizeX12(text).segments) {
    const member = reader.read(segment)
    if (member) members.push(member)
  }
  const last = reader.finish()
  if (last) members.push(last)
  return { envelope: reader.envelope!, header: reader.header, members }
}

/**
 * parse834 a segment at a time, for a file read in pieces (a census of 200,000 families): each
 * member comes out as the next INS (or the SE) closes it, so the file is never held whole.
 * `read` answers the member a segment completed; `finish`, at the end, the last one. Errors are
 * parse834's, at the same segments.
 */
export class Edi834Reader {
  envelope: Edi834ParsedEnvelope | null = null
  readonly header: Edi834ParsedHeader = {
    reference: '',
    action: 'change',
    masterPolicyNumber: null,
    effectiveDate: null,
    totals: null,
    sponsor: { name: '', fein: null, groupExternalIdentifier: null },
    payer: { name: '', carrierName: null },
    brokers: [],
  }
  /** Whether the transaction set read was closed by its SE (a file cut short in transit is not). */
  closed = false
  private stage: 'envelope' | 'header' | 'members' | 'done' = 'envelope'
  private isa: X12Token | null = null
  private gs: X12Token | null = null
  private sawBgn = false
  private st: X12Token | null = null
  private builder: MemberBuilder | null = null

  read(seg: X12Token): Edi834Member | undefined {
    switch (this.stage) {
      case 'envelope':
        this.readEnvelope(seg)
        return undefined
      case 'header':
        if (seg.id !== 'INS' && seg.id !== 'SE') {
          readHeaderSegment(seg, this.header)
          if (seg.id === 'BGN') this.sawBgn = true
          return undefined
        }
        if (!this.sawBgn) throw new Edi834ParseError('missing_segment', 'the transaction set has no BGN', this.st!.position)
        this.stage = 'members'
        return this.readMember(seg)
      case 'members':
        return this.readMember(seg)
      case 'done':
        return undefined
    }
  }

  finish(): Edi834Member | undefined {
    if (this.stage === 'envelope') {
      if (!this.isa) throw new Edi834ParseError('not_x12', 'the file does not start with an ISA segment', 0)
      throw new Edi834ParseError('missing_segment', 'the file has no GS and ST*834', 0)
    }
    if (this.stage === 'header' && !this.sawBgn) throw new Edi834ParseError('missing_segment', 'the transaction set has no BGN', this.st!.position)
    const last = this.builder?.finish()
    this.builder = null
    this.stage = 'done'
    return last
  }

  private readMember(seg: X12Token): Edi834Member | undefined {
    if (seg.id === 'SE') {
      this.closed = true
      const last = this.builder?.finish()
      this.builder = null
      this.stage = 'done'
      return last
    }
    if (seg.id === 'INS') {
      const done = this.builder?.finish()
      this.builder = new MemberBuilder(seg)
      return done
    }
    this.builder?.read(seg)
    return undefined
  }

  /** The ISA, the first GS and the first ST*834 after it; the envelope is checked at the ST. */
  private readEnvelope(seg: X12Token): void {
    if (!this.isa) {
      this.isa = seg
      if (seg.elements.length < 16) throw new Edi834ParseError('bad_value', 'the ISA segment does not have 16 elements', 1)
      return
    }
    if (seg.id === 'GS' && !this.gs) this.gs = seg
    if (seg.id !== 'ST' || el(seg, 1) !== '834') return
    // An ST*834 before any GS: parse834 read the first GS and the first ST*834 and refused them out of order.
    if (!this.gs) throw new Edi834ParseError('missing_segment', 'the file has no GS and ST*834', 0)
    this.st = seg
    this.envelope = readEnvelope(this.isa, this.gs, seg)
    this.stage = 'header'
  }
}

function readEnvelope(isa: X12Token, gs: X12Token, st: X12Token): Edi834ParsedEnvelope {
  for (const [token, n, name] of [[isa, 13, 'ISA13'], [gs, 6, 'GS06']] as const) {
    if (!/^\d{1,9}$/.test(el(token, n))) throw new Edi834ParseError('bad_value', `${name} is not a control number`, token.position)
  }
  const usage = el(isa, 15)
  if (usage !== 'P' && usage !== 'T') throw new Edi834ParseError('unsupported_code', `ISA15 '${usage}' is not P or T`, 1)
  const createdAt = new Date(`${dateOf(el(gs, 4), gs, 'GS04')}T${el(gs, 5).slice(0, 2)}:${el(gs, 5).slice(2, 4)}:00Z`)
  if (Number.isNaN(createdAt.getTime())) throw new Edi834ParseError('bad_value', 'GS05 is not an HHMM time', gs.position)
  return {
    senderQualifier: el(isa, 5).trim(),
    senderId: el(isa, 6).trim(),
    receiverQualifier: el(isa, 7).trim(),
    receiverId: el(isa, 8).trim(),
    applicationSenderCode: el(gs, 2),
    applicationReceiverCode: el(gs, 3),
    interchangeControlNumber: Number(el(isa, 13)),
    groupControlNumber: Number(el(gs, 6)),
    transactionSetControlNumber: el(st, 2),
    usage,
    createdAt,
  }
}

function readHeaderSegment(seg: X12Token, header: Edi834ParsedHeader): void {
  switch (seg.id) {
    case 'BGN':
      header.reference = el(seg, 2)
      header.action = wordOf(FILE_ACTION, el(seg, 8), seg, 'BGN08')
      break
    case 'REF':
      if (el(seg, 1) === '38') header.masterPolicyNumber = el(seg, 2)
      break
    case 'DTP':
      if (el(seg, 1) === '007') header.effectiveDate = dateOf(el(seg, 3), seg, 'DTP03')
      break
    case 'QTY': {
      const totals = (header.totals ??= { subscribers: 0, dependents: 0 })
      if (el(seg, 1) === 'ET') totals.subscribers = count(el(seg, 2), seg)
      if (el(seg, 1) === 'DT') totals.dependents = count(el(seg, 2), seg)
      break
    }
    case 'N1': {
      const [entity, name, qualifier, id] = [el(seg, 1), el(seg, 2), el(seg, 3), el(seg, 4)]
      if (entity === 'P5') {
        header.sponsor = { name, fein: qualifier === 'FI' || qualifier === '24' ? id : null, groupExternalIdentifier: qualifier === '94' ? id : null }
      } else if (entity === 'IN') {
        header.payer = { name, carrierName: qualifier === '94' ? id : null }
      } else if (entity === 'BO' || entity === 'TV') {
        header.brokers.push({ name, nationalProducerNumber: id })
      }
      break
    }
  }
}
