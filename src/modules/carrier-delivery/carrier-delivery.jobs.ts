import { sql } from 'kysely'
import { Type } from 'typebox'
import type { Db, Executor } from '../../db/schema.js'
import { defineJob, defineJobSpec, type JobDefinition } from '../../jobs/job-definition.js'
import { enqueueJob } from '../../jobs/outbox.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { Edi834WriteError } from '../edi-834/edi-834.errors.js'
import { CarrierConnections } from './carrier-connections.js'
import type { CarrierSettings } from './carrier-settings.js'
import { gatherPendingTransactions } from './deliveries.js'
import { settleSentDelivery } from './delivery-sent.js'
import { buildFileDelivery } from './file-builder.js'
import { sendFileDelivery } from './send-file.js'

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

export interface CarrierDeliveryJobsDeps {
  db: Db
  ssn: SsnProtection
  carriers: CarrierCatalog
  settings: CarrierSettings
}

/** A broken transfer is retried after 5 s, 20 s, 80 s ... at most 30 minutes apart. */
const sendBackoffMs = (attempt: number) => Math.min(30 * 60_000, 5000 * 4 ** Math.max(0, attempt - 1))

/** The carrier delivery's job handlers, for the general worker. */
export function createCarrierDeliveryJobs(deps: CarrierDeliveryJobsDeps): JobDefinition[] {
  const { db, carriers } = deps
  const connections = new CarrierConnections(deps.settings)

  return [
    defineJob({
      ...BUILD_FILE_JOB,
      handle: async (payload, context) => {
        try {
          await buildFileDelivery(deps, payload.file_delivery_id)
        } catch (error) {
          // Data the writer refuses will be refused again: fail the delivery now, with the reason
          // (codes and positions only, never member data), instead of retrying.
          const final = error instanceof Edi834WriteError || context.attempt >= BUILD_FILE_JOB.maxAttempts
          if (!final) throw error
          await db.transaction().execute(async (tx) => {
            const failed = await tx
              .updateTable('file_deliveries')
              .set({ status: 'failed', last_error: `The file could not be built: ${(error as Error).message}`.slice(0, 1000), updated_at: new Date() })
              .where('id', '=', payload.file_delivery_id)
              .returning('coverage_period_id')
              .executeTakeFirst()
            // Changes held back behind it go on; its own stay with it (the same data would fail again).
            if (failed) await scheduleTransactionDelivery(tx, failed.coverage_period_id, new Date(), 0)
          })
          context.log.error({ err: error, fileDeliveryId: payload.file_delivery_id }, 'carrier file could not be built')
        }
      },
    }),
    defineJob({
      ...SEND_FILE_JOB,
      backoffMs: sendBackoffMs,
      handle: async (payload, context) =>
        sendFileDelivery({ db, ssn: deps.ssn, carriers, connections }, payload.file_delivery_id, context.attempt, SEND_FILE_JOB.maxAttempts),
    }),
    defineJob({
      ...DELIVERY_SENT_JOB,
      handle: async (payload) => settleSentDelivery({ db, carriers, sandboxDelayMs: deps.settings.sandboxDelayMs }, payload.file_delivery_id),
    }),
    defineJob({
      ...DELIVER_TRANSACTIONS_JOB,
      handle: async (payload) => {
        await db.transaction().execute(async (tx) => {
          // The coverage period's row is the gathering's lock: two gatherings of one period (two
          // jobs due at once) run one after the other, and the second sees the first's delivery.
          const cp = await tx.selectFrom('coverage_periods').selectAll().where('id', '=', payload.coverage_period_id).forUpdate().executeTakeFirst()
          const carrier = cp && carriers.find(cp.carrier_name)
          if (!cp || !carrier || carrier.distribution_format === 'manual') return
          await gatherPendingTransactions(tx, cp, carrier.distribution_format, new Date())
        })
      },
    }),
  ]
}
