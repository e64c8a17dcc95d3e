import { Type } from 'typebox'
import type { Executor } from '../../db/schema.js'
import { defineJob, defineJobSpec, type JobDefinition } from '../../jobs/job-definition.js'
import { enqueueJob } from '../../jobs/outbox.js'
import { Edi834WriteError } from '../edi-834/edi-834.errors.js'
import { pendingJobForPeriod } from './carrier-delivery.repo.js'
// Type only: the service imports the specs below, and producers import them without the service.
import type { CarrierDeliveryService } from './carrier-delivery.service.js'

/**
 * The carrier delivery's background jobs: their specs, which producers (work orders, member
 * management, this module's own steps) enqueue with, and their handlers for the general worker.
 */

/** Build a file delivery's content (a full 834, a change 834 or an API document) into chunks. */
export const BUILD_FILE_JOB = defineJobSpec({
  name: 'carrier.build_file',
  payload: Type.Object({ file_delivery_id: Type.String() }, { additionalProperties: false }),
  maxAttempts: 5,
})

/**
 * Send a built delivery through the carrier's transport or API connector. Retried with backoff;
 * the transport makes a retry after a broken transfer safe (see transports/file-transport.ts).
 */
export const SEND_FILE_JOB = defineJobSpec({
  name: 'carrier.send_file',
  payload: Type.Object({ file_delivery_id: Type.String() }, { additionalProperties: false }),
  maxAttempts: 8,
})

/** What follows a delivery the carrier received: transactions submitted, statuses, sandbox. */
export const DELIVERY_SENT_JOB = defineJobSpec({
  name: 'carrier.delivery_sent',
  payload: Type.Object({ file_delivery_id: Type.String() }, { additionalProperties: false }),
  maxAttempts: 10,
})

/**
 * Take back what a file the carrier rejected told it (rejected-deliveries.ts): its own job, queued
 * by the acknowledgement that rejected it, because a full file's rollback rewrites every family of
 * the group and need not hold the acknowledgement's answer back.
 */
export const UNDO_REJECTED_DELIVERY_JOB = defineJobSpec({
  name: 'carrier.undo_rejected_delivery',
  payload: Type.Object({ file_delivery_id: Type.String() }, { additionalProperties: false }),
  maxAttempts: 10,
})

/** Gather a coverage period's pending member transactions into one change delivery. */
export const DELIVER_TRANSACTIONS_JOB = defineJobSpec({
  name: 'carrier.deliver_transactions',
  payload: Type.Object({ coverage_period_id: Type.String() }, { additionalProperties: false }),
  maxAttempts: 5,
})

/**
 * Schedules the gathering of a coverage period's pending transactions `delayMs` from now, unless
 * one is already waiting: changes made within that window travel in one file.
 */
export async function scheduleTransactionDelivery(tx: Executor, coveragePeriodId: string, now: Date, delayMs: number): Promise<void> {
  if (await pendingJobForPeriod(tx, DELIVER_TRANSACTIONS_JOB.name, coveragePeriodId)) return
  await enqueueJob(tx, DELIVER_TRANSACTIONS_JOB, { coverage_period_id: coveragePeriodId }, { runAt: new Date(now.getTime() + delayMs) })
}

/** A broken transfer is retried after 5 s, 20 s, 80 s ... at most 30 minutes apart. */
const sendBackoffMs = (attempt: number) => Math.min(30 * 60_000, 5000 * 4 ** Math.max(0, attempt - 1))

/** The carrier delivery's job handlers, for the general worker: each one a use case of the service. */
export function createCarrierDeliveryJobs(service: CarrierDeliveryService): JobDefinition[] {
  return [
    defineJob({
      ...BUILD_FILE_JOB,
      handle: async (payload, context) => {
        try {
          await service.build(payload.file_delivery_id)
        } catch (error) {
          // Data the writer refuses will be refused again: fail the delivery now, with the reason
          // (codes and positions only, never member data), instead of retrying.
          const final = error instanceof Edi834WriteError || context.attempt >= BUILD_FILE_JOB.maxAttempts
          if (!final) throw error
          await service.failBuild(payload.file_delivery_id, error as Error)
          context.log.error({ err: error, fileDeliveryId: payload.file_delivery_id }, 'carrier file could not be built')
        }
      },
    }),
    defineJob({
      ...SEND_FILE_JOB,
      backoffMs: sendBackoffMs,
      handle: async (payload, context) => service.send(payload.file_delivery_id, context.attempt, SEND_FILE_JOB.maxAttempts),
    }),
    defineJob({
      ...DELIVERY_SENT_JOB,
      handle: async (payload) => service.settle(payload.file_delivery_id),
    }),
    defineJob({
      ...UNDO_REJECTED_DELIVERY_JOB,
      handle: async (payload) => service.undoRejected(payload.file_delivery_id),
    }),
    defineJob({
      ...DELIVER_TRANSACTIONS_JOB,
      handle: async (payload) => service.deliverTransactions(payload.coverage_period_id),
    }),
  ]
}
