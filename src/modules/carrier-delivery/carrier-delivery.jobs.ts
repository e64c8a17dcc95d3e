import type { Db } from '../../db/schema.js'
import { defineJob, type JobDefinition } from '../../jobs/job-definition.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import { createAcknowledgementReceiver, type AcknowledgementReceiver } from '../acknowledgements/index.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { createCensusService } from '../census/census.service.js'
import { Edi834WriteError } from '../edi-834/edi-834.errors.js'
import { createSandboxCarrier } from '../sandbox-carriers/sandbox-carrier.js'
import { createWorkOrderTransitionsService } from '../work-orders/work-order-transitions.service.js'
import { CarrierConnections } from './carrier-connections.js'
import { BUILD_FILE_JOB, DELIVER_TRANSACTIONS_JOB, DELIVERY_SENT_JOB, SANDBOX_CARRIER_JOB, SEND_FILE_JOB, scheduleTransactionDelivery } from './carrier-jobs.js'
import { settleSentDelivery } from './delivery-sent.js'
import type { CarrierSettings } from './carrier-settings.js'
import { gatherPendingTransactions } from './deliveries.js'
import { buildFileDelivery } from './file-builder.js'
import { CARRIER_INSTALLATION_HOOKS } from './installation-hooks.js'
import { sendFileDelivery } from './send-file.js'

export interface CarrierSideDeps {
  db: Db
  ssn: SsnProtection
  carriers: CarrierCatalog
  settings: CarrierSettings
  /** Where the sandbox carriers' TA1s and 999s enter; default: a receiver of its own on `db`. */
  acknowledgements?: AcknowledgementReceiver
}

/** A broken transfer is retried after 5 s, 20 s, 80 s ... at most 30 minutes apart. */
const sendBackoffMs = (attempt: number) => Math.min(30 * 60_000, 5000 * 4 ** Math.max(0, attempt - 1))

/** The carrier side's job handlers, for the general worker. */
export function createCarrierJobs(deps: CarrierSideDeps): JobDefinition[] {
  const { db, carriers } = deps
  const connections = new CarrierConnections(deps.settings)
  const transitions = createWorkOrderTransitionsService({ db, carriers, hooks: CARRIER_INSTALLATION_HOOKS })
  const census = createCensusService({ db, ssn: deps.ssn, carriers })
  const acknowledgements = deps.acknowledgements ?? createAcknowledgementReceiver({ db, ssn: deps.ssn })
  const sandbox = createSandboxCarrier({ db, ssn: deps.ssn, carriers, transitions, census, acknowledgements })

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
    defineJob({
      ...SANDBOX_CARRIER_JOB,
      handle: async (payload) => (payload.action === 'install' ? sandbox.install(payload.coverage_period_id) : sandbox.answer(payload.coverage_period_id)),
    }),
  ]
}
