import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../../db/schema.js'
import { systemActor } from '../../lib/actor.js'
import { todayUtc } from '../../lib/clock.js'
import { recordAuditEvents } from '../audit/audit.repo.js'
import { emitEvents, type DomainEvent } from '../events/events.js'
import { lockExpiringCoveragePeriods, markCoveragePeriodsExpired, type ExpiringCoveragePeriod } from './coverage-periods.repo.js'

/** How often the general worker looks for coverage periods to expire (a plan year ends at most once a day). */
export const EXPIRY_CHECK_EVERY_MS = 5 * 60_000

const DATE = /^\d{4}-\d{2}-\d{2}$/

/**
 * Plan years end: every coverage period whose coverage_end_date lies before `today` (YYYY-MM-DD)
 * and that is not expired yet becomes `expired`, in one transaction, each with an audit event
 * (`coverage_period.expired`, by the system) and a `coverage_period.state_changed` event. A period
 * is still current on its end date and expires the day after; one without an end date never
 * expires. Running it again changes and announces nothing. Answers the periods it expired.
 */
export async function expireCoveragePeriods(db: Db, today: string, now: Date = new Date()): Promise<ExpiringCoveragePeriod[]> {
  if (!DATE.test(today)) throw new Error(`today must be a YYYY-MM-DD date, not ${JSON.stringify(today)}`)
  return db.transaction().execute(async (tx) => {
    const expiring = await lockExpiringCoveragePeriods(tx, today)
    if (expiring.length === 0) return []
    await markCoveragePeriodsExpired(
      tx,
      expiring.map((cp) => cp.id),
      now,
    )
    const byAccount = new Map<string, ExpiringCoveragePeriod[]>()
    for (const cp of expiring) byAccount.set(cp.account_id, [...(byAccount.get(cp.account_id) ?? []), cp])
    for (const [accountId, periods] of byAccount) {
      await recordAuditEvents(
        tx,
        systemActor(accountId),
        periods.map((cp) => ({ accountId, action: 'coverage_period.expired', resourceType: 'coverage_period', resourceId: cp.id })),
      )
    }
    const events: DomainEvent[] = expiring.map((cp) => ({
      type: 'coverage_period.state_changed',
      accountId: cp.account_id,
      coveragePeriodId: cp.id,
      groupId: cp.group_id,
      data: { coverage_period_id: cp.id, group_id: cp.group_id, previous_state: cp.state, state: 'expired' },
    }))
    await emitEvents(tx, events, now)
    return expiring
  })
}

export interface ExpiryCheckOptions {
  /** The clock "today" (UTC) is read from; tests pass their own. */
  clock?: () => Date
  everyMs?: number
  log?: FastifyBaseLogger
}

/**
 * The scheduled job behind plan-year expiry, run on the general worker's polls (src/main/workers.ts)
 * at most every EXPIRY_CHECK_EVERY_MS; the first poll after a start runs it, so periods that ended
 * while the service was down expire at once. Any number of workers may run it together: the row
 * locks of expireCoveragePeriods make each period expire once.
 */
export function createCoveragePeriodExpiryCheck(db: Db, options: ExpiryCheckOptions = {}): () => Promise<void> {
  const clock = options.clock ?? (() => new Date())
  const everyMs = options.everyMs ?? EXPIRY_CHECK_EVERY_MS
  let lastRun: number | undefined
  return async () => {
    const now = clock()
    if (lastRun !== undefined && now.getTime() - lastRun < everyMs) return
    lastRun = now.getTime()
    const expired = await expireCoveragePeriods(db, todayUtc(now), now)
    if (expired.length > 0) options.log?.info({ expired: expired.length }, 'coverage periods expired')
  }
}
