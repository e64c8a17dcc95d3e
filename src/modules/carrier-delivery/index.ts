/**
 * The carrier delivery module's front door: what the service sends each carrier (834 files for
 * EDI carriers, JSON documents for API carriers), from opening a delivery to settling what the
 * carrier received. createCarrierDeliveryModule gives its routes (the file deliveries and
 * coverage transmissions read by the API), its service (carrier-delivery.service.ts), its jobs
 * (carrier-delivery.jobs.ts) and the reads other modules use; src/main/carrier-side.ts wires it
 * with the other carrier-side modules.
 *
 * The rest of the module: file-builder.ts builds a delivery's content in named steps from the
 * members module's enrollment read model (edi-834-members.ts composes the member loops,
 * carrier-view.ts decides what the carrier must be told, pre-send-check.ts holds back members
 * the X220A1 rule table refuses); rejected-deliveries.ts follows the carrier's TA1 and 999 verdicts
 * (a rejected file's views rolled back); carrier-delivery.repo.ts and carrier-views.repo.ts hold its
 * SQL, file-deliveries.repo.ts the API's reads; transports/ reach the carriers.
 */

import type { App } from '../../http/app-types.js'
import type { JobDefinition } from '../../jobs/job-definition.js'
import { createCarrierDeliveryJobs } from './carrier-delivery.jobs.js'
import { createCarrierDeliveryService, type CarrierDeliveryDeps, type CarrierDeliveryService } from './carrier-delivery.service.js'
import { fileChunks } from './file-deliveries.repo.js'
import { fileDeliveriesRoutes } from './file-deliveries.routes.js'

export { BUILD_FILE_JOB, DELIVER_TRANSACTIONS_JOB, DELIVERY_SENT_JOB, SEND_FILE_JOB, UNDO_REJECTED_DELIVERY_JOB, scheduleTransactionDelivery } from './carrier-delivery.jobs.js'
export { createCarrierDeliveryService, type CarrierDeliveryDeps, type CarrierDeliveryService, type DeliverySentHook } from './carrier-delivery.service.js'
export type { FileDeliveryRow } from './carrier-delivery.repo.js'
export { DEFAULT_CARRIER_SETTINGS, type CarrierSettings } from './carrier-settings.js'
export { CARRIER_INSTALLATION_HOOKS } from './installation-hooks.js'
export { fileDeliveryNotFound, type FileDeliveryErrorCode } from './file-deliveries.errors.js'
export { fileChunks, readFileContent } from './file-deliveries.repo.js'
export { followVerdict } from './rejected-deliveries.js'
export { purgeUnansweredPriors } from './carrier-views.repo.js'
export { createApiConnector, createFileTransport, type TransportDefaults } from './transports/create-transport.js'
export { SftpTransport } from './transports/sftp-transport.js'
export { CarrierConnectionFields } from './transports/transport.schema.js'

/** What other modules may read of carrier delivery. */
export interface CarrierDeliveryReads {
  /** A delivery's content, opened, chunk by chunk (the sandbox reads what it received; a 999's findings are located in it). */
  fileChunks: typeof fileChunks
}

export interface CarrierDeliveryModule {
  readonly name: 'carrier-delivery'
  readonly routes: (app: App) => void
  readonly service: CarrierDeliveryService
  readonly jobs: readonly JobDefinition[]
  readonly reads: CarrierDeliveryReads
}

export function createCarrierDeliveryModule(deps: CarrierDeliveryDeps): CarrierDeliveryModule {
  const service = createCarrierDeliveryService(deps)
  return {
    name: 'carrier-delivery',
    routes: (app) => fileDeliveriesRoutes(app, deps.db, deps.ssn, service),
    service,
    jobs: createCarrierDeliveryJobs(service),
    reads: { fileChunks },
  }
}
