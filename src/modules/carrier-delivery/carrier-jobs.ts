import { sql } from 'kysely'
import { Type } from 'typebox'
import type { Executor } from '../../db/schema.js'
import { defineJobSpec } from '../../jobs/job-definition.js'
import { enqueueJob } from '../../jobs/outbox.js'

/**
 * The carrier side's background jobs, as specs: producers (work orders, members, life events)
 * enqueue with these; src/modules/carrier-delivery/carrier-delivery.jobs.ts gives the handlers,
 * which need run-time configuration (transports, sandbox delays).
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

/** Gather a coverage period's pending member transactions into one change delivery. */
export const DELIVER_TRANSACTIONS_JOB = defineJobSpec({
  name: 'carrier.deliver_transactions',
  payload: Type.Object({ coverage_period_id: Type.String() }, { additionalProperties: false }),
  maxAttempts: 5,
})

/**
 * A sandbox carrier acting: installing a submitted group, or answering a delivery with a census.
 * Either way it first takes every delivery of the period it has not taken yet, in the order they
 * were sent; `file_delivery_id` names the one whose sending queued the job (absent on jobs queued
 * before it existed).
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
 * Schedules the gathering of a coverage period's pending transactions `delayMs` from now, unless
 * one is already waiting: changes made within that window travel in one file.
 */
export async function scheduleTransactionDelivery(tx: Executor, coveragePeriodId: string, now: Date, delayMs: number): Promise<void> {
  const waiting = await tx
    .selectFrom('jobs')
    .select('id')
    .where('name', '=', DELIVER_TRANSACTIONS_JOB.name)
    .where('status', '=', 'pending')
    .where(sql<boolean>`payload->>'coverage_period_id' = ${coveragePeriodId}`)
    .limit(1)
    .executeTakeFirst()
  if (waiting) return
  await enqueueJob(tx, DELIVER_TRANSACTIONS_JOB, { coverage_period_id: coveragePeriodId }, { runAt: new Date(now.getTime() + delayMs) })
}
