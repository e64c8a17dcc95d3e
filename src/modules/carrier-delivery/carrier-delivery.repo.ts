import { sql, type Selectable } from 'kysely'
import type { AcknowledgementStatus, Executor, FileDeliveriesTable } from '../../db/schema.js'
import { uuidv7 } from '../../lib/ids.js'
import type { WrittenCoverage } from './edi-834-members.js'

/**
 * The carrier delivery's writes and the reads its steps need: opening deliveries, gathering
 * transactions into them, recording what a built file carried, and marking deliveries sent,
 * failed or skipped. Every function takes the executor (the caller's transaction) first. The
 * reads behind the API are in file-deliveries.repo.ts; the carrier's view in carrier-views.repo.ts;
 * the check before sending in held-back-members.repo.ts.
 */

export type FileDeliveryRow = Selectable<FileDeliveriesTable>

// ---- Opening and gathering ----

/** Whether a job of this name is pending for the coverage period (its payload's coverage_period_id). */
export async function pendingJobForPeriod(tx: Executor, jobName: string, coveragePeriodId: string): Promise<boolean> {
  const waiting = await tx
    .selectFrom('jobs')
    .select('id')
    .where('name', '=', jobName)
    .where('status', '=', 'pending')
    .where(sql<boolean>`payload->>'coverage_period_id' = ${coveragePeriodId}`)
    .limit(1)
    .executeTakeFirst()
  return waiting !== undefined
}

/** ISA13 for the next file to this carrier: per carrier, increasing, wrapping after 999,999,999. */
export async function nextControlNumber(tx: Executor, carrierName: string): Promise<number> {
  const row = await sql<{ last_value: number }>`
    INSERT INTO carrier_control_numbers (carrier_name, last_value) VALUES (${carrierName}, 1)
    ON CONFLICT (carrier_name) DO UPDATE SET last_value = CASE WHEN carrier_control_numbers.last_value >= 999999999 THEN 1
                                                                ELSE carrier_control_numbers.last_value + 1 END
    RETURNING last_value`.execute(tx)
  return row.rows[0]!.last_value
}

/** A delivery as opened: its table's identifying columns (so the two cannot drift apart), and when. */
export type NewDelivery = Pick<
  Selectable<FileDeliveriesTable>,
  'id' | 'account_id' | 'coverage_period_id' | 'group_id' | 'carrier_name' | 'kind' | 'channel' | 'file_name' | 'interchange_control_number'
> & { now: Date }

export async function insertDelivery(tx: Executor, d: NewDelivery): Promise<void> {
  const { now, ...columns } = d
  await tx
    .insertInto('file_deliveries')
    .values({ ...columns, sha256: null, destination: null, last_error: null, created_at: now, sent_at: null, updated_at: now })
    .execute()
}

/**
 * The coverage period's row, locked: the gathering's lock, so two gatherings of one period (two
 * jobs due at once) run one after the other, and the second sees the first's delivery.
 */
export async function lockCoveragePeriod(tx: Executor, coveragePeriodId: string) {
  return tx.selectFrom('coverage_periods').selectAll().where('id', '=', coveragePeriodId).forUpdate().executeTakeFirst()
}

/**
 * Whether a file of the period is on its way: being built, sent, or sent but its views not yet
 * taken (carrier_view_batches still holds them).
 */
export async function deliveryOnItsWay(tx: Executor, coveragePeriodId: string): Promise<boolean> {
  const onItsWay = await sql<{ id: string }>`
    SELECT d.id FROM file_deliveries d
     WHERE d.coverage_period_id = ${coveragePeriodId}
       AND (d.status = 'pending' OR (d.status = 'sent' AND EXISTS (SELECT 1 FROM carrier_view_batches b WHERE b.file_delivery_id = d.id)))
     LIMIT 1`.execute(tx)
  return onItsWay.rows.length > 0
}

