import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import type { CarrierRecord } from './carrier-view.js'

/**
 * The carrier's view, stored: what each carrier was last told about each member (carrier_views),
 * and what a delivery will tell it, staged between its build and its send (carrier_view_batches,
 * see carrier-view-staging.ts). Every function takes the executor (the caller's transaction) first.
 */

/** What the carrier was last told about the members of these families, on this connection. */
export async function toldViews(tx: Executor, coveragePeriodId: string, subscriberIds: readonly string[]): Promise<Map<string, { records: CarrierRecord[]; digest: string }>> {
  const rows = await sql<{ member_id: string; records: string; member_digest: string }>`
    SELECT member_id, records, member_digest FROM carrier_views
     WHERE coverage_period_id = ${coveragePeriodId} AND subscriber_id = ANY(${[...subscriberIds]}::uuid[])`.execute(tx)
  return new Map(rows.rows.map((row) => [row.member_id, { records: JSON.parse(row.records) as CarrierRecord[], digest: row.member_digest }]))
}

/** One staged document of a delivery's views (JSON text, see StagedViews). */
export async function insertStagedViews(db: Executor, deliveryId: string, seq: number, views: string): Promise<void> {
  await db.insertInto('carrier_view_batches').values({ file_delivery_id: deliveryId, seq, views }).execute()
}

/** Whether the delivery still has views the carrier's view has not taken. */
export async function hasStagedViews(db: Executor, deliveryId: string): Promise<boolean> {
  const row = await db.selectFrom('carrier_view_batches').select('seq').where('file_delivery_id', '=', deliveryId).limit(1).executeTakeFirst()
  return row !== undefined
}

/** The staged views of a delivery as rows (member_id, subscriber_id, records, member_digest), for SQL that takes them. */
const stagedViewRows = (deliveryId: string) => sql`
  SELECT v.m AS member_id, v.s AS subscriber_id, v.r AS records, v.d AS member_digest
    FROM carrier_view_batches b
   CROSS JOIN LATERAL json_to_recordset(b.views::json) AS v(m uuid, s uuid, r text, d text)
   WHERE b.file_delivery_id = ${deliveryId}`

/** Forgets what a delivery staged: taken, or never to be. */
export async function dropStagedViews(db: Executor, deliveryId: string): Promise<void> {
  await db.deleteFrom('carrier_view_batches').where('file_delivery_id', '=', deliveryId).execute()
}

/**
 * The carrier now holds what the delivery told it: its views replace the stored ones (a full file
 * replaces them all). Done once: the delivery's staged views are removed as they are taken.
 */
export async function takeViews(tx: Executor, delivery: { id: string; kind: 'full' | 'change'; channel: 'edi' | 'api'; coverage_period_id: string }): Promise<void> {
  if (!(await hasStagedViews(tx, delivery.id))) return
  const staged = stagedViewRows(delivery.id)
  if (delivery.kind === 'change' && delivery.channel === 'edi') {
    // What each member's view was before, in case the carrier's TA1 or 999 rejects the file
    // (rejected-deliveries.ts). An API submission is refused while it is sent, never afterwards.
    await sql`
      INSERT INTO carrier_view_priors (file_delivery_id, member_id, coverage_period_id, subscriber_id, records, member_digest, prior_file_delivery_id)
      SELECT ${delivery.id}, u.member_id, ${delivery.coverage_period_id}, u.subscriber_id, v.records, v.member_digest, v.file_delivery_id
        FROM (${staged}) u
        LEFT JOIN carrier_views v ON v.coverage_period_id = ${delivery.coverage_period_id} AND v.member_id = u.member_id
      ON CONFLICT DO NOTHING`.execute(tx)
  }
  if (delivery.kind === 'full') {
    await tx.deleteFrom('carrier_views').where('coverage_period_id', '=', delivery.coverage_period_id).execute()
    // A full file's coverage transmissions, in one statement from what it told (its 200,000
    // coverages need not hold the file back): every record's plan and dates.
    await sql`
      INSERT INTO coverage_transmissions
        (id, account_id, coverage_period_id, member_id, plan_id, file_delivery_id, transaction_id, maintenance, start_date, end_date, created_at)
      SELECT gen_random_uuid(), d.account_id, d.coverage_period_id, u.member_id, (r->>'planId')::uuid, d.id, NULL, 'addition',
             (r->>'startDate')::date, (r->>'endDate')::date, now()
        FROM (${staged}) u
        JOIN file_deliveries d ON d.id = ${delivery.id}
        CROSS JOIN LATERAL json_array_elements(u.records::json) r`.execute(tx)
  }
  await sql`
    INSERT INTO carrier_views (coverage_period_id, member_id, subscriber_id, records, member_digest, file_delivery_id, updated_at)
    SELECT ${delivery.coverage_period_id}, u.member_id, u.subscriber_id, u.records, u.member_digest, ${delivery.id}, now()
      FROM (${staged}) u
    ON CONFLICT (coverage_period_id, member_id) DO UPDATE
      SET records = excluded.records, member_digest = excluded.member_digest, file_delivery_id = excluded.file_delivery_id, updated_at = excluded.updated_at`.execute(tx)
  await dropStagedViews(tx, delivery.id)
}

