import { sql, type Selectable } from 'kysely'
import type { AcknowledgementsTable, AcknowledgementStatus, Executor, FileDeliveriesTable } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { offsetOf } from '../../http/pagination.js'
import type { AccountScope } from '../../lib/actor.js'
import type { AcknowledgementInterchange } from './x12-ack.model.js'

export type AcknowledgementRow = Selectable<AcknowledgementsTable>
export type FileDeliveryRow = Selectable<FileDeliveriesTable>

/** What deciding on a posted acknowledgement needs of the delivery; undefined outside the scope. */
export async function findDeliveryForAcknowledgement(db: Executor, scope: AccountScope, id: string) {
  let query = db
    .selectFrom('file_deliveries')
    .select(['id', 'account_id', 'carrier_name', 'channel', 'status', 'interchange_control_number', 'acknowledgement_status'])
    .where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}

/**
 * The delivery, locked: two acknowledgements of one delivery stored at once must not both compute
 * its status from a list missing the other, and the overdue check must not mark it meanwhile.
 */
export async function lockDelivery(db: Executor, id: string): Promise<FileDeliveryRow | undefined> {
  return db.selectFrom('file_deliveries').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

/**
 * The sent 834 of the carrier with this interchange control number (ISA13 = GS06 of ours). The
 * numbers wrap after 999,999,999, so the most recently sent one wins.
 */
export async function findSentDeliveryId(db: Executor, carrierName: string, interchangeControlNumber: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('file_deliveries')
    .select('id')
    .where('carrier_name', '=', carrierName)
    .where('interchange_control_number', '=', interchangeControlNumber)
    .where('channel', '=', 'edi')
    .where('status', '=', 'sent')
    .orderBy('sent_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row?.id
}

export async function findAcknowledgementByRaw(db: Executor, carrierName: string, rawSha256: string): Promise<AcknowledgementRow | undefined> {
  return db.selectFrom('acknowledgements').selectAll().where('carrier_name', '=', carrierName).where('raw_sha256', '=', rawSha256).executeTakeFirst()
}

export async function findAcknowledgement(db: Executor, id: string): Promise<AcknowledgementRow | undefined> {
  return db.selectFrom('acknowledgements').selectAll().where('id', '=', id).executeTakeFirst()
}

export type NewAcknowledgement = Omit<AcknowledgementRow, 'model'> & { model: AcknowledgementInterchange | null }

/** Inserts unless the carrier's same text is stored already (then undefined: the caller reads that one). */
export async function insertAcknowledgement(db: Executor, row: NewAcknowledgement): Promise<AcknowledgementRow | undefined> {
  return db
    .insertInto('acknowledgements')
    .values({ ...row, model: row.model === null ? null : JSON.stringify(row.model) })
    .onConflict((oc) => oc.columns(['carrier_name', 'raw_sha256']).doNothing())
    .returningAll()
    .executeTakeFirst()
}

/** An acknowledgement kept unmatched that now answers a delivery: linked to it. */
export async function linkAcknowledgement(db: Executor, id: string, delivery: { id: string; account_id: string }): Promise<AcknowledgementRow> {
  return db
    .updateTable('acknowledgements')
    .set({ outcome: 'matched', problem: null, file_delivery_id: delivery.id, account_id: delivery.account_id })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Newest first: received_at, then id (uuidv7, so also in order of arrival). */
export async function listAcknowledgements(db: Executor, fileDeliveryId: string): Promise<AcknowledgementRow[]> {
  return db.selectFrom('acknowledgements').selectAll().where('file_delivery_id', '=', fileDeliveryId).orderBy('received_at', 'desc').orderBy('id', 'desc').execute()
}

export async function setAcknowledgementStatus(db: Executor, fileDeliveryId: string, status: AcknowledgementStatus, now: Date): Promise<void> {
  await db.updateTable('file_deliveries').set({ acknowledgement_status: status, updated_at: now }).where('id', '=', fileDeliveryId).execute()
}

export interface ReceivedFilters {
  outcome?: 'matched' | 'unmatched' | 'malformed' | undefined
  carrierName?: string | undefined
  source?: 'operator' | 'inbound' | 'sandbox' | undefined
}

/** Every acknowledgement received, newest first, for the operators' report. */
export async function listReceivedAcknowledgements(db: Executor, filters: ReceivedFilters, pageReq: PageRequest): Promise<{ items: AcknowledgementRow[]; total: number }> {
  let query = db.selectFrom('acknowledgements')
  if (filters.outcome) query = query.where('outcome', '=', filters.outcome)
  if (filters.carrierName) query = query.where('carrier_name', '=', filters.carrierName)
  if (filters.source) query = query.where('source', '=', filters.source)
  const [items, count] = await Promise.all([
    query.selectAll().orderBy('received_at', 'desc').orderBy('id', 'desc').limit(pageReq.perPage).offset(offsetOf(pageReq)).execute(),
    query.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow(),
  ])
  return { items, total: count.total }
}
