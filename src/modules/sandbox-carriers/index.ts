/**
 * The sandbox carriers' front door: carriers that run inside the service so the whole life cycle
 * can be tried on one machine, and that, like real ones, know only what they were sent
 * (sandbox-carrier.ts). createSandboxCarriersModule gives the sandbox (its service), its job and
 * the hook carrier delivery calls once a file reached a carrier (onDeliverySent: a sandbox
 * carrier's turn is queued); src/main/carrier-side.ts wires it. It reads what it received through
 * carrier delivery's front door, answers through the acknowledgements receiver and the census
 * service it is given, and keeps its roster in its own tables (sandbox-roster.repo.ts).
 */

import type { JobDefinition } from '../../jobs/job-definition.js'
import type { DeliverySentHook } from '../carrier-delivery/index.js'
import { createSandboxCarrier, type SandboxCarrier, type SandboxDeps } from './sandbox-carrier.js'
import { createSandboxCarriersJobs, queueSandboxTurn } from './sandbox-carriers.jobs.js'

export { createSandboxCarrier, type SandboxCarrier, type SandboxDeps } from './sandbox-carrier.js'
export { SANDBOX_CARRIER_JOB } from './sandbox-carriers.jobs.js'

export interface SandboxCarriersDeps extends SandboxDeps {
  /** How long a sandbox carrier takes to act on a file it received (SANDBOX_CARRIER_DELAY_MS). */
  delayMs: number
}

export interface SandboxCarriersModule {
  readonly name: 'sandbox-carriers'
  readonly service: SandboxCarrier
  readonly jobs: readonly JobDefinition[]
  readonly onDeliverySent: DeliverySentHook
}

export function createSandboxCarriersModule(deps: SandboxCarriersDeps): SandboxCarriersModule {
  const service = createSandboxCarrier(deps)
  return {
    name: 'sandbox-carriers',
    service,
    jobs: createSandboxCarriersJobs(service),
    onDeliverySent: queueSandboxTurn(deps.carriers, deps.delayMs),
  }
}
