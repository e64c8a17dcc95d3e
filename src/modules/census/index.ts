/**
 * The census module's front door: a carrier's census (an 834 audit file or JSON) submitted for a
 * coverage period, reconciled against the members module's enrollment read model, its
 * discrepancies raised as errors (census.service.ts); the census requests read back
 * (census-read.routes.ts). createCensusModule gives its routes and its service;
 * src/main/carrier-side.ts wires it with the other carrier-side modules (the sandbox carriers
 * answer with a census through this service).
 */

import type { Db } from '../../db/schema.js'
import type { App } from '../../http/app-types.js'
import type { JobDefinition } from '../../jobs/job-definition.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { censusReadRoutes } from './census-read.routes.js'
import { censusRoutes, DEFAULT_CENSUS_BODY_LIMIT_BYTES } from './census.routes.js'
import { createCensusService, type CensusService } from './census.service.js'

export { censusSubscribersFrom834 } from './census-from-834.js'
export { DEFAULT_CENSUS_BODY_LIMIT_BYTES } from './census.routes.js'
export { createCensusService, RECONCILIATION_RESOLUTION, type CensusService } from './census.service.js'
export type { CensusErrorCode } from './census.errors.js'

export interface CensusDeps {
  db: Db
  /** Hashes the census's SSNs to match them with members'. */
  ssn: SsnProtection
  carriers: CarrierCatalog
  /** Body limit of POST /coverage_periods/{id}/census_requests (CENSUS_BODY_LIMIT_BYTES). */
  bodyLimitBytes?: number
  /** How far V8's heap may grow over what is live while a census is reconciled (CENSUS_HEAP_GROWING_PERCENT; lib/heap-growth.ts). */
  heapGrowingPercent?: number
}

export interface CensusModule {
  readonly name: 'census'
  readonly routes: (app: App) => void
  readonly service: CensusService
  readonly jobs: readonly JobDefinition[]
}

export function createCensusModule(deps: CensusDeps): CensusModule {
  const service = createCensusService({ db: deps.db, ssn: deps.ssn, carriers: deps.carriers, ...(deps.heapGrowingPercent !== undefined ? { heapGrowingPercent: deps.heapGrowingPercent } : {}) })
  return {
    name: 'census',
    routes: (app) => {
      censusReadRoutes(app, deps.db)
      censusRoutes(app, service, deps.bodyLimitBytes ?? DEFAULT_CENSUS_BODY_LIMIT_BYTES)
    },
    service,
    jobs: [],
  }
}
