import type { Db } from '../db/schema.js'
import { purgeExpiredIdempotencyKeys } from '../http/idempotency.repo.js'
import { purgeSucceededJobs } from './jobs.repo.js'

const EVERY_MS = 15 * 60_000
const KEEP_SUCCEEDED_JOBS_MS = 7 * 24 * 3_600_000

/** Deletes expired idempotency keys and old succeeded jobs, at most every 15 minutes. */
export function createHousekeeping(db: Db, now: () => number = Date.now): () => Promise<void> {
  let lastRun = 0
  return async () => {
    if (now() - lastRun < EVERY_MS) return
    lastRun = now()
    await purgeExpiredIdempotencyKeys(db)
    await purgeSucceededJobs(db, new Date(now() - KEEP_SUCCEEDED_JOBS_MS))
  }
}
