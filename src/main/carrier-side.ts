import type { Db } from '../db/schema.js'
import type { JobDefinition } from '../jobs/job-definition.js'
import type { SsnProtection } from '../lib/ssn-protection.js'
import { createAcknowledgementReceiver, type AcknowledgementReceiver } from '../modules/acknowledgements/index.js'
import type { CarrierCatalog } from '../modules/carriers/carriers.catalog.js'
import { createCarrierDeliveryJobs } from '../modules/carrier-delivery/carrier-delivery.jobs.js'
import { createCarrierDeliveryService } from '../modules/carrier-delivery/carrier-delivery.service.js'
import type { CarrierSettings } from '../modules/carrier-delivery/carrier-settings.js'
import { CARRIER_INSTALLATION_HOOKS } from '../modules/carrier-delivery/installation-hooks.js'
import { createCensusService } from '../modules/census/census.service.js'
import { createSandboxCarrier } from '../modules/sandbox-carriers/sandbox-carrier.js'
import { createSandboxCarriersJobs, queueSandboxTurn } from '../modules/sandbox-carriers/sandbox-carriers.jobs.js'
import { createWorkOrderTransitionsService } from '../modules/work-orders/work-order-transitions.service.js'

/** What the carrier side needs at run time: SSN keys to open SSNs for files, the carriers, how they are reached. */
export interface CarrierSideDeps {
  db: Db
  ssn: SsnProtection
  carriers: CarrierCatalog
  settings: CarrierSettings
  /** Where the sandbox carriers' TA1s and 999s enter; default: a receiver of its own on `db`. */
  acknowledgements?: AcknowledgementReceiver
}

/** The carrier side's job handlers (carrier delivery, then the sandbox carriers), for the general worker. */
export function createCarrierSideJobs(deps: CarrierSideDeps): JobDefinition[] {
  const { db, ssn, carriers } = deps
  const transitions = createWorkOrderTransitionsService({ db, carriers, hooks: CARRIER_INSTALLATION_HOOKS })
  const census = createCensusService({ db, ssn, carriers })
  const acknowledgements = deps.acknowledgements ?? createAcknowledgementReceiver({ db, ssn })
  const sandbox = createSandboxCarrier({ db, ssn, carriers, transitions, census, acknowledgements })
  const carrierDelivery = createCarrierDeliveryService({ ...deps, acknowledgements, onSent: queueSandboxTurn(carriers, deps.settings.sandboxDelayMs) })
  return [...createCarrierDeliveryJobs(carrierDelivery), ...createSandboxCarriersJobs(sandbox)]
}
