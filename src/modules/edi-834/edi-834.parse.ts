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
  const { segments } = tokenizeX12(text)
  const isa = segments[0] as X12Token
  if (isa.elements.length < 16) throw new Edi834ParseError('bad_value', 'the ISA segment does not have 16 elements', 1)
  const gsIndex = segments.findIndex((s) => s.id === 'GS')
  const stIndex = segments.findIndex((s) => s.id === 'ST' && el(s, 1) === '834')
  const gs = segments[gsIndex]
  const st = segments[stIndex]
  if (!gs || !st || stIndex < gsIndex) throw new Edi834ParseError('missing_segment', 'the file has no GS and ST*834', 0)

  for (const [token, n, name] of [[isa, 13, 'ISA13'], [gs, 6, 'GS06']] as const) {
    if (!/^\d{1,9}$/.test(el(token, n))) throw new Edi834ParseError('bad_value', `${name} is not a control number`, token.position)
  }
  const usage = el(isa, 15)
  if (usage !== 'P' && usage !== 'T') throw new Edi834ParseError('unsupported_code', `ISA15 '${usage}' is not P or T`, 1)
  const createdAt = new Date(`${dateOf(el(gs, 4), gs, 'GS04')}T${el(gs, 5).slice(0, 2)}:${el(gs, 5).slice(2, 4)}:00Z`)
  if (Number.isNaN(createdAt.getTime())) throw new Edi834ParseError('bad_value', 'GS05 is not an HHMM time', gs.position)
  const envelope: Edi834ParsedEnvelope = {
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

  const header: Edi834ParsedHeader = {
    reference: '',
    action: 'change',
    masterPolicyNumber: null,
    effectiveDate: null,
    totals: null,
    sponsor: { name: '', fein: null, groupExternalIdentifier: null },
    payer: { name: '', carrierName: null },
    brokers: [],
  }
  let sawBgn = false
  let i = stIndex + 1
  for (; i < segments.length; i++) {
    const seg = segments[i] as X12Token
    if (seg.id === 'INS' || seg.id === 'SE') break
    readHeaderSegment(seg, header)
    if (seg.id === 'BGN') sawBgn = true
  }
  if (!sawBgn) throw new Edi834ParseError('missing_segment', 'the transaction set has no BGN', st.position)

  const members: Edi834Member[] = []
  let builder: MemberBuilder | null = null
  for (; i < segments.length; i++) {
    const seg = segments[i] as X12Token
    if (seg.id === 'SE') break
    if (seg.id === 'INS') {
      if (builder) members.push(builder.finish())
      builder = new MemberBuilder(seg)
    } else if (builder) {
      builder.read(seg)
    }
  }
  if (builder) members.push(builder.finish())
  return { envelope, header, members }
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
