/**
 * The acknowledgements module's front door: reading the TA1 and 999 a carrier answers to an 834,
 * building the ones the sandbox carrier answers, and locating a 999 finding in the 834 we sent.
 * Acknowledgements, however they come (posted by operators, picked up from a carrier's inbound
 * directory or SFTP path, answered by a sandbox carrier), enter through one receiver
 * (acknowledgements.receiver.ts), are kept matched, unmatched or malformed, and give 834
 * deliveries their acknowledgement_status; api-contract.md section 10, "Acknowledgements".
 * createAcknowledgementsModule gives its routes, its service and that receiver;
 * src/main/carrier-side.ts wires it with the other carrier-side modules.
 */

import type { Db } from '../../db/schema.js'
import type { App } from '../../http/app-types.js'
import type { JobDefinition } from '../../jobs/job-definition.js'
import type { AcknowledgementReceiverImpl } from './acknowledgements.receiver.js'
import { acknowledgementsRoutes } from './acknowledgements.routes.js'
import { createAcknowledgementsService, type AcknowledgementsService, type AcknowledgementsServiceOptions } from './acknowledgements.service.js'

export { acknowledgementsRoutes } from './acknowledgements.routes.js'
export { createAcknowledgementsService, type AcknowledgementsService, type AcknowledgementsServiceOptions } from './acknowledgements.service.js'
export type { AcknowledgementArrival, AcknowledgementReceiver, AcknowledgementSource, ReceivedAcknowledgement, UnmatchedAcknowledgements } from './acknowledgement-receiver.js'
export {
  createAcknowledgementReceiver,
  type AcknowledgementReceiverDeps,
  type AcknowledgementReceiverImpl,
} from './acknowledgements.receiver.js'
export { deliveryStatusOf, mismatchOf, statusStated } from './acknowledgements.status.js'
export { createAcknowledgementOverdueCheck, markOverdueDeliveries, overdueSubject } from './acknowledgements.overdue.js'
export { createAcknowledgementInboxes, DirectoryInbox, SftpInbox, PROCESSED_DIRECTORY, type AcknowledgementInbox } from './acknowledgements.inbox.js'
export { createAcknowledgementPickupCheck, pickUpAcknowledgements, REMATCH_WINDOW_MS, type PickupReceiver } from './acknowledgements.pickup.js'

export { answer834, buildTa1, build999, type AckBuildOptions, type Answer834, type BuiltAcknowledgement } from './x12-ack.build.js'
export { AcknowledgementParseError, type AcknowledgementParseErrorCode } from './x12-ack.errors.js'
export { locateFinding, locateFindings, type FindingLocation, type FindingPosition, type LocatedSegment } from './x12-ack.locate.js'
export { recordAcknowledgementFindings, ACK_SUBJECT, type AcknowledgedDelivery, type AcknowledgementFindingsInput, type AcknowledgementFindingsOutcome } from './file-validation-errors.js'
export type {
  AckCode,
  AckEnvelope,
  AcknowledgementInterchange,
  ElementFinding,
  FunctionalGroupAck,
  FunctionalGroupStatus,
  SegmentFinding,
  Ta1Acknowledgement,
  Ta1Status,
  TransactionSetAck,
  TransactionSetStatus,
} from './x12-ack.model.js'
export { parseAcknowledgement } from './x12-ack.parse.js'

export interface AcknowledgementsModule {
  readonly name: 'acknowledgements'
  readonly routes: (app: App) => void
  readonly service: AcknowledgementsService
  /** The one way in for acknowledgements (operators' posts, the inbound pickup, the sandbox carriers). */
  readonly receiver: AcknowledgementReceiverImpl
  readonly jobs: readonly JobDefinition[]
}

export function createAcknowledgementsModule(deps: { db: Db } & AcknowledgementsServiceOptions): AcknowledgementsModule {
  const { db, ...options } = deps
  const service = createAcknowledgementsService(db, options)
  return {
    name: 'acknowledgements',
    routes: (app) => acknowledgementsRoutes(app, service),
    service,
    receiver: service.receiver,
    // Its checks (inbound pickup, overdue files) run on the general worker's polls, not as jobs: src/main/workers.ts.
    jobs: [],
  }
}
