import { sql } from 'kysely'
import type { Db, Executor } from '../../db/schema.js'
import { enqueueJob } from '../../jobs/outbox.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { refreshFamilyStatuses } from '../member-management/family-status.js'
import { SANDBOX_CARRIER_JOB } from '../sandbox-carriers/sandbox-carriers.jobs.js'
import { scheduleTransactionDelivery } from './carrier-delivery.jobs.js'
import { dropStagedViews, hasStagedViews, stagedViewRows } from './carrier-view-staging.js'

/**
 * The carrier now holds what the delivery told it: its views replace the stored ones (a full file
 * replaces them all). Done once: the delivery's updates are removed as they are taken.
 */
async function takeViews(tx: Executor, delivery: { id: string; kind: 'full' | 'change'; coverage_period_id: string }): Promise<void> {
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

/**
 * What follows a delivery the carrier received, in one transaction: the carrier's views take what
 * it told, its transactions become submitted (for a full delivery, each enrolled family's `installation` transaction is written
 * now, submitted), the families' statuses follow, and a sandbox carrier is asked to act on what
 * it received. A job of its own, queued with the delivery's `sent`: for an installation this is
 * tens of thousands of rows, which need not hold the file back. Run twice, it changes nothing.
 */
export async function settleSentDelivery(deps: { db: Db; carriers: CarrierCatalog; sandboxDelayMs: number }, deliveryId: string): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const delivery = await tx.selectFrom('file_deliveries').selectAll().where('id', '=', deliveryId).forUpdate().executeTakeFirst()
    if (!delivery || delivery.status !== 'sent') return
    const now = new Date()
    const submittedAt = delivery.sent_at ?? now
    await takeViews(tx, delivery)
    if (delivery.kind === 'full') {
      // One statement for the whole group: 50,000 families must not cost 50,000 round trips.
      await sql`
        INSERT INTO member_transactions
          (id, account_id, coverage_period_id, group_id, subscriber_id, member_id, kind, status, file_delivery_id, created_at, submitted_at, updated_at)
        SELECT gen_random_uuid(), m.account_id, ${delivery.coverage_period_id}, m.group_id, m.id, m.id, 'installation', 'submitted', ${delivery.id},
               ${delivery.created_at}, ${submittedAt}, ${now}
          FROM members m
         WHERE m.group_id = ${delivery.group_id} AND m.kind = 'subscriber'
           AND EXISTS (SELECT 1 FROM carrier_views v WHERE v.coverage_period_id = ${delivery.coverage_period_id} AND v.member_id = m.id)
           AND NOT EXISTS (SELECT 1 FROM member_transactions t WHERE t.file_delivery_id = ${delivery.id} AND t.subscriber_id = m.id)`.execute(tx)
    } else {
      await tx
        .updateTable('member_transactions')
        .set({ status: 'submitted', submitted_at: submittedAt, updated_at: now })
        .where('file_delivery_id', '=', delivery.id)
        .where('status', '=', 'pending')
        .execute()
    }
    // Changes held back while this file was on its way (and what a full file could not say) go now.
    await scheduleTransactionDelivery(tx, delivery.coverage_period_id, now, 0)
    await refreshFamilyStatuses(tx, { fileDeliveryId: delivery.id }, now)
    if (deps.carriers.find(delivery.carrier_name)?.sandbox) {
      // A sandbox carrier reads what it was sent: it installs a group sent in full, and answers changes with a census.
      const action = delivery.kind === 'full' ? ('install' as const) : ('census' as const)
      const payload = { action, coverage_period_id: delivery.coverage_period_id, file_delivery_id: delivery.id }
      await enqueueJob(tx, SANDBOX_CARRIER_JOB, payload, { runAt: new Date(now.getTime() + deps.sandboxDelayMs) })
    }
  })
}
