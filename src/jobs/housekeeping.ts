import type { Db } from '../db/schema.js'
import { purgeExpiredIdempotencyKeys } from '../http/idempotency.repo.js'
import { purgeEventLog } from '../modules/event-stream/event-stream.repo.js'
import { purgeSucceededJobs } from './jobs.repo.js'

const EVERY_MS = 15 * 60_000
const KEEP_SUCCEEDED_JOBS_MS = 7 * 24 * 3_600_000
const DAY_MS = 24 * 3_600_000

export interface HousekeepingOptions {
  /** Events older than this are deleted from the event log (EVENT_LOG_RETENTION_DAYS). */
  eventLogRetentionDays: number
}

/**
 * Deletes expired idempotency keys, old succeeded jobs and events past the event log's retention,
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
  }
}
