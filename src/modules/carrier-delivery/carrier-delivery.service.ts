import type { Db, Executor } from '../../db/schema.js'
import { enqueueJob } from '../../jobs/outbox.js'
import { uuidv7 } from '../../lib/ids.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import type { AcknowledgementArrival, AcknowledgementReceiver, ReceivedAcknowledgement } from '../acknowledgements/index.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { refreshFamilyStatuses } from '../member-management/family-status.js'
import { CarrierConnectionError, CarrierConnections } from './carrier-connections.js'
import { BUILD_FILE_JOB, DELIVERY_SENT_JOB, scheduleTransactionDelivery } from './carrier-delivery.jobs.js'
import * as repo from './carrier-delivery.repo.js'
import type { CarrierSettings } from './carrier-settings.js'
import { dropStagedViews, hasPriors, takeViews } from './carrier-views.repo.js'
import { fileDeliveryAlreadyResent, fileDeliveryCarrierUnreachable, fileDeliveryNotFound, fileDeliveryNotRejected, fileDeliveryOnItsWay } from './file-deliveries.errors.js'
import { fileChunks, readFileContent } from './file-deliveries.repo.js'
import { undoRejectedDelivery, undoStaleBuild } from './rejected-deliveries.js'
import { withBoundedHeapGrowth } from '../../lib/heap-growth.js'
import { buildFileDelivery } from './file-builder.js'
import { messageOf } from './transports/file-transport.js'

/**
 * Called in the transaction that settles a sent delivery, after its transactions and statuses:
 * what another module does once a carrier received a file (the sandbox carriers queue their turn).
 */
export type DeliverySentHook = (tx: Executor, delivery: repo.FileDeliveryRow, now: Date) => Promise<void>

export interface CarrierDeliveryDeps {
  db: Db
  ssn: SsnProtection
  carriers: CarrierCatalog
  settings: CarrierSettings
  /** Where carriers' TA1s and 999s enter (the acknowledgements module's receiver). */
  acknowledgements: AcknowledgementReceiver
  /** What follows a delivery the carrier received, in other modules; nothing by default. */
  onSent?: DeliverySentHook
}

export type CarrierDeliveryService = ReturnType<typeof createCarrierDeliveryService>

/** A failure worth another attempt (a broken transfer, a carrier answering 5xx). */
const isRetryable = (error: unknown) => (error as { retryable?: unknown }).retryable === true

export interface DeliveryTarget {
  id: string
  account_id: string
  group_id: string
  carrier_name: string
}

/**
 * Opens a delivery and queues its build. The file name and (for 834 files) the interchange
 * control number are fixed now, in the transaction that decided to send: a retried build or send
 * reuses them, which is what lets the transport recognise a file it already delivered.
 */
export async function openDelivery(tx: Executor, cp: DeliveryTarget, kind: 'full' | 'change', channel: 'edi' | 'api', now: Date): Promise<string> {
  const id = uuidv7()
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15)
  let fileName: string
  let controlNumber: number | null = null
  if (channel === 'edi') {
    controlNumber = await repo.nextControlNumber(tx, cp.carrier_name)
    fileName = `${cp.carrier_name}_834_${kind}_${stamp}_${String(controlNumber).padStart(9, '0')}.x12`
  } else {
    fileName = `${cp.carrier_name}_${kind}_${stamp}_${id.slice(-12)}.json`
  }
  const target = { account_id: cp.account_id, coverage_period_id: cp.id, group_id: cp.group_id, carrier_name: cp.carrier_name }
  await repo.insertDelivery(tx, { id, ...target, kind, channel, file_name: fileName, interchange_control_number: controlNumber, now })
  await enqueueJob(tx, BUILD_FILE_JOB, { file_delivery_id: id })
  return id
}

/**
 * Gathers a coverage period's pending transactions into one change delivery. Rows another
 * worker has locked are skipped (SKIP LOCKED): they travel in the next delivery. What the file
 * says is decided when it is built, from the carrier's view and the coverage then (file-builder.ts).
 */
export async function gatherPendingTransactions(tx: Executor, cp: DeliveryTarget, channel: 'edi' | 'api', now: Date): Promise<string | null> {
  // One file on its way per carrier connection: a change file is the difference to what the carrier
  // holds once the previous file reached it, and must not overtake it. While one is being built,
  // sent, or sent but its views not yet taken (settle), changes wait; its settling (sent, skipped
  // or failed) schedules this gathering again.
  if (await repo.deliveryOnItsWay(tx, cp.id)) return null
  const ids = await repo.lockUndeliveredTransactions(tx, cp.id)
  if (ids.length === 0) return null
  const deliveryId = await openDelivery(tx, cp, 'change', channel, now)
  await repo.assignTransactions(tx, deliveryId, ids, now)
  return deliveryId
}

