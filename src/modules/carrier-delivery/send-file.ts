import type { Db } from '../../db/schema.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import { enqueueJob } from '../../jobs/outbox.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { DELIVERY_SENT_JOB, scheduleTransactionDelivery } from './carrier-delivery.jobs.js'
import { CarrierConnectionError, type CarrierConnections } from './carrier-connections.js'
import { dropStagedViews } from './carrier-view-staging.js'
import { fileChunks } from './file-deliveries.repo.js'
import { messageOf } from './transports/file-transport.js'

export interface SendDeps {
  db: Db
  ssn: SsnProtection
  carriers: CarrierCatalog
  connections: CarrierConnections
}

/** Chunks (about 1 MiB each) read at once while sending: memory stays flat whatever the file. */
const SEND_CHUNK_PAGE = 2

/** A failure worth another attempt (a broken transfer, a carrier answering 5xx). */
const isRetryable = (error: unknown) => (error as { retryable?: unknown }).retryable === true

async function contentText(db: Db, ssn: SsnProtection, deliveryId: string): Promise<string> {
  const parts: Buffer[] = []
  for await (const chunk of fileChunks(db, ssn, deliveryId)) parts.push(chunk)
  return Buffer.concat(parts).toString('utf8')
}

/**
 * Sends a built delivery through the carrier's transport (edi) or API (api), then marks it sent
 * and queues what follows (delivery-sent.ts) in the same transaction. A failure is recorded on
 * the delivery; a retryable one is thrown again so the job runs later (the transport makes the
 * retry safe), until the last attempt marks the delivery failed.
 */
export async function sendFileDelivery(deps: SendDeps, deliveryId: string, attempt: number, maxAttempts: number): Promise<void> {
  const { db } = deps
  const delivery = await db.selectFrom('file_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirst()
  if (!delivery || delivery.status !== 'pending') return
  if (delivery.sha256 === null || delivery.byte_size === null) throw new Error(`File delivery ${deliveryId} is not built yet`)
  const carrier = deps.carriers.find(delivery.carrier_name)
  let destination: string
  try {
    if (!carrier) throw new CarrierConnectionError(`carrier ${delivery.carrier_name} is no longer configured`)
    if (delivery.channel === 'edi') {
      const transport = deps.connections.fileTransport(carrier)
      destination = transport.describe()
      await transport.deliver(delivery.file_name, () => fileChunks(db, deps.ssn, delivery.id, SEND_CHUNK_PAGE), { bytes: Number(delivery.byte_size), sha256: delivery.sha256 })
    } else {
      const api = deps.connections.api(carrier)
      destination = api.describe()
      // The delivery id is the idempotency key: a retry after a lost answer is applied once.
      await api.submit(`/enrollments`, JSON.parse(await contentText(db, deps.ssn, delivery.id)), delivery.id)
    }
  } catch (error) {
    const final = !isRetryable(error) || attempt >= maxAttempts
    await db.transaction().execute(async (tx) => {
      const now = new Date()
      await tx
        .updateTable('file_deliveries')
        .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: messageOf(error).slice(0, 1000), status: final ? 'failed' : 'pending', updated_at: now }))
        .where('id', '=', delivery.id)
        .execute()
      if (!final) return
      // Nothing of it reached the carrier: its changes go back to pending and travel in the next
      // change file (the carrier's view never took them), and changes held back behind it go too.
      await dropStagedViews(tx, delivery.id)
      if (delivery.kind === 'change') {
        await tx.updateTable('member_transactions').set({ file_delivery_id: null, updated_at: now }).where('file_delivery_id', '=', delivery.id).where('status', '=', 'pending').execute()
      }
      await scheduleTransactionDelivery(tx, delivery.coverage_period_id, now, 0)
    })
    if (final) return
    throw error
  }

  const now = new Date()
  await db.transaction().execute(async (tx) => {
    await tx
      .updateTable('file_deliveries')
      // An 834 file now awaits the carrier's TA1 and 999 (issue 14); an API submission gets none.
      .set((eb) => ({ status: 'sent', sent_at: now, destination, attempts: eb('attempts', '+', 1), last_error: null, updated_at: now, acknowledgement_status: delivery.channel === 'edi' ? 'awaited' : null }))
      .where('id', '=', delivery.id)
      .execute()
    await enqueueJob(tx, DELIVERY_SENT_JOB, { file_delivery_id: delivery.id })
  })
}
