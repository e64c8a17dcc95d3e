import { controlNumbers, envelopeSegments, headerSegments, memberSegments } from './edi-834.build.js'
import { Edi834WriteError } from './edi-834.errors.js'
import type { Edi834Envelope, Edi834Header, Edi834Member } from './edi-834.model.js'
import { interchangeControlNumber, serializeSegment, type X12Segment } from './x12-segments.js'

export interface Write834Options {
  /**
   * A member's loop 2000 segments when the caller built them already (the check before a file is
   * sent builds each member's segments to walk them: the writer reuses them instead of building
   * them twice). Default: memberSegments.
   */
  segmentsOf?: (member: Edi834Member) => readonly X12Segment[]
}

/** Members' text is handed out in chunks of about this size: few enough yields, small enough memory. */
const BATCH_CHARS = 64 * 1024

/**
 * Writes one 834 interchange (one functional group BE, one ST*834) as a stream of text chunks:
 * the envelope and header first, then the members in batches, then SE/GE/IEA. Only the
 * segment count is kept, so the file is never held in memory and members can come from a
 * cursor (`AsyncIterable`).
 *
 * Members must arrive subscriber first, each followed by its dependents. The header's totals
 * are written before the members are seen (QTY), so they are checked at the end: on a mismatch
 * the generator throws instead of writing the trailer, and the caller must discard what it
 * wrote. Any `Edi834WriteError` likewise means the partial output is not a file.
 */
export async function* write834(
  envelope: Edi834Envelope,
  header: Edi834Header,
  members: Iterable<Edi834Member> | AsyncIterable<Edi834Member>,
  options: Write834Options = {},
): AsyncGenerator<string, void, undefined> {
  const head = write834Head(envelope, header)
  yield head.text
  const loops = new Edi834MemberLoops(header.action, options.segmentsOf)
  let batch = ''
  for await (const member of members) {
    batch += loops.add(member)
    if (batch.length >= BATCH_CHARS) {
      yield batch
      batch = ''
    }
  }
  if (batch) yield batch
  const { totals } = header
  if (totals.subscribers !== loops.subscribers || totals.dependents !== loops.dependents) {
    throw new Edi834WriteError(
      'totals_mismatch',
      `the header announced ${totals.subscribers} subscribers and ${totals.dependents} dependents but ${loops.subscribers} and ${loops.dependents} were written`,
    )
  }
  yield write834Trailer(envelope, head.segmentCount + loops.segmentCount)
}

/**
 * ISA, GS, ST and the header (BGN through loop 1000C) as text, and how many of them SE01 counts
 * (ST onward; ISA and GS are outside the transaction set).
 */
export function write834Head(envelope: Edi834Envelope, header: Edi834Header): { text: string; segmentCount: number } {
  const { isa, gs, st } = envelopeSegments(envelope, controlNumbers(envelope))
  const head = [st, ...headerSegments(header, envelope.createdAt)]
  return { text: serializeSegment(isa) + serializeSegment(gs) + head.map(serializeSegment).join(''), segmentCount: head.length }
}

/** SE, GE and IEA as text; `segmentCount` counts ST and every segment after it, SE left out. */
export function write834Trailer(envelope: Edi834Envelope, segmentCount: number): string {
  const control = controlNumbers(envelope)
  const isa13 = interchangeControlNumber(control.interchange)
  return serializeSegment(['SE', String(segmentCount + 1), control.transactionSet]) + serializeSegment(['GE', '1', String(control.group)]) + serializeSegment(['IEA', '1', isa13])
}

/**
 * The member loops of one 834, as text, one member at a time: checks their order and counts
 * subscribers, dependents and segments, so a caller that writes the header last (a change file,
 * whose totals are known only once its members are) needs nothing else from the members.
 */
export class Edi834MemberLoops {
  subscribers = 0
  dependents = 0
  segmentCount = 0
  // A family's loops come together, its subscriber first. A full file holds every subscriber; a
  // change file may send a dependent alone (a newborn whose subscriber's coverage level is unchanged,
  // x12-834-notes.md), still never between another family's loops.
  private readonly subscriberRequired: boolean
  private currentFamily: string | null = null
  private previousWasDependent = false
  private readonly families = new Set<string>()
  private readonly segmentsOf: (member: Edi834Member) => readonly X12Segment[]

  constructor(action: Edi834Header['action'], segmentsOf: Write834Options['segmentsOf'] = memberSegments) {
    this.subscriberRequired = action !== 'change'
    this.segmentsOf = segmentsOf
  }

  /** The member's loop 2000 as text; throws Edi834WriteError when it comes out of order. */
  add(member: Edi834Member): string {
    const family = member.subscriberIdentifier
    if (member.subscriber) {
      this.subscribers++
      if (this.currentFamily === family && this.previousWasDependent) throw new Edi834WriteError('member_order', `subscriber ${this.subscribers} comes after a dependent of its own family`)
    } else {
      this.dependents++
      const follows = this.currentFamily === family
      if (this.subscriberRequired ? !follows : !follows && this.families.has(family)) {
        throw new Edi834WriteError('member_order', `dependent ${this.dependents} does not follow its subscriber`)
      }
    }
    this.currentFamily = family
    this.previousWasDependent = !member.subscriber
    // Only a change file needs to remember the families already written (a full file's 50,000
    // identifiers would stay alive to the end for nothing).
    if (!this.subscriberRequired) this.families.add(family)
    const segments = this.segmentsOf(member)
    this.segmentCount += segments.length
    let text = ''
    for (const seg of segments) text += serializeSegment(seg)
    return text
  }
}

/** The whole file as one string: for tests and small files; jobs should stream `write834`. */
export async function write834ToString(
  envelope: Edi834Envelope,
  header: Edi834Header,
  members: Iterable<Edi834Member> | AsyncIterable<Edi834Member>,
  options: Write834Options = {},
): Promise<string> {
  let text = ''
  for await (const chunk of write834(envelope, header, members, options)) text += chunk
  return text
}
