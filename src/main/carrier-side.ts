import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../db/schema.js'
import type { App } from '../http/app-types.js'
import type { JobDefinition } from '../jobs/job-definition.js'
import type { SsnProtection } from '../lib/ssn-protection.js'
import { createAcknowledgementsModule, type AcknowledgementReceiver, type UnmatchedAcknowledgements } from '../modules/acknowledgements/index.js'
import type { CarrierCatalog } from '../modules/carriers/carriers.catalog.js'
import { CARRIER_INSTALLATION_HOOKS, createCarrierDeliveryModule, type CarrierSettings } from '../modules/carrier-delivery/index.js'
import { createCensusModule } from '../modules/census/index.js'
import { createSandboxCarriersModule } from '../modules/sandbox-carriers/index.js'
import { createWorkOrderTransitionsService, type WorkOrderTransitionsService } from '../modules/work-orders/work-order-transitions.service.js'

/**
 * The carrier side, wired: carrier delivery, acknowledgements, census and the sandbox carriers,
 * each built once from its module's front door with what it needs from the others passed in.
 * src/app.ts registers the modules' routes and src/main/workers.ts their jobs, each iterating
 * over `modules`.
 */

/** What the carrier side needs at run time: SSN keys to open SSNs for files, the carriers, how they are reached. */
export interface CarrierSideDeps {
  db: Db
  ssn: SsnProtection
  carriers: CarrierCatalog
  settings: CarrierSettings
  /** Where acknowledgements enter (the sandbox carriers' TA1s and 999s); default: the acknowledgements module's receiver. */
  acknowledgements?: AcknowledgementReceiver & UnmatchedAcknowledgements
  /** The work order transitions the sandbox carriers install groups with; default: built here with the carrier's installation hooks. */
  transitions?: WorkOrderTransitionsService
  /** Body limit of POST /coverage_periods/{id}/census_requests (CENSUS_BODY_LIMIT_BYTES). */
  censusBodyLimitBytes?: number
  /** The acknowledgement receiver's log and clock (the workers'). */
  log?: FastifyBaseLogger
  clock?: () => Date
}

/** What src/app.ts and src/main/workers.ts need of a carrier-side module. */
export interface CarrierSideModule {
  readonly name: string
  readonly routes?: (app: App) => void
  readonly jobs: readonly JobDefinition[]
}

export interface CarrierSide {
  /** In the order their routes are registered (the order of openapi.json) and their jobs listed. */
  readonly modules: readonly CarrierSideModule[]
  /** The one way in for acknowledgements, for the inbound pickup (src/main/workers.ts), which also re-matches what it kept unmatched. */
  readonly acknowledgements: AcknowledgementReceiver & UnmatchedAcknowledgements
}

export function createCarrierSide(deps: CarrierSideDeps): CarrierSide {
  const { db, ssn, carriers, settings } = deps
  const acknowledgementsModule = createAcknowledgementsModule({
    db,
    ssn,
    ...(deps.log ? { log: deps.log } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
  })
  const acknowledgements = deps.acknowledgements ?? acknowledgementsModule.receiver
  const census = createCensusModule({ db, ssn, carriers, heapGrowingPercent: settings.censusHeapGrowingPercent, ...(deps.censusBodyLimitBytes !== undefined ? { bodyLimitBytes: deps.censusBodyLimitBytes } : {}) })
  const transitions = deps.transitions ?? createWorkOrderTransitionsService({ db, carriers, hooks: CARRIER_INSTALLATION_HOOKS })
  const sandboxCarriers = createSandboxCarriersModule({ db, ssn, carriers, transitions, census: census.service, acknowledgements, delayMs: settings.sandboxDelayMs })
  const carrierDelivery = createCarrierDeliveryModule({ db, ssn, carriers, settings, acknowledgements, onSent: sandboxCarriers.onDeliverySent })
  return { modules: [carrierDelivery, acknowledgementsModule, census, sandboxCarriers], acknowledgements }
}
