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
export async function takeViews(tx: Executor, delivery: { id: string; kind: 'full' | 'change'; coverage_period_id: string }): Promise<void> {
  if (!(await hasStagedViews(tx, delivery.id))) return
  const staged = stagedViewRows(delivery.id)
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
