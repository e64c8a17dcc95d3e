import { controlNumbers, envelopeSegments, headerSegments, memberSegments } from './edi-834.build.js'
import { Edi834WriteError } from './edi-834.errors.js'
import type { Edi834Envelope, Edi834Header, Edi834Member } from './edi-834.model.js'
import { serializeSegment, type X12Segment } from './x12-segments.js'

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
  const segmentsOf = options.segmentsOf ?? memberSegments
  const control = controlNumbers(envelope)
  const { isa, gs, st } = envelopeSegments(envelope, control)
  const head = [st, ...headerSegments(header, envelope.createdAt)]
  // SE01 counts ST through SE; ISA and GS are outside the transaction set.
  let segmentCount = head.length
  yield serializeSegment(isa) + serializeSegment(gs) + head.map(serializeSegment).join('')

  let subscribers = 0
  let dependents = 0
  // A family's loops come together, its subscriber first. A full file holds every subscriber; a
  // change file may send a dependent alone (a newborn whose subscriber's coverage level is unchanged,
  // x12-834-notes.md), still never between another family's loops.
  const subscriberRequired = header.action !== 'change'
  let currentFamily: string | null = null
  let previousWasDependent = false
  const families = new Set<string>()
  let batch = ''
  for await (const member of members) {
    const family = member.subscriberIdentifier
    if (member.subscriber) {
      subscribers++
      if (currentFamily === family && previousWasDependent) throw new Edi834WriteError('member_order', `subscriber ${subscribers} comes after a dependent of its own family`)
    } else {
      dependents++
      const follows = currentFamily === family
      if (subscriberRequired ? !follows : !follows && families.has(family)) {
        throw new Edi834WriteError('member_order', `dependent ${dependents} does not follow its subscriber`)
      }
    }
    currentFamily = family
    previousWasDependent = !member.subscriber
    // Only a change file needs to remember the families already written (a full file's 50,000
    // identifiers would stay alive to the end for nothing).
    if (!subscriberRequired) families.add(family)
    const segments = segmentsOf(member)
    segmentCount += segments.length
    for (const seg of segments) batch += serializeSegment(seg)
    if (batch.length >= BATCH_CHARS) {
      yield batch
      batch = ''
    }
  }
  if (batch) yield batch

  const { totals } = header
  if (totals.subscribers !== subscribers || totals.dependents !== dependents) {
    throw new Edi834WriteError(
      'totals_mismatch',
      `the header announced ${totals.subscribers} subscribers and ${totals.dependents} dependents but ${subscribers} and ${dependents} were written`,
    )
  }
  segmentCount += 1 // SE itself
  const isa13 = isa[13] as string
  yield serializeSegment(['SE', String(segmentCount), control.transactionSet]) +
    serializeSegment(['GE', '1', String(control.group)]) +
    serializeSegment(['IEA', '1', isa13])
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
