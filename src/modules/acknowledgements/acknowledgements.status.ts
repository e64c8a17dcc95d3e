import type { AcknowledgementStatus } from '../../db/schema.js'
import type { AcknowledgementInterchange, FunctionalGroupStatus } from './x12-ack.model.js'

/**
 * What acknowledgements say about an 834 delivery (api-contract.md section 10, "Acknowledgements").
 * Our 834 carries one group and one set, so one number names all three: ISA13 = GS06 =
 * interchange_control_number and ST02 is that number padded to four digits (controlNumbers in
 * edi-834.build.ts).
 */

/** Control numbers are compared as numbers: ISA13 is zero-padded to nine digits, ST02 to four, GS06 not at all. */
const sameNumber = (sent: string, ours: number) => /^\d+$/.test(sent) && Number(sent) === ours

/** The first number in the acknowledgement that is not this delivery's, described; null when all are. */
export function mismatchOf(ack: AcknowledgementInterchange, interchangeControlNumber: number): string | null {
  const ours = interchangeControlNumber
  for (const ta1 of ack.ta1s) {
    if (!sameNumber(ta1.acknowledgedControlNumber, ours)) return `TA1-01 acknowledges interchange ${ta1.acknowledgedControlNumber}, this delivery's ISA13 is ${String(ours).padStart(9, '0')}`
  }
  for (const group of ack.groups) {
    if (group.functionalId !== 'BE') return `AK1-01 acknowledges a functional group of kind ${group.functionalId}, this delivery's is BE (834)`
    if (!sameNumber(group.acknowledgedGroupControlNumber, ours)) return `AK1-02 acknowledges group ${group.acknowledgedGroupControlNumber}, this delivery's GS06 is ${ours}`
    for (const set of group.transactionSets) {
      if (set.transactionSetId !== '834') return `AK2-01 acknowledges a ${set.transactionSetId} transaction set, this delivery's is an 834`
      if (!sameNumber(set.controlNumber, ours)) return `AK2-02 acknowledges transaction set ${set.controlNumber}, this delivery's ST02 is ${String(ours).padStart(4, '0')}`
    }
  }
  return null
}

const ta1Rejects = (ack: AcknowledgementInterchange) => ack.ta1s.some((ta1) => ta1.status === 'rejected')

/** What one acknowledgement says: a rejecting TA1 wins, then the (last) 999's AK9-01, then the TA1's verdict. */
export function statusStated(ack: AcknowledgementInterchange): FunctionalGroupStatus {
  if (ta1Rejects(ack)) return 'rejected'
  const lastGroup = ack.groups.at(-1)
  if (lastGroup) return lastGroup.status
  return ack.ta1s.at(-1)?.status ?? 'accepted'
}

/**
 * The delivery's status from all its acknowledgements (newest first): rejected once a TA1 rejects
 * the interchange (the carrier then read none of it); otherwise the latest 999's verdict; with no
 * 999 yet, the status stays as it was (awaited, or overdue once the overdue check marked it).
 */
export function deliveryStatusOf(acks: readonly { kind: 'ta1' | '999'; status: FunctionalGroupStatus; model: AcknowledgementInterchange }[], current: AcknowledgementStatus | null): AcknowledgementStatus {
  if (acks.some((ack) => ta1Rejects(ack.model))) return 'rejected'
  const latest999 = acks.find((ack) => ack.kind === '999')
  if (latest999) return latest999.status
  return current === 'overdue' ? 'overdue' : 'awaited'
}
