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
 * it held before came from a file rejected too, that file's own prior is taken, and so on (see
 * stepBack). A rejected full file (the first file of its coverage period, so no priors) leaves
 * nothing of what it told. A change file that kept no priors (sent before migration 0027, or
 * purged a month after it was sent) has nothing to put back: its resend sends a full file.
 */
export async function rollBackViews(tx: Executor, delivery: { id: string; kind: 'full' | 'change'; coverage_period_id: string }): Promise<void> {
  const period = delivery.coverage_period_id
  const touched =
    delivery.kind === 'full' ? await forgetViewsOf(tx, period, delivery.id) : await restorePriors(tx, period, [delivery.id], { kind: 'every member told' })
  await stepBack(tx, period, new Set(touched), new Set([delivery.id]))
}

/**
 * A delivery whose build could not see these rejected files' rollbacks (rollbacksUnseenByBuild)
 * told their members from views the carrier never took, and its settle just took its views over
 * the rollback: those members go back to what the carrier held before the rejected files (a
 * rejected full file: to nothing), so the next file tells them again.
 */
export async function rollBackOverStaleBuild(
  tx: Executor,
  delivery: { id: string; coverage_period_id: string },
  rejected: readonly { id: string; kind: 'full' | 'change' }[],
): Promise<void> {
  const period = delivery.coverage_period_id
  const touched = new Set<string>()
  const changes = rejected.filter((r) => r.kind === 'change').map((r) => r.id)
  if (changes.length > 0) for (const id of await restorePriors(tx, period, changes, { kind: 'owned by', deliveryId: delivery.id })) touched.add(id)
  if (rejected.some((r) => r.kind === 'full')) for (const id of await forgetViewsOf(tx, period, delivery.id)) touched.add(id)
  await stepBack(tx, period, touched, new Set(rejected.map((r) => r.id)))
}

/**
 * While a view of these families is held by a rolled-back file not stepped back yet, that file's
 * priors are put back for the members whose view it holds (a rejected full file's views are
 * forgotten). Each file is stepped back once, and priors always name an earlier file: it ends.
 */
async function stepBack(tx: Executor, period: string, touched: Set<string>, stepped: Set<string>): Promise<void> {
  for (;;) {
    if (touched.size === 0) return
    const owners = await sql<{ id: string; kind: 'full' | 'change' }>`
      SELECT DISTINCT d.id, d.kind FROM carrier_views v JOIN file_deliveries d ON d.id = v.file_delivery_id
       WHERE v.coverage_period_id = ${period} AND v.subscriber_id = ANY(${[...touched]}::uuid[]) AND d.views_rolled_back_at IS NOT NULL`.execute(tx)
    const next = owners.rows.filter((owner) => !stepped.has(owner.id))
    if (next.length === 0) return
    for (const owner of next) stepped.add(owner.id)
    const changes = next.filter((owner) => owner.kind === 'change').map((owner) => owner.id)
    if (changes.length > 0) for (const id of await restorePriors(tx, period, changes, { kind: 'owned' })) touched.add(id)
    for (const owner of next.filter((o) => o.kind === 'full')) for (const id of await forgetViewsOf(tx, period, owner.id)) touched.add(id)
  }
}

/** Forgets the views a file holds (a rejected full file's); answers their families. */
async function forgetViewsOf(tx: Executor, period: string, deliveryId: string): Promise<string[]> {
  const forgotten = await sql<{ subscriber_id: string }>`
    DELETE FROM carrier_views WHERE coverage_period_id = ${period} AND file_delivery_id = ${deliveryId} RETURNING subscriber_id`.execute(tx)
  return [...new Set(forgotten.rows.map((row) => row.subscriber_id))]
}

/** Whether the change file kept its members' views from before it (see rollBackViews). */
export async function hasPriors(tx: Executor, deliveryId: string): Promise<boolean> {
  const row = await tx.selectFrom('carrier_view_priors').select('member_id').where('file_delivery_id', '=', deliveryId).limit(1).executeTakeFirst()
  return row !== undefined
}

/**
 * Which members' priors are put back: every member the file told (its rejection), those whose
 * view one of the files still holds (stepping back), or those whose view a later file took over
 * the rollback (rollBackOverStaleBuild).
 */
type PriorsFor = { kind: 'every member told' } | { kind: 'owned' } | { kind: 'owned by'; deliveryId: string }

/** Puts back the priors the given change files kept, for the members `which` says. Answers the families concerned. */
async function restorePriors(tx: Executor, period: string, deliveryIds: readonly string[], which: PriorsFor): Promise<string[]> {
  const owner = which.kind === 'owned' ? sql`p.file_delivery_id` : which.kind === 'owned by' ? sql`${which.deliveryId}::uuid` : null
  const held = owner
    ? sql`EXISTS (SELECT 1 FROM carrier_views o WHERE o.coverage_period_id = ${period} AND o.member_id = p.member_id AND o.file_delivery_id = ${owner})`
    : sql`TRUE`
  // One prior per member, the earliest file's: what the carrier held before all of them.
  const priors = sql`
    SELECT DISTINCT ON (p.member_id) p.* FROM carrier_view_priors p JOIN file_deliveries d ON d.id = p.file_delivery_id
     WHERE p.file_delivery_id = ANY(${[...deliveryIds]}::uuid[]) AND ${held}
     ORDER BY p.member_id, d.sent_at, d.id`
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

/**
 * Forgets the priors of files sent before `sentBefore` that the carrier never rejected. They are
 * kept that long whatever the carrier answered (a rejecting 999 may follow an accepting one, and
 * the latest wins), but not for good: a carrier that sends no 999 would otherwise keep a row per
 * member of every change file. A file rejected after that has nothing to roll back (its resend
 * sends a full file). Rejected files keep theirs: a later rejected file
 * may step back through them.
 */
export async function purgeUnansweredPriors(db: Executor, sentBefore: Date): Promise<void> {
  await sql`
    DELETE FROM carrier_view_priors p USING file_deliveries d
     WHERE d.id = p.file_delivery_id AND d.sent_at < ${sentBefore} AND d.acknowledgement_status IS DISTINCT FROM 'rejected'`.execute(db)
}
