import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import { uuidv7 } from '../../lib/ids.js'
import type { ErrorRow } from '../errors/errors.repo.js'

/**
 * The SQL of the check before sending (pre-send-check.ts): the members a delivery held back, the
 * errors the check raised, and the transactions of the families it held back. Every function
 * takes the executor (the build's transaction) first.
 */

/** A held_back_members row; `problems` is the member's findings as JSON. */
export interface HeldBackRow {
  member_id: string
  subscriber_id: string
  problems: string
}

export async function selectHeldBack(tx: Executor, deliveryId: string): Promise<HeldBackRow[]> {
  return tx.selectFrom('held_back_members').select(['member_id', 'subscriber_id', 'problems']).where('file_delivery_id', '=', deliveryId).execute()
}

/**
 * Forgets what an earlier attempt at building the delivery held back, while it is still unbuilt
 * (a built delivery's rows say what its file left out, and stay).
 */
export async function deleteHeldBackOfUnbuilt(tx: Executor, deliveryId: string): Promise<void> {
  await tx
    .deleteFrom('held_back_members')
    .where('file_delivery_id', '=', deliveryId)
    .where((eb) => eb.exists(eb.selectFrom('file_deliveries').select('id').where('id', '=', deliveryId).where('status', '=', 'pending').where('sha256', 'is', null)))
    .execute()
}

/** 1,000 rows a statement; a member already recorded for the delivery keeps its row. */
export async function insertHeldBack(tx: Executor, deliveryId: string, rows: readonly HeldBackRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 1000) {
    await tx
      .insertInto('held_back_members')
      .values(rows.slice(start, start + 1000).map((row) => ({ file_delivery_id: deliveryId, ...row })))
      .onConflict((oc) => oc.columns(['file_delivery_id', 'member_id']).doNothing())
      .execute()
  }
}

export interface OpenPreSendError {
  id: string
  member_id: string | null
  dedupe_key: string | null
}

/** Open file_validation errors of a coverage period whose dedupe key holds `subject` (a check's prefix). */
export async function openFileValidationErrors(tx: Executor, coveragePeriodId: string, subject: string): Promise<OpenPreSendError[]> {
  return tx
    .selectFrom('errors')
    .select(['id', 'member_id', 'dedupe_key'])
    .where('coverage_period_id', '=', coveragePeriodId)
    .where('source', '=', 'file_validation')
    .where('status', '<>', 'resolved')
    .where('dedupe_key', 'like', `%:${subject}%`)
    .execute()
}

/** The errors among `ids` still unresolved, locked, in id order. */
export async function lockUnresolvedErrors(tx: Executor, ids: readonly string[]): Promise<ErrorRow[]> {
  return tx
    .selectFrom('errors')
    .selectAll()
    .where(sql<boolean>`id = any(${ids}::uuid[])`)
    .where('status', '<>', 'resolved')
    .orderBy('id')
    .forUpdate()
    .execute()
}

/** Ends transactions in `errors` (completed now): gathering never takes them again. */
export async function markTransactionsErrors(tx: Executor, ids: readonly string[], now: Date): Promise<void> {
  await tx.updateTable('member_transactions').set({ status: 'errors', completed_at: now, updated_at: now }).where('id', 'in', ids).execute()
}

/**
 * One installation transaction per family, in `errors`, linked to the delivery and dated with it,
 * 1,000 rows a statement. Answers each family's new transaction id, in the families' order.
 */
export async function insertHeldBackInstallations(
  tx: Executor,
  delivery: { id: string; account_id: string; coverage_period_id: string; group_id: string; created_at: Date },
  subscriberIds: readonly string[],
  now: Date,
): Promise<{ id: string; subscriber_id: string }[]> {
  const rows = subscriberIds.map((subscriberId) => ({
    id: uuidv7(),
    account_id: delivery.account_id,
    coverage_period_id: delivery.coverage_period_id,
    group_id: delivery.group_id,
    subscriber_id: subscriberId,
    member_id: subscriberId,
    kind: 'installation' as const,
    status: 'errors' as const,
    // The family's latest event of the period: the change file that later carries the family names its loops by it.
    qualifying_life_event_id: sql<string | null>`(SELECT id FROM qualifying_life_events WHERE subscriber_id = ${subscriberId} AND coverage_period_id = ${delivery.coverage_period_id}
                                                   ORDER BY created_at DESC, id DESC LIMIT 1)`,
    file_delivery_id: delivery.id,
    created_at: delivery.created_at,
    submitted_at: null,
    completed_at: now,
    updated_at: now,
  }))
  for (let start = 0; start < rows.length; start += 1000) await tx.insertInto('member_transactions').values(rows.slice(start, start + 1000)).execute()
  return rows
}

/** Whether the transaction's delivery was rejected by the carrier (its views rolled back, rejected-deliveries.ts). */
const rejectedDelivery = (alias: 't' | 'c') =>
  sql<boolean>`EXISTS (SELECT 1 FROM file_deliveries d WHERE d.id = ${sql.ref(`${alias}.file_delivery_id`)} AND d.views_rolled_back_at IS NOT NULL)`

/**
 * The life events of the families' transactions that never reached the carrier through other
 * deliveries: held back (in `errors`, never submitted) or carried in a file the carrier rejected
 * (in `errors`, their delivery's views rolled back), with no transaction the carrier took after
 * them; oldest first.
 */
export async function heldBackEventRows(
  tx: Executor,
  coveragePeriodId: string,
  deliveryId: string,
  subscriberIds: readonly string[],
): Promise<{ subscriber_id: string; qualifying_life_event_id: string }[]> {
  const rows = await sql<{ subscriber_id: string; qualifying_life_event_id: string }>`
    SELECT t.subscriber_id, t.qualifying_life_event_id FROM member_transactions t
     WHERE t.coverage_period_id = ${coveragePeriodId} AND t.subscriber_id = ANY(${[...subscriberIds]}::uuid[])
       AND t.status = 'errors' AND t.qualifying_life_event_id IS NOT NULL
       AND t.file_delivery_id IS NOT NULL AND t.file_delivery_id <> ${deliveryId}
       AND (t.submitted_at IS NULL OR ${rejectedDelivery('t')})
       AND NOT EXISTS (SELECT 1 FROM member_transactions c
                        WHERE c.coverage_period_id = t.coverage_period_id AND c.subscriber_id = t.subscriber_id
                          AND c.submitted_at IS NOT NULL AND NOT ${rejectedDelivery('c')} AND (c.created_at, c.id) > (t.created_at, t.id))
     ORDER BY t.created_at, t.id`.execute(tx)
  return rows.rows
}
