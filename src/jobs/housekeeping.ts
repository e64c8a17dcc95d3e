import type { Db } from '../db/schema.js'
import { purgeExpiredIdempotencyKeys } from '../http/idempotency.repo.js'
import { purgeUnansweredPriors } from '../modules/carrier-delivery/index.js'
import { purgeEventLog } from '../modules/event-stream/event-stream.repo.js'
import { purgeSucceededJobs } from './jobs.repo.js'

const EVERY_MS = 15 * 60_000
const KEEP_SUCCEEDED_JOBS_MS = 7 * 24 * 3_600_000
const DAY_MS = 24 * 3_600_000
/** A carrier's 999 comes within hours (acknowledgement_due_hours, 24 by default); a month is far past any. */
const KEEP_UNANSWERED_PRIORS_MS = 30 * DAY_MS

export interface HousekeepingOptions {
  /** Events older than this are deleted from the event log (EVENT_LOG_RETENTION_DAYS). */
  eventLogRetentionDays: number
}

/**
 * Deletes expired idempotency keys, old succeeded jobs, events past the event log's retention and
 * the carrier views' priors of files sent a month ago and never rejected (rejected-deliveries.ts),
 * at most every 15 minutes. A stream cursor older than the retention then resumes from the oldest
 * event kept.
 */
export function createHousekeeping(db: Db, options: HousekeepingOptions, now: () => number = Date.now): () => Promise<void> {
  let lastRun = 0
  return async () => {
    if (now() - lastRun < EVERY_MS) return
    lastRun = now()
    await purgeExpiredIdempotencyKeys(db)
    await purgeSucceededJobs(db, new Date(now() - KEEP_SUCCEEDED_JOBS_MS))
    await purgeEventLog(db, new Date(now() - options.eventLogRetentionDays * DAY_MS))
    await purgeUnansweredPriors(db, new Date(now() - KEEP_UNANSWERED_PRIORS_MS))
  }
}
