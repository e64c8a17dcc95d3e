import { sql } from 'kysely'
import { refreshFamilyStatuses } from '../member-management/family-status.js'
import type { InstallationHooks } from '../work-orders/work-order-transitions.service.js'
import { openDelivery } from './deliveries.js'

/**
 * What the carrier side does when the operations team moves a work order: on submission the
 * group goes to the carrier in full (an 834 replace file for edi carriers, a JSON document for
 * api carriers; a manual carrier gets it outside the service), and each enrolled family gets an
 * `installation` transaction riding on that delivery, so its status follows the installation
 * (submitted when sent, synced or errors once the carrier's census is reconciled) like any later
 * change. Completion needs nothing more here: the work order already moved the group to member
 * management, and the next member change becomes a transaction of its own.
 */
export const CARRIER_INSTALLATION_HOOKS: InstallationHooks = {
  async submitted(tx, { carrier, coveragePeriod: cp, now }) {
    if (!carrier || carrier.distribution_format === 'manual') return
    const deliveryId = await openDelivery(tx, cp, 'full', carrier.distribution_format, now)
    // One statement for the whole group: 50,000 families must not cost 50,000 round trips.
    const families = await sql<{ subscriber_id: string }>`
      INSERT INTO member_transactions (id, account_id, coverage_period_id, group_id, subscriber_id, member_id, kind, file_delivery_id, created_at, updated_at)
      SELECT gen_random_uuid(), m.account_id, ${cp.id}, m.group_id, m.id, m.id, 'installation', ${deliveryId}, ${now}, ${now}
        FROM members m
       WHERE m.group_id = ${cp.group_id} AND m.kind = 'subscriber'
         AND EXISTS (SELECT 1 FROM qualifying_life_events q WHERE q.subscriber_id = m.id AND q.coverage_period_id = ${cp.id})
      RETURNING subscriber_id`.execute(tx)
    await tx.updateTable('file_deliveries').set({ transaction_count: families.rows.length }).where('id', '=', deliveryId).execute()
    await refreshFamilyStatuses(tx, families.rows.map((row) => ({ subscriberId: row.subscriber_id, coveragePeriodId: cp.id })), now)
  },
  async completed() {},
}
