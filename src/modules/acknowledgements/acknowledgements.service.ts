import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { isOperator, accountScopeOf, type Actor } from '../../lib/actor.js'
import { fileDeliveryNotFound } from '../carrier-delivery/index.js'
import { acknowledgementMalformed, acknowledgementNotExpected, acknowledgementNotForThisDelivery } from './acknowledgements.errors.js'
import { presentAcknowledgement, presentReceived } from './acknowledgements.present.js'
import { createAcknowledgementReceiver, type AcknowledgementReceiverDeps, type AcknowledgementReceiverImpl } from './acknowledgements.receiver.js'
import * as repo from './acknowledgements.repo.js'
import type { Acknowledgement, ReceivedAcknowledgementView } from './acknowledgements.schema.js'
import { mismatchOf } from './acknowledgements.status.js'
import { AcknowledgementParseError } from './x12-ack.errors.js'
import type { AcknowledgementInterchange } from './x12-ack.model.js'
import { parseAcknowledgement } from './x12-ack.parse.js'

export { deliveryStatusOf, mismatchOf, statusStated } from './acknowledgements.status.js'

/**
 * Acknowledgements received for 834 deliveries and the status they give the delivery
 * (api-contract.md section 10, "Acknowledgements"). An operator's post goes through the same
 * receiver as the inbound job and the sandbox (acknowledgements.receiver.ts); it only checks first
 * that the text answers the delivery the operator named, and refuses it otherwise.
 */
export interface AcknowledgementsService {
  /** `created` false: the same text from that carrier was stored before; that one is answered. */
  post(actor: Actor, fileDeliveryId: string, text: string): Promise<{ acknowledgement: Acknowledgement; created: boolean }>
  list(actor: Actor, fileDeliveryId: string): Promise<Acknowledgement[]>
  /** Every acknowledgement received, for operators (GET /acknowledgements). */
  listReceived(filters: repo.ReceivedFilters, pageReq: PageRequest): Promise<{ items: ReceivedAcknowledgementView[]; total: number }>
  readonly receiver: AcknowledgementReceiverImpl
}

export interface AcknowledgementsServiceOptions extends Omit<AcknowledgementReceiverDeps, 'db'> {
  log?: FastifyBaseLogger
}

export function createAcknowledgementsService(db: Db, options: AcknowledgementsServiceOptions): AcknowledgementsService {
  const receiver = createAcknowledgementReceiver({ db, ...options })
  return {
    receiver,

    async post(actor, fileDeliveryId, text) {
      const delivery = await repo.findDeliveryForAcknowledgement(db, accountScopeOf(actor), fileDeliveryId)
      if (!delivery) throw fileDeliveryNotFound()
      if (delivery.channel !== 'edi' || delivery.interchange_control_number === null) throw acknowledgementNotExpected('api')
      if (delivery.status !== 'sent') throw acknowledgementNotExpected('unsent')
      // Refused outright, not kept: the operator holds the text and learns at once what is wrong with it.
      let model: AcknowledgementInterchange
      try {
        model = parseAcknowledgement(text)
      } catch (error) {
        if (error instanceof AcknowledgementParseError) throw acknowledgementMalformed(error)
        throw error
      }
      const mismatch = mismatchOf(model, delivery.interchange_control_number)
      if (mismatch) throw acknowledgementNotForThisDelivery(mismatch)

      const receipt = await receiver.receiveFor(delivery.id, { carrierName: delivery.carrier_name, text, source: 'operator' })
      const row = await repo.findAcknowledgement(db, receipt.id)
      if (!row || row.outcome !== 'matched') throw new Error(`acknowledgement ${receipt.id} was not linked to delivery ${delivery.id}`)
      return { acknowledgement: presentAcknowledgement(row, isOperator(actor)), created: !receipt.duplicate }
    },

    async list(actor, fileDeliveryId) {
      const delivery = await repo.findDeliveryForAcknowledgement(db, accountScopeOf(actor), fileDeliveryId)
      if (!delivery) throw fileDeliveryNotFound()
      const rows = await repo.listAcknowledgements(db, delivery.id)
      return rows.map((row) => presentAcknowledgement(row, isOperator(actor)))
    },

    async listReceived(filters, pageReq) {
      const { items, total } = await repo.listReceivedAcknowledgements(db, filters, pageReq)
      return { items: items.map(presentReceived), total }
    },
  }
}