/** The period's pending transactions in no delivery yet, locked; rows another worker holds are skipped (SKIP LOCKED). */
export async function lockUndeliveredTransactions(tx: Executor, coveragePeriodId: string): Promise<string[]> {
  const pending = await tx
    .selectFrom('member_transactions')
    .select('id')
    .where('coverage_period_id', '=', coveragePeriodId)
    .where('status', '=', 'pending')
    .where('file_delivery_id', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .skipLocked()
    .execute()
  return pending.map((row) => row.id)
}

/** Puts the transactions in the delivery and counts them on it. */
export async function assignTransactions(tx: Executor, deliveryId: string, ids: readonly string[], now: Date): Promise<void> {
  for (let start = 0; start < ids.length; start += 1000) {
    await tx.updateTable('member_transactions').set({ file_delivery_id: deliveryId, updated_at: now }).where('id', 'in', ids.slice(start, start + 1000)).execute()
  }
  await tx.updateTable('file_deliveries').set({ transaction_count: ids.length }).where('id', '=', deliveryId).execute()
}

// ---- Building ----

/** The delivery, locked for its build. */
export async function lockDelivery(tx: Executor, deliveryId: string): Promise<FileDeliveryRow | undefined> {
  return tx.selectFrom('file_deliveries').selectAll().where('id', '=', deliveryId).forUpdate().executeTakeFirst()
}

/** What a file's envelope and header name: the coverage period, its group and the group's first two producers. */
export async function loadDeliveryContext(tx: Executor, coveragePeriodId: string) {
  const cp = await tx.selectFrom('coverage_periods').selectAll().where('id', '=', coveragePeriodId).executeTakeFirstOrThrow()
  const group = await tx.selectFrom('groups').selectAll().where('id', '=', cp.group_id).executeTakeFirstOrThrow()
  const producers = await tx.selectFrom('producers_of_record').selectAll().where('group_id', '=', group.id).orderBy('position').limit(2).execute()
  return { cp, group, producers }
}

/** A family in a change delivery: its transactions and the life events they name, oldest first. */
export interface ChangedFamily {
  subscriber_id: string
  transaction_ids: string[]
  event_ids: string[]
}

/**
 * A change delivery's families, `pageSize` at a time, in the order of their first transaction
 * (which is the order of the file's loops). Read through a cursor in the build's transaction: the
 * families stay in the database until their page is composed, so what the build holds does not
 * grow with the number of changed families (10,000 of them at 200,000 families).
 */
export async function* changedFamilyPages(tx: Executor, deliveryId: string, pageSize: number): AsyncGenerator<ChangedFamily[]> {
  await sql`
    DECLARE changed_families NO SCROLL CURSOR FOR
    SELECT subscriber_id,
           array_agg(id::text ORDER BY created_at, id) AS transaction_ids,
           coalesce(array_agg(qualifying_life_event_id::text ORDER BY created_at, id) FILTER (WHERE qualifying_life_event_id IS NOT NULL), '{}') AS event_ids
      FROM member_transactions
     WHERE file_delivery_id = ${deliveryId}
     GROUP BY subscriber_id
     ORDER BY min(created_at), (array_agg(id ORDER BY created_at, id))[1]`.execute(tx)
  for (;;) {
    const { rows } = await sql<ChangedFamily>`FETCH ${sql.raw(String(Math.floor(pageSize)))} FROM changed_families`.execute(tx)
    if (rows.length > 0) yield rows
    if (rows.length < pageSize) break
  }
  // A build that fails part-way leaves the cursor to its transaction's rollback.
  await sql`CLOSE changed_families`.execute(tx)
}

/** One content chunk of a delivery, sealed. */
export async function insertChunk(tx: Executor, deliveryId: string, seq: number, keyId: string, data: Buffer): Promise<void> {
  await tx.insertInto('file_delivery_chunks').values({ file_delivery_id: deliveryId, seq, key_id: keyId, data }).execute()
}

/** Coverage transmissions of a delivery, one statement per batch: columns as arrays, a few parameters instead of eleven per row. */
export function insertCoverageTransmissions(
  tx: Executor,
  delivery: { id: string; account_id: string; coverage_period_id: string },
  batch: readonly WrittenCoverage[],
  now: Date,
): Promise<unknown> {
  return sql`
    INSERT INTO coverage_transmissions
      (id, member_id, plan_id, transaction_id, maintenance, start_date, end_date, account_id, coverage_period_id, file_delivery_id, created_at)
    SELECT t.*, ${delivery.account_id}, ${delivery.coverage_period_id}, ${delivery.id}, ${now}
      FROM unnest(${batch.map(() => uuidv7())}::uuid[], ${batch.map((w) => w.memberId)}::uuid[], ${batch.map((w) => w.planId)}::uuid[], ${batch.map((w) => w.transactionId)}::uuid[],
                  ${batch.map((w) => w.maintenance)}::text[], ${batch.map((w) => w.startDate)}::date[], ${batch.map((w) => w.endDate)}::date[]) AS t`.execute(tx)
}

/** Pending transactions for the families a full file could not tell everything about. */
export async function insertFollowUps(
  tx: Executor,
  delivery: { account_id: string; coverage_period_id: string; group_id: string },
  families: readonly { subscriberId: string; latestEventId: string | null }[],
  now: Date,
): Promise<void> {
  for (let start = 0; start < families.length; start += 1000) {
    await tx
      .insertInto('member_transactions')
      .values(
        families.slice(start, start + 1000).map((family) => ({
          id: uuidv7(),
          account_id: delivery.account_id,
          coverage_period_id: delivery.coverage_period_id,
          group_id: delivery.group_id,
          subscriber_id: family.subscriberId,
          member_id: family.subscriberId,
          kind: 'qualifying_life_event' as const,
          qualifying_life_event_id: family.latestEventId,
          file_delivery_id: null,
          created_at: now,
          submitted_at: null,
          completed_at: null,
          updated_at: now,
        })),
      )
      .execute()
  }
}

/**
 * The delivery is built: its size, checksum and counts. A full file carries one installation
 * transaction per family (written once it is sent); a change file's count loses the transactions
 * of families held back whole.
 */
export async function markBuilt(
  tx: Executor,
  deliveryId: string,
  built: { bytes: number; sha256: string; memberCount: number; transactionCount: number | null; heldTransactions: number },
  now: Date,
): Promise<void> {
  await tx
    .updateTable('file_deliveries')
    .set({
      content_as_of: sql<Date>`transaction_timestamp()`,
      // The build's repeatable-read snapshot: its settle finds the rollbacks it did not see.
      content_snapshot: sql<string>`pg_current_snapshot()::text`,
      byte_size: built.bytes,
      sha256: built.sha256,
      member_count: built.memberCount,
      ...(built.transactionCount !== null
        ? { transaction_count: built.transactionCount }
        : built.heldTransactions > 0
          ? { transaction_count: sql<number>`transaction_count - ${built.heldTransactions}` }
          : {}),
      updated_at: now,
    })
    .where('id', '=', deliveryId)
    .execute()
}

/** A delivery with nothing to tell: skipped, and its pending transactions in sync. Returns its coverage period. */
export async function markSkipped(tx: Executor, deliveryId: string, now: Date): Promise<string> {
  await tx.updateTable('file_deliveries').set({ status: 'skipped', content_as_of: now, member_count: 0, updated_at: now }).where('id', '=', deliveryId).execute()
  await tx
    .updateTable('member_transactions')
    .set({ status: 'synced', submitted_at: now, completed_at: now, updated_at: now })
    .where('file_delivery_id', '=', deliveryId)
    // Those of families held back by the check before sending stay in errors.
    .where('status', '=', 'pending')
    .execute()
  const delivery = await tx.selectFrom('file_deliveries').select('coverage_period_id').where('id', '=', deliveryId).executeTakeFirstOrThrow()
  return delivery.coverage_period_id
}

/** A delivery whose file cannot be built, with the reason. Returns its coverage period (undefined: no such delivery). */
export async function markBuildFailed(tx: Executor, deliveryId: string, reason: string, now: Date): Promise<string | undefined> {
  const failed = await tx
    .updateTable('file_deliveries')
    .set({ status: 'failed', last_error: reason.slice(0, 1000), updated_at: now })
    .where('id', '=', deliveryId)
    .returning('coverage_period_id')
    .executeTakeFirst()
  return failed?.coverage_period_id
}

// ---- Sending ----

export async function findDelivery(db: Executor, deliveryId: string): Promise<FileDeliveryRow | undefined> {
  return db.selectFrom('file_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirst()
}

/** A failed attempt: counted, with its message; `final` fails the delivery, otherwise it stays pending for the next. */
export async function recordSendFailure(tx: Executor, deliveryId: string, message: string, final: boolean, now: Date): Promise<void> {
  await tx
    .updateTable('file_deliveries')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: message.slice(0, 1000), status: final ? 'failed' : 'pending', updated_at: now }))
    .where('id', '=', deliveryId)
    .execute()
}

