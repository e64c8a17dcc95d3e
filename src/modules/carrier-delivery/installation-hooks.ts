import type { InstallationHooks } from '../work-orders/work-order-transitions.service.js'
import { openDelivery } from './carrier-delivery.service.js'

/**
 * What the carrier side does when the operations team moves a work order: on submission the
 * group goes to the carrier in full (an 834 replace file for edi carriers, a JSON document for
 * api carriers; a manual carrier gets it outside the service). Once it is sent, each enrolled
 * family gets an `installation` transaction for it (carrier-delivery.service.ts, settle), so its status follows the
 * installation like any later change. Completion needs nothing from the carrier side: the work
 * order itself moves the group to member management.
 */
export const CARRIER_INSTALLATION_HOOKS: InstallationHooks = {
  async submitted(tx, { carrier, coveragePeriod: cp, now }) {
    if (!carrier || carrier.distribution_format === 'manual') return
    await openDelivery(tx, cp, 'full', carrier.distribution_format, now)
  },
}