/**
 * The carrier rejected the delivery: every member it told is back to what the carrier held
 * before it, even where a later file told the member more since (that file spoke of a state the
 * carrier never took: telling the member again is safe, leaving the view ahead is not). Where what
 * it held before came from a file rejected too, that file's own prior is taken, and so on; a
 * rejected full file (the first file of its coverage period, so no priors) leaves nothing. Answers
 * the families whose views moved.
 */
export async function rollBackViews(tx: Executor, delivery: { id: string; kind: 'full' | 'change'; coverage_period_id: string }): Promise<string[]> {
  const period = delivery.coverage_period_id
  const touched = new Set<string>()
  const stepped = new Set<string>()
  let from = [delivery.id]
  while (from.length > 0) {
    // The first round restores every member the rejected file told; later ones only members whose
    // view a rejected file still holds.
    const restored = await restorePriors(tx, period, from, stepped.size > 0)
    for (const id of from) stepped.add(id)
    for (const subscriberId of restored) touched.add(subscriberId)
    const forgotten = await sql<{ subscriber_id: string }>`
      DELETE FROM carrier_views v USING file_deliveries d
       WHERE d.id = v.file_delivery_id AND d.kind = 'full' AND d.acknowledgement_status = 'rejected' AND v.coverage_period_id = ${period}
         AND (d.id = ${delivery.id} OR v.subscriber_id = ANY(${[...touched]}::uuid[]))
      RETURNING v.subscriber_id`.execute(tx)
    for (const row of forgotten.rows) touched.add(row.subscriber_id)
    const stillRejected = await sql<{ file_delivery_id: string }>`
      SELECT DISTINCT v.file_delivery_id FROM carrier_views v JOIN file_deliveries d ON d.id = v.file_delivery_id
       WHERE v.coverage_period_id = ${period} AND v.subscriber_id = ANY(${[...touched]}::uuid[]) AND d.acknowledgement_status = 'rejected'`.execute(tx)
    // Each file is stepped back once (files told before the priors were kept have none): it ends.
    from = stillRejected.rows.map((row) => row.file_delivery_id).filter((id) => !stepped.has(id))
  }
  return [...touched]
}

/**
 * Puts back the priors the given change files kept (none for a full file), for every member they
 * told or, `onlyWhereOwned`, for the members whose view one of them still holds. Answers the
 * families concerned.
 */
async function restorePriors(tx: Executor, period: string, deliveryIds: readonly string[], onlyWhereOwned: boolean): Promise<string[]> {
  const owned = onlyWhereOwned
    ? sql`EXISTS (SELECT 1 FROM carrier_views o WHERE o.coverage_period_id = ${period} AND o.member_id = p.member_id AND o.file_delivery_id = p.file_delivery_id)`
    : sql`TRUE`
  // One prior per member: a view is held by one file, so only one of the files' priors matches it
  // (onlyWhereOwned); a single file's priors are unique by member anyway.
  const priors = sql`
    SELECT DISTINCT ON (p.member_id) p.* FROM carrier_view_priors p
     WHERE p.file_delivery_id = ANY(${[...deliveryIds]}::uuid[]) AND ${owned}
     ORDER BY p.member_id`
  const forgotten = await sql<{ subscriber_id: string }>`
    DELETE FROM carrier_views v USING (${priors}) p
     WHERE v.coverage_period_id = ${period} AND v.member_id = p.member_id AND p.records IS NULL
    RETURNING v.subscriber_id`.execute(tx)
  const restored = await sql<{ subscriber_id: string }>`
    INSERT INTO carrier_views (coverage_period_id, member_id, subscriber_id, records, member_digest, file_delivery_id, updated_at)
    SELECT ${period}::uuid, p.member_id, p.subscriber_id, p.records, p.member_digest, p.prior_file_delivery_id, now()
      FROM (${priors}) p
     WHERE p.records IS NOT NULL
    ON CONFLICT (coverage_period_id, member_id) DO UPDATE
      SET records = excluded.records, member_digest = excluded.member_digest, file_delivery_id = excluded.file_delivery_id, updated_at = excluded.updated_at
    RETURNING subscriber_id`.execute(tx)
  return [...new Set([...forgotten.rows, ...restored.rows].map((row) => row.subscriber_id))]
}

/** The carrier accepted the delivery: what the views were before it is no longer needed. */
export async function forgetPriors(tx: Executor, deliveryId: string): Promise<void> {
  await tx.deleteFrom('carrier_view_priors').where('file_delivery_id', '=', deliveryId).execute()
}

/**
 * Forgets the priors of files sent before `sentBefore` that the carrier never rejected: a carrier
 * that sends no 999 would otherwise keep a row per member of every change file for good. A 999
 * rejecting such an old file still rolls back what has priors (its members then keep the file's
 * view). Rejected files keep theirs: a later rejected file may step back through them.
 */
export async function purgeUnansweredPriors(db: Executor, sentBefore: Date): Promise<void> {
  await sql`
    DELETE FROM carrier_view_priors p USING file_deliveries d
     WHERE d.id = p.file_delivery_id AND d.sent_at < ${sentBefore} AND d.acknowledgement_status IS DISTINCT FROM 'rejected'`.execute(db)
}