/** A change delivery that never reached the carrier gives its pending transactions back, for the next change file. */
export async function releaseTransactions(tx: Executor, deliveryId: string, now: Date): Promise<void> {
  await tx.updateTable('member_transactions').set({ file_delivery_id: null, updated_at: now }).where('file_delivery_id', '=', deliveryId).where('status', '=', 'pending').execute()
}

/** Sent: an 834 file now awaits the carrier's TA1 and 999 (issue 14); an API submission gets none. */
export async function markSent(tx: Executor, delivery: { id: string; channel: 'edi' | 'api' }, destination: string, now: Date): Promise<void> {
  await tx
    .updateTable('file_deliveries')
    .set((eb) => ({
      status: 'sent',
      sent_at: now,
      destination,
      attempts: eb('attempts', '+', 1),
      last_error: null,
      updated_at: now,
      // A status already there (an answer matched before this) stands: only a delivery without
      // one starts awaiting its acknowledgements.
      acknowledgement_status: delivery.channel === 'edi' ? sql<AcknowledgementStatus>`coalesce(acknowledgement_status, 'awaited')` : null,
    }))
    .where('id', '=', delivery.id)
    .execute()
}

// ---- Settling what was sent ----

/**
 * Each enrolled family's `installation` transaction of a full delivery, submitted, in one
 * statement for the whole group: 50,000 families must not cost 50,000 round trips.
 *
 * The families that already have one (held back by the check before sending, or a settling run
 * twice) are read once, before the insert (`already`, materialized), not looked up in the table the
 * statement writes to: that anti-join, planned as a nested loop when member_transactions looked
 * empty, rescanned the rows inserted so far for every family (41 s at 50,000 families, over ten
 * minutes at 200,000; bench/RESULTS.md, issue 16).
 */
