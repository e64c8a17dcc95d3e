import { sql, type Selectable, type Transaction } from 'kysely'
import type { Database, Db, FileDeliveriesTable } from '../../db/schema.js'
import { PRODUCT_LINES_ON_834 } from '../edi-834/edi-834.codes.js'
import { enqueueJob } from '../../jobs/outbox.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { refreshFamilyStatuses } from '../member-management/family-status.js'
import { SANDBOX_CARRIER_JOB } from './carrier-jobs.js'

/**
 * A full file's coverage transmissions, in one statement: the same coverages the file was built
 * from (the latest of each member in each plan, as of its build; for an 834 only the lines it can
 * carry), 200,000 rows for a large group, written here so they do not hold the file back.
 */
async function recordFullTransmissions(tx: Transaction<Database>, delivery: Selectable<FileDeliveriesTable>, now: Date): Promise<void> {
  const lines = delivery.channel === 'edi' ? [...PRODUCT_LINES_ON_834] : null
  await sql`
    INSERT INTO coverage_transmissions
      (id, account_id, coverage_period_id, member_id, plan_id, file_delivery_id, transaction_id, maintenance, start_date, end_date, created_at)
    SELECT gen_random_uuid(), ${delivery.account_id}, ${delivery.coverage_period_id}, x.member_id, x.plan_id, ${delivery.id}, NULL, 'addition',
           x.start_date, x.end_date, ${now}
      FROM (SELECT DISTINCT ON (c.member_id, c.plan_id) c.member_id, c.plan_id, c.start_date, c.end_date
              FROM coverages c
              JOIN plan_elections pe ON pe.id = c.plan_election_id
              JOIN qualifying_life_events q ON q.id = pe.qualifying_life_event_id
              JOIN plans p ON p.id = c.plan_id
             WHERE q.coverage_period_id = ${delivery.coverage_period_id}
               AND q.created_at <= ${delivery.content_as_of ?? delivery.created_at}
               AND (${lines}::text[] IS NULL OR p.product_line = ANY(${lines}::text[]))
             ORDER BY c.member_id, c.plan_id, q.created_at DESC, q.id DESC) x
     WHERE NOT EXISTS (SELECT 1 FROM coverage_transmissions t WHERE t.file_delivery_id = ${delivery.id})`.execute(tx)
}

/**
 * What follows a delivery the carrier received, in one transaction: a full file's coverage
 * transmissions are recorded, its transactions become submitted (for a full delivery, each enrolled family's `installation` transaction is written
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
    if (delivery.kind === 'full') {
      // One statement for the whole group: 50,000 families must not cost 50,000 round trips.
      await sql`
        INSERT INTO member_transactions
          (id, account_id, coverage_period_id, group_id, subscriber_id, member_id, kind, status, file_delivery_id, created_at, submitted_at, updated_at)
        SELECT gen_random_uuid(), m.account_id, ${delivery.coverage_period_id}, m.group_id, m.id, m.id, 'installation', 'submitted', ${delivery.id},
               ${delivery.created_at}, ${submittedAt}, ${now}
          FROM members m
         WHERE m.group_id = ${delivery.group_id} AND m.kind = 'subscriber'
           AND EXISTS (SELECT 1 FROM qualifying_life_events q WHERE q.subscriber_id = m.id AND q.coverage_period_id = ${delivery.coverage_period_id})
           AND NOT EXISTS (SELECT 1 FROM member_transactions t WHERE t.file_delivery_id = ${delivery.id} AND t.subscriber_id = m.id)`.execute(tx)
    } else {
      await tx
        .updateTable('member_transactions')
        .set({ status: 'submitted', submitted_at: submittedAt, updated_at: now })
        .where('file_delivery_id', '=', delivery.id)
        .where('status', '=', 'pending')
        .execute()
    }
    if (delivery.kind === 'full') await recordFullTransmissions(tx, delivery, now)
    await refreshFamilyStatuses(tx, { fileDeliveryId: delivery.id }, now)
    if (deps.carriers.find(delivery.carrier_name)?.sandbox) {
      // A sandbox carrier installs the group it was sent in full, and answers changes with a census.
      const action = delivery.kind === 'full' ? 'install' : 'census'
      await enqueueJob(tx, SANDBOX_CARRIER_JOB, { action, coverage_period_id: delivery.coverage_period_id }, { runAt: new Date(now.getTime() + deps.sandboxDelayMs) })
    }
  })
}
