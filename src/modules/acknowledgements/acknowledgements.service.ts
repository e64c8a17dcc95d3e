import type { AcknowledgementStatus, Db } from '../../db/schema.js'
import { uuidv7 } from '../../lib/ids.js'
import { isOperator, accountScopeOf, type Actor } from '../../lib/actor.js'
import { fileDeliveryNotFound } from '../carrier-delivery/file-deliveries.errors.js'
import { acknowledgementMalformed, acknowledgementNotExpected, acknowledgementNotForThisDelivery } from './acknowledgements.errors.js'
import * as repo from './acknowledgements.repo.js'
import type { Acknowledgement } from './acknowledgements.schema.js'
import { AcknowledgementParseError } from './x12-ack.errors.js'
import type { AcknowledgementInterchange, FunctionalGroupStatus } from './x12-ack.model.js'
import { parseAcknowledgement } from './x12-ack.parse.js'

/**
 * Acknowledgements received for 834 deliveries and the status they give the delivery
 * (api-contract.md section 10, "Acknowledgements"). Our 834 carries one group and one set, so one
 * number names all three: ISA13 = GS06 = interchange_control_number and ST02 is that number padded
 * to four digits (controlNumbers in edi-834.build.ts).
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
 * 999 yet, the status stays as it was (awaited, or overdue once that job exists).
 */
export function deliveryStatusOf(acks: readonly { kind: 'ta1' | '999'; status: FunctionalGroupStatus; model: AcknowledgementInterchange }[], current: AcknowledgementStatus | null): AcknowledgementStatus {
  if (acks.some((ack) => ta1Rejects(ack.model))) return 'rejected'
  const latest999 = acks.find((ack) => ack.kind === '999')
  if (latest999) return latest999.status
  return current === 'overdue' ? 'overdue' : 'awaited'
}

export interface AcknowledgementsService {
  post(actor: Actor, fileDeliveryId: string, text: string): Promise<Acknowledgement>
  list(actor: Actor, fileDeliveryId: string): Promise<Acknowledgement[]>
}

export function createAcknowledgementsService(db: Db): AcknowledgementsService {
  return {
    async post(actor, fileDeliveryId, text) {
      const scope = accountScopeOf(actor)
      const delivery = await repo.findDeliveryForAcknowledgement(db, scope, fileDeliveryId)
      if (!delivery) throw fileDeliveryNotFound()
      if (delivery.channel !== 'edi' || delivery.interchange_control_number === null) throw acknowledgementNotExpected('api')
      if (delivery.status !== 'sent') throw acknowledgementNotExpected('unsent')
      let model: AcknowledgementInterchange
      try {
        model = parseAcknowledgement(text)
      } catch (error) {
        if (error instanceof AcknowledgementParseError) throw acknowledgementMalformed(error)
        throw error
      }
      const mismatch = mismatchOf(model, delivery.interchange_control_number)
      if (mismatch) throw acknowledgementNotForThisDelivery(mismatch)

      return db.transaction().execute(async (tx) => {
        const locked = await repo.findDeliveryForAcknowledgement(tx, scope, fileDeliveryId, true)
        if (!locked) throw fileDeliveryNotFound()
        const now = new Date()
        const row = await repo.insertAcknowledgement(tx, {
          id: uuidv7(now.getTime()),
          account_id: delivery.account_id,
          file_delivery_id: delivery.id,
          kind: model.groups.length > 0 ? '999' : 'ta1',
          raw: text,
          model,
          status: statusStated(model),
          source: 'operator',
          received_at: now,
        })
        const all = await repo.listAcknowledgements(tx, delivery.id)
        const status = deliveryStatusOf(
          all.map((ack) => ({ kind: ack.kind, status: ack.status, model: ack.model as AcknowledgementInterchange })),
          locked.acknowledgement_status,
        )
        if (status !== locked.acknowledgement_status) await repo.setAcknowledgementStatus(tx, delivery.id, status, now)
        return repo.presentAcknowledgement(row, isOperator(actor))
      })
    },

    async list(actor, fileDeliveryId) {
      const delivery = await repo.findDeliveryForAcknowledgement(db, accountScopeOf(actor), fileDeliveryId)
      if (!delivery) throw fileDeliveryNotFound()
      const rows = await repo.listAcknowledgements(db, delivery.id)
      return rows.map((row) => repo.presentAcknowledgement(row, isOperator(actor)))
    },
  }
}