export async function insertInstallationTransactions(tx: Executor, delivery: FileDeliveryRow, submittedAt: Date, now: Date): Promise<void> {
  await sql`
    WITH already AS MATERIALIZED (SELECT subscriber_id FROM member_transactions WHERE file_delivery_id = ${delivery.id})
    INSERT INTO member_transactions
      (id, account_id, coverage_period_id, group_id, subscriber_id, member_id, kind, status, file_delivery_id, created_at, submitted_at, updated_at)
    SELECT gen_random_uuid(), m.account_id, ${delivery.coverage_period_id}, m.group_id, m.id, m.id, 'installation', 'submitted', ${delivery.id},
           ${delivery.created_at}, ${submittedAt}, ${now}
      FROM members m
     WHERE m.group_id = ${delivery.group_id} AND m.kind = 'subscriber'
       AND EXISTS (SELECT 1 FROM carrier_views v WHERE v.coverage_period_id = ${delivery.coverage_period_id} AND v.member_id = m.id)
       AND NOT EXISTS (SELECT 1 FROM already a WHERE a.subscriber_id = m.id)`.execute(tx)
}

/** A change delivery's pending transactions become submitted. */
export async function markTransactionsSubmitted(tx: Executor, deliveryId: string, submittedAt: Date, now: Date): Promise<void> {
  await tx
    .updateTable('member_transactions')
    .set({ status: 'submitted', submitted_at: submittedAt, updated_at: now })
    .where('file_delivery_id', '=', deliveryId)
    .where('status', '=', 'pending')
    .execute()
}