/**
 * The carrier delivery's use cases, each a job's work: gather transactions into a delivery,
 * build it, send it, settle what follows, and take the carrier's acknowledgements.
 */
export function createCarrierDeliveryService(deps: CarrierDeliveryDeps) {
  const { db, carriers } = deps
  const connections = new CarrierConnections(deps.settings)

  /** Puts the file where the carrier reads it (edi) or submits it to its API (api); returns where it went. */
  async function transmit(delivery: repo.FileDeliveryRow, content: { sha256: string; bytes: number }): Promise<string> {
    const carrier = carriers.find(delivery.carrier_name)
    if (!carrier) throw new CarrierConnectionError(`carrier ${delivery.carrier_name} is no longer configured`)
    if (delivery.channel === 'edi') {
      const transport = connections.fileTransport(carrier)
      const destination = transport.describe()
      await transport.deliver(delivery.file_name, () => fileChunks(db, deps.ssn, delivery.id), content)
      return destination
    }
    const api = connections.api(carrier)
    const destination = api.describe()
    // The delivery id is the idempotency key: a retry after a lost answer is applied once.
    await api.submit(`/enrollments`, JSON.parse(await readFileContent(db, deps.ssn, delivery.id)), delivery.id)
    return destination
  }

  return {
    /** Gathers the coverage period's pending member transactions into one change delivery (DELIVER_TRANSACTIONS_JOB). */
    async deliverTransactions(coveragePeriodId: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const cp = await repo.lockCoveragePeriod(tx, coveragePeriodId)
        const carrier = cp && carriers.find(cp.carrier_name)
        if (!cp || !carrier || carrier.distribution_format === 'manual') return
        await gatherPendingTransactions(tx, cp, carrier.distribution_format, new Date())
      })
    },

    /**
     * Builds the delivery's content and queues its send (file-builder.ts), with the heap kept close
     * to what the build holds (lib/heap-growth.ts): a full file's garbage would otherwise grow the
     * process by well over 100 MB.
     */
    build: (deliveryId: string): Promise<void> =>
      withBoundedHeapGrowth(deps.settings.fileBuildHeapGrowingPercent, () => buildFileDelivery(deps, deliveryId)),

    /**
     * Fails a delivery whose file cannot be built, with the reason (codes and positions only,
     * never member data). Changes held back behind it go on; its own stay with it (the same data
     * would fail again).
     */
    async failBuild(deliveryId: string, error: Error): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const coveragePeriodId = await repo.markBuildFailed(tx, deliveryId, `The file could not be built: ${error.message}`, new Date())
        if (coveragePeriodId) await scheduleTransactionDelivery(tx, coveragePeriodId, new Date(), 0)
      })
    },

    /**
     * Sends a built delivery through the carrier's transport (edi) or API (api), then marks it sent
     * and queues what follows (settle) in the same transaction. A failure is recorded on the
     * delivery; a retryable one is thrown again so the job runs later (the transport makes the
     * retry safe), until the last attempt marks the delivery failed.
     */
    async send(deliveryId: string, attempt: number, maxAttempts: number): Promise<void> {
      const delivery = await repo.findDelivery(db, deliveryId)
      if (!delivery || delivery.status !== 'pending') return
      if (delivery.sha256 === null || delivery.byte_size === null) throw new Error(`File delivery ${deliveryId} is not built yet`)
      let destination: string
      try {
        destination = await transmit(delivery, { bytes: Number(delivery.byte_size), sha256: delivery.sha256 })
      } catch (error) {
        const final = !isRetryable(error) || attempt >= maxAttempts
        await db.transaction().execute(async (tx) => {
          const now = new Date()
          await repo.recordSendFailure(tx, delivery.id, messageOf(error), final, now)
          if (!final) return
          // Nothing of it reached the carrier: its changes go back to pending and travel in the next
          // change file (the carrier's view never took them), and changes held back behind it go too.
          await dropStagedViews(tx, delivery.id)
          if (delivery.kind === 'change') await repo.releaseTransactions(tx, delivery.id, now)
          await scheduleTransactionDelivery(tx, delivery.coverage_period_id, now, 0)
        })
        if (final) return
        throw error
      }
      const now = new Date()
      await db.transaction().execute(async (tx) => {
        await repo.markSent(tx, delivery, destination, now)
        await enqueueJob(tx, DELIVERY_SENT_JOB, { file_delivery_id: delivery.id })
      })
    },

    /**
     * What follows a delivery the carrier received, in one transaction: the carrier's views take
     * what it told, its transactions become submitted (for a full delivery, each enrolled family's
     * `installation` transaction is written now, submitted), the families' statuses follow, and
     * other modules act on it (onSent: a sandbox carrier reads what it received). A job of its
     * own, queued with the delivery's `sent`: for an installation this is tens of thousands of
     * rows, which need not hold the file back. Run twice, it changes nothing.
     */
    async settle(deliveryId: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const delivery = await repo.lockDelivery(tx, deliveryId)
        if (!delivery || delivery.status !== 'sent') return
        // A rejection of another file of the period rolls views back under the same lock.
        await repo.lockCarrierViews(tx, delivery.coverage_period_id)
        const now = new Date()
        const submittedAt = delivery.sent_at ?? now
        await takeViews(tx, delivery)
        await undoStaleBuild(tx, delivery)
        if (delivery.kind === 'full') await repo.insertInstallationTransactions(tx, delivery, submittedAt, now)
        else await repo.markTransactionsSubmitted(tx, delivery.id, submittedAt, now)
        // Changes held back while this file was on its way (and what a full file could not say) go now.
        await scheduleTransactionDelivery(tx, delivery.coverage_period_id, now, 0)
        await refreshFamilyStatuses(tx, { fileDeliveryId: delivery.id }, now)
        // A TA1 or 999 rejecting it matched before this settle: it is undone now the views are taken.
        if (delivery.acknowledgement_status === 'rejected') await undoRejectedDelivery(tx, delivery, now)
        await deps.onSent?.(tx, delivery, now)
      })
    },

    /**
     * Takes back what a delivery the carrier rejected told it (UNDO_REJECTED_DELIVERY_JOB, queued
     * by the acknowledgement): rejected-deliveries.ts. Nothing if a later answer no longer rejects
     * it, or if it is not settled yet (its settle does it).
     */
    async undoRejected(deliveryId: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const delivery = await repo.lockDelivery(tx, deliveryId)
        if (!delivery || delivery.acknowledgement_status !== 'rejected') return
        await undoRejectedDelivery(tx, delivery, new Date())
      })
    },

    /**
     * Sends a delivery the carrier rejected again (POST /file_deliveries/{id}/resend, operators),
     * once: a change file's transactions are written again as pending and go in the next change
     * file, which tells each family the difference between what the carrier holds (the views
     * rolled back on the rejection) and what is true now, named by the same events; a full file
     * is built again whole, and so is the period's roster when a change file could not be rolled
     * back (its earlier views gone). Answers the transactions queued again and whether a full file
     * was opened.
     */
    async resend(deliveryId: string): Promise<{ transactionsQueued: number; fullFile: boolean }> {
      return db.transaction().execute(async (tx) => {
        const delivery = await repo.lockDelivery(tx, deliveryId)
        if (!delivery) throw fileDeliveryNotFound()
        if (delivery.acknowledgement_status !== 'rejected' || delivery.views_rolled_back_at === null) throw fileDeliveryNotRejected(delivery.acknowledgement_status)
        if (delivery.resent_at !== null) throw fileDeliveryAlreadyResent(delivery.resent_at)
        const carrier = carriers.find(delivery.carrier_name)
        if (!carrier || carrier.distribution_format === 'manual') throw fileDeliveryCarrierUnreachable(delivery.carrier_name)
        await repo.lockCarrierViews(tx, delivery.coverage_period_id)
        const now = new Date()
        // A change file whose earlier views are gone was not rolled back: only a full file tells
        // the carrier everything again.
        if (delivery.kind === 'full' || !(await hasPriors(tx, delivery.id))) {
          // A full file replaces what the carrier holds: it must not cross a change file on its way.
          if (await repo.deliveryOnItsWay(tx, delivery.coverage_period_id)) throw fileDeliveryOnItsWay()
          await repo.markResent(tx, delivery.id, now)
          const target = { id: delivery.coverage_period_id, account_id: delivery.account_id, group_id: delivery.group_id, carrier_name: delivery.carrier_name }
          await openDelivery(tx, target, 'full', carrier.distribution_format, now)
          return { transactionsQueued: 0, fullFile: true }
        }
        await repo.markResent(tx, delivery.id, now)
        const queued = await repo.copyRejectedTransactions(tx, delivery.id, now)
        await refreshFamilyStatuses(tx, { fileDeliveryId: delivery.id }, now)
        await scheduleTransactionDelivery(tx, delivery.coverage_period_id, now, 0)
        return { transactionsQueued: queued, fullFile: false }
      })
    },

    /** A carrier's TA1 or 999, however it came: matched to its delivery and kept by the acknowledgements module's receiver. */
    acknowledge: (arrival: AcknowledgementArrival): Promise<ReceivedAcknowledgement> => deps.acknowledgements.receive(arrival),
  }
}
