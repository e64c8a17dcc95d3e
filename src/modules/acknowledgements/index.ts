/**
 * The acknowledgements module's front door: reading the TA1 and 999 a carrier answers to an 834,
 * building the ones the sandbox carrier answers, and locating a 999 finding in the 834 we sent.
 * Acknowledgements posted by operators are stored and give 834 deliveries their
 * acknowledgement_status (acknowledgements.service.ts); api-contract.md section 10, "Acknowledgements".
 */

export { acknowledgementsRoutes } from './acknowledgements.routes.js'
export { createAcknowledgementsService, type AcknowledgementsService } from './acknowledgements.service.js'

export { buildTa1, build999, type AckBuildOptions, type BuiltAcknowledgement } from './x12-ack.build.js'
export { AcknowledgementParseError, type AcknowledgementParseErrorCode } from './x12-ack.errors.js'
export { locateFinding, type FindingLocation } from './x12-ack.locate.js'
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
