import { Type } from 'typebox'
import { defineJob, defineJobSpec, type JobDefinition } from '../../jobs/job-definition.js'
import { enqueueJob } from '../../jobs/outbox.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import type { DeliverySentHook } from '../carrier-delivery/index.js'
import type { SandboxCarrier } from './sandbox-carrier.js'

/**
 * A sandbox carrier acting: installing a submitted group, or answering a delivery with a census.
 * Either way it first takes every delivery of the period it has not taken yet, in the order they
 * were sent; `file_delivery_id` names the one whose sending queued the job (absent on jobs queued
 * before it existed). The name keeps its `carrier.` prefix: jobs already in the outbox carry it.
 */
export const SANDBOX_CARRIER_JOB = defineJobSpec({
  name: 'carrier.sandbox_act',
  payload: Type.Object(
    {
      action: Type.Enum(['install', 'census']),
      coverage_period_id: Type.String(),
      work_order_id: Type.Optional(Type.String()),
      file_delivery_id: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
  maxAttempts: 5,
})

/**
 * A sandbox carrier reads what it was sent, `delayMs` after it was sent: it installs a group sent
 * in full, and answers changes with a census. Queued in the transaction that settles the delivery.
 */
export function queueSandboxTurn(carriers: CarrierCatalog, delayMs: number): DeliverySentHook {
  return async (tx, delivery, now) => {
    if (!carriers.find(delivery.carrier_name)?.sandbox) return
    const action = delivery.kind === 'full' ? ('install' as const) : ('census' as const)
    const payload = { action, coverage_period_id: delivery.coverage_period_id, file_delivery_id: delivery.id }
    await enqueueJob(tx, SANDBOX_CARRIER_JOB, payload, { runAt: new Date(now.getTime() + delayMs) })
  }
}

/** The sandbox carriers' job handler, for the general worker. */
export function createSandboxCarriersJobs(sandbox: SandboxCarrier): JobDefinition[] {
  return [
    defineJob({
      ...SANDBOX_CARRIER_JOB,
      handle: async (payload) => (payload.action === 'install' ? sandbox.install(payload.coverage_period_id) : sandbox.answer(payload.coverage_period_id)),
    }),
  ]
}