// ---- Rejected deliveries (rejected-deliveries.ts) ----

/**
 * Takes the coverage period's carrier-view lock, to the end of the transaction: a rollback, a
 * settle and a resend of one period run one after the other, so none reads views another is
 * changing. An advisory lock: the coverage period's row stays free for everything else.
 */
export async function lockCarrierViews(tx: Executor, coveragePeriodId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`carrier-views:${coveragePeriodId}`}, 0))`.execute(tx)
}

/**
 * Change files rejected and rolled back by a transaction the delivery's build could not see: the
 * build told their members from views the carrier never took. None for a delivery built before
 * migration 0027 (no snapshot kept).
 */
export async function rollbacksUnseenByBuild(tx: Executor, delivery: { id: string; coverage_period_id: string }): Promise<{ id: string; kind: 'full' | 'change' }[]> {
  const rows = await sql<{ id: string; kind: 'full' | 'change' }>`
    SELECT r.id, r.kind FROM file_deliveries r JOIN file_deliveries b ON b.id = ${delivery.id}
     WHERE r.coverage_period_id = ${delivery.coverage_period_id} AND r.id <> b.id
       AND r.views_rolled_back_xid IS NOT NULL AND b.content_snapshot IS NOT NULL
       AND NOT pg_visible_in_snapshot(r.views_rolled_back_xid::xid8, b.content_snapshot::pg_snapshot)`.execute(tx)
  return rows.rows
}

/** Records that the delivery's views were rolled back; false when they already were. */
export async function markViewsRolledBack(tx: Executor, deliveryId: string, now: Date): Promise<boolean> {
  const row = await tx
    .updateTable('file_deliveries')
    .set({ views_rolled_back_at: now, views_rolled_back_xid: sql<string>`pg_current_xact_id()::text`, updated_at: now })
    .where('id', '=', deliveryId)
    .where('views_rolled_back_at', 'is', null)
    .returning('id')
    .executeTakeFirst()
  return row !== undefined
}

/** The carrier rejected the delivery: its transactions the carrier was sent end in `errors`. */
export async function markTransactionsRejected(tx: Executor, deliveryId: string, now: Date): Promise<void> {
  await tx
    .updateTable('member_transactions')
    .set({ status: 'errors', completed_at: now, updated_at: now })
    .where('file_delivery_id', '=', deliveryId)
    .where('status', '=', 'submitted')
    .execute()
}

/**
 * The rejected change delivery's transactions written again as pending, in their order (same
 * family, member, kind and life event, so the next change file names its loops as this one did).
 * Only those the file carried: a family the check held back travels with its next change.
 * Answers how many.
 */
export async function copyRejectedTransactions(tx: Executor, deliveryId: string, now: Date): Promise<number> {
  const carried = await tx
    .selectFrom('member_transactions')
    .select(['account_id', 'coverage_period_id', 'group_id', 'subscriber_id', 'member_id', 'kind', 'qualifying_life_event_id'])
    .where('file_delivery_id', '=', deliveryId)
    .where('status', '=', 'errors')
    .where('submitted_at', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  for (let start = 0; start < carried.length; start += 1000) {
    const values = carried.slice(start, start + 1000).map((row) => ({
      ...row,
      id: uuidv7(),
      file_delivery_id: null,
      created_at: now,
      submitted_at: null,
      completed_at: null,
      updated_at: now,
    }))
    await tx.insertInto('member_transactions').values(values).execute()
  }
  return carried.length
}

/** The delivery's changes were sent again: once only. */
export async function markResent(tx: Executor, deliveryId: string, now: Date): Promise<void> {
  await tx.updateTable('file_deliveries').set({ resent_at: now, updated_at: now }).where('id', '=', deliveryId).execute()
}
