import { sql, type Transaction } from 'kysely'
import type { Database } from '../../db/schema.js'
import { enqueueJob } from '../../jobs/outbox.js'
import { uuidv7 } from '../../lib/ids.js'
import { BUILD_FILE_JOB } from './carrier-delivery.jobs.js'
import { nextControlNumber } from './file-builder.js'

type Tx = Transaction<Database>

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
export async function openDelivery(tx: Tx, cp: DeliveryTarget, kind: 'full' | 'change', channel: 'edi' | 'api', now: Date): Promise<string> {
  const id = uuidv7()
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15)
  let fileName: string
  let controlNumber: number | null = null
  if (channel === 'edi') {
    controlNumber = await nextControlNumber(tx, cp.carrier_name)
    fileName = `${cp.carrier_name}_834_${kind}_${stamp}_${String(controlNumber).padStart(9, '0')}.x12`
  } else {
    fileName = `${cp.carrier_name}_${kind}_${stamp}_${id.slice(-12)}.json`
  }
  await tx
    .insertInto('file_deliveries')
    .values({
      id,
      account_id: cp.account_id,
      coverage_period_id: cp.id,
      group_id: cp.group_id,
      carrier_name: cp.carrier_name,
      kind,
      channel,
      file_name: fileName,
      sha256: null,
      interchange_control_number: controlNumber,
      destination: null,
      last_error: null,
      created_at: now,
      sent_at: null,
      updated_at: now,
    })
    .execute()
  await enqueueJob(tx, BUILD_FILE_JOB, { file_delivery_id: id })
  return id
}

/**
 * Gathers a coverage period's pending transactions into one change delivery. Rows another
 * worker has locked are skipped (SKIP LOCKED): they travel in the next delivery. What the file
 * says is decided when it is built, from the carrier's view and the coverage then (file-builder.ts).
 */
export async function gatherPendingTransactions(tx: Tx, cp: DeliveryTarget, channel: 'edi' | 'api', now: Date): Promise<string | null> {
  // One file on its way per carrier connection: a change file is the difference to what the carrier
  // holds once the previous file reached it, and must not overtake it. While one is being built,
  // sent, or sent but its views not yet taken (delivery-sent.ts), changes wait; its settling (sent,
  // skipped or failed) schedules this gathering again.
  const onItsWay = await sql<{ id: string }>`
    SELECT d.id FROM file_deliveries d
     WHERE d.coverage_period_id = ${cp.id}
       AND (d.status = 'pending' OR (d.status = 'sent' AND EXISTS (SELECT 1 FROM carrier_view_batches b WHERE b.file_delivery_id = d.id)))
     LIMIT 1`.execute(tx)
  if (onItsWay.rows.length > 0) return null
  const pending = await tx
    .selectFrom('member_transactions')
    .select('id')
    .where('coverage_period_id', '=', cp.id)
    .where('status', '=', 'pending')
    .where('file_delivery_id', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .skipLocked()
    .execute()
  if (pending.length === 0) return null
  const deliveryId = await openDelivery(tx, cp, 'change', channel, now)
  const ids = pending.map((row) => row.id)
  for (let start = 0; start < ids.length; start += 1000) {
    await tx.updateTable('member_transactions').set({ file_delivery_id: deliveryId, updated_at: now }).where('id', 'in', ids.slice(start, start + 1000)).execute()
  }
  await tx.updateTable('file_deliveries').set({ transaction_count: ids.length }).where('id', '=', deliveryId).execute()
  return deliveryId
}
