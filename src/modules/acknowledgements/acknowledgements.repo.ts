import { sql, type Selectable } from 'kysely'
import type { AcknowledgementsTable, AcknowledgementStatus, Executor, FileDeliveriesTable } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { offsetOf } from '../../http/pagination.js'
import type { AccountScope } from '../../lib/actor.js'
import type { ErrorRow } from '../errors/errors.repo.js'
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
 * A transaction its delivery carried: not one the pre-send check held back, which ends in `errors`
 * without ever being submitted (a census may end a carried one in `errors` too, submitted).
 */
const carriedTransaction = sql<boolean>`not (status = 'errors' and submitted_at is null)`

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

/**
 * The carrier's acknowledgements kept unmatched since `since`, oldest first, at most `limit`: what
 * the pickup tries to match again (acknowledgements.pickup.ts). Copies stored before raw_sha256
 * existed are left out: receiving their text again could not find them.
 */
export async function unmatchedAcknowledgementsSince(db: Executor, carrierName: string, since: Date, limit: number) {
  return db
    .selectFrom('acknowledgements')
    .select(['id', 'raw', 'source', 'file_name'])
    .where('carrier_name', '=', carrierName)
    .where('outcome', '=', 'unmatched')
    .where('raw_sha256', 'is not', null)
    .where('received_at', '>=', since)
    .orderBy('received_at')
    .orderBy('id')
    .limit(limit)
    .execute()
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

// ---- Overdue deliveries (acknowledgements.overdue.ts) ----

/** The carrier's sent edi files still awaiting a 999 and sent no later than the cutoff, oldest first. */
export async function overdueCandidates(db: Executor, carrierName: string, cutoff: Date, limit: number): Promise<{ id: string }[]> {
  return db
    .selectFrom('file_deliveries')
    .select('id')
    .where('acknowledgement_status', '=', 'awaited')
    .where('carrier_name', '=', carrierName)
    .where('channel', '=', 'edi')
    .where('status', '=', 'sent')
    .where('sent_at', '<=', cutoff)
    .orderBy('sent_at')
    .limit(limit)
    .execute()
}

/**
 * Up to `limit` of the transaction ids an error about the whole delivery links (an overdue file,
 * a 999 finding about no known member), oldest first. Those the pre-send check held back are
 * left out (carriedTransaction): the file did not carry them.
 */
export async function transactionIdsOfDelivery(db: Executor, deliveryId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('member_transactions')
    .select('id')
    .where('file_delivery_id', '=', deliveryId)
    .where(carriedTransaction)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute()
  return rows.map((row) => row.id)
}

/** The coverage period's unresolved errors with this dedupe key, locked. */
export async function lockOpenErrorsByDedupeKey(db: Executor, coveragePeriodId: string, dedupeKey: string): Promise<ErrorRow[]> {
  return db.selectFrom('errors').selectAll().where('coverage_period_id', '=', coveragePeriodId).where('dedupe_key', '=', dedupeKey).where('status', '<>', 'resolved').forUpdate().execute()
}

// ---- file_validation errors from acknowledgements (file-validation-errors.ts) ----

/** The group's members among these ids (ids the carrier echoed back; others are ignored). */
export async function membersOfGroup(db: Executor, groupId: string, memberIds: readonly string[]) {
  return db.selectFrom('members').select(['id', 'kind', 'subscriber_id']).where('group_id', '=', groupId).where(sql<boolean>`id = any(${memberIds}::uuid[])`).execute()
}

/** The coverage period's plans with these external identifiers. */
export async function plansByExternalIdentifier(db: Executor, coveragePeriodId: string, externalIdentifiers: readonly string[]) {
  return db.selectFrom('plans').select(['id', 'external_identifier']).where('coverage_period_id', '=', coveragePeriodId).where(sql<boolean>`external_identifier = any(${externalIdentifiers}::text[])`).execute()
}

/** The delivery's transactions of these families, oldest first; those held back (not carried) left out. */
export async function familyTransactionsOfDelivery(db: Executor, deliveryId: string, subscriberIds: readonly string[]) {
  return db
    .selectFrom('member_transactions')
    .select(['id', 'subscriber_id'])
    .where('file_delivery_id', '=', deliveryId)
    .where(carriedTransaction)
    .where(sql<boolean>`subscriber_id = any(${subscriberIds}::uuid[])`)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

export interface AcceptedErrorsQuery {
  delivery: { id: string; kind: 'full' | 'change'; group_id: string; coverage_period_id: string }
  /** The subject (dedupe key's fifth part) of errors raised from acknowledgements. */
  subject: string
  /** Dedupe keys the acknowledgement raised again: kept open. */
  keptDedupeKeys: readonly string[]
  /** Members the acknowledgement still has a finding for: their errors are kept open. */
  stillFound: readonly string[]
  /** Whether errors about no member are resolved (the acknowledgement has no such finding). */
  memberless: boolean
}

/**
 * The unresolved errors acknowledgements raised for deliveries of the coverage period sent no
 * later than this one (the delivery is the dedupe key's sixth part), about members the delivery
 * carried (every member for a full file, the families of its transactions for a change file, and
 * in both never a member the pre-send check held back from it) and not still found, or about no member when
 * `memberless`: locked, in id order.
 */
export async function lockAcceptedErrors(tx: Executor, q: AcceptedErrorsQuery): Promise<ErrorRow[]> {
  const { delivery } = q
  // Members the pre-send check held back from this delivery did not travel in it, whatever its
  // kind: each held-back member has its row, and a held-back subscriber holds back its whole
  // family (its dependents get rows too; matching the subscriber's row does not rely on that).
  const notHeldBack = sql<boolean>`not exists (
      select 1 from held_back_members h, members m
       where h.file_delivery_id = ${delivery.id} and m.id = e.member_id
         and h.member_id in (m.id, coalesce(m.subscriber_id, m.id)))`
  // A change delivery carried the families of its transactions, except those it held back whole
  // (their transactions ended in 'errors', never submitted, but stay linked to it).
  const carried =
    delivery.kind === 'full'
      ? notHeldBack
      : sql<boolean>`e.member_id in (
          select m.id from members m
           where m.group_id = ${delivery.group_id}
             and coalesce(m.subscriber_id, m.id) in (
               select t.subscriber_id from member_transactions t
                where t.file_delivery_id = ${delivery.id} and not (t.status = 'errors' and t.submitted_at is null)))
          and ${notHeldBack}`
  return tx
    .selectFrom('errors as e')
    .selectAll('e')
    .where('e.coverage_period_id', '=', delivery.coverage_period_id)
    .where('e.source', '=', 'file_validation')
    .where('e.status', '<>', 'resolved')
    .where(sql<boolean>`split_part(e.dedupe_key, ':', 5) = ${q.subject}`)
    .where(sql<boolean>`not (e.dedupe_key = any(${q.keptDedupeKeys}::text[]))`)
    .where(
      sql<boolean>`exists (
        select 1 from file_deliveries d, file_deliveries this
         where this.id = ${delivery.id} and d.coverage_period_id = this.coverage_period_id
           and d.id::text = split_part(e.dedupe_key, ':', 6)
           and (coalesce(d.sent_at, d.created_at), d.id) <= (coalesce(this.sent_at, this.created_at), this.id))`,
    )
    .where(
      sql<boolean>`((e.member_id is null and ${q.memberless}) or (e.member_id is not null and not (e.member_id = any(${q.stillFound}::uuid[])) and ${carried}))`,
    )
    .orderBy('e.id')
    .forUpdate()
    .execute()
}
