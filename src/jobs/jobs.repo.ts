import { sql } from 'kysely'
import type { Executor, JobRow, JobStatus } from '../db/schema.js'
import type { PageRequest } from '../http/pagination.js'
import { selectPage } from '../db/paging.js'
import { uuidv7 } from '../lib/ids.js'

/**
 * Takes up to `limit` due jobs for this worker, among the job names it can run. SKIP LOCKED lets
 * any number of workers poll the same table: a row one of them is claiming is invisible to the
 * others, so no job runs twice. Restricting to known names means a worker of an older release
 * leaves a newer job for a worker that knows it, instead of failing it.
 */
export async function claimDueJobs(db: Executor, workerId: string, limit: number, names: readonly string[]): Promise<JobRow[]> {
  if (names.length === 0) return []
  const result = await sql<JobRow>`
    update jobs set status = 'running', attempts = attempts + 1, locked_at = now(), locked_by = ${workerId}
    where id in (
      select id from jobs
      where status = 'pending' and run_at <= now() and name = any(${[...names]}::text[])
      order by run_at, id
      limit ${limit}
      for update skip locked)
    returning *`.execute(db)
  return result.rows
}

/** Jobs whose worker died mid-run go back to the queue (or fail, if that was their last try). */
export async function releaseStaleJobs(db: Executor, olderThanMs: number): Promise<number> {
  const result = await sql`
    update jobs set
      status = case when attempts >= max_attempts then 'failed' else 'pending' end,
      finished_at = case when attempts >= max_attempts then now() else null end,
      last_error = 'worker stopped responding during the attempt',
      locked_at = null, locked_by = null
    where status = 'running' and locked_at < now() - make_interval(secs => ${olderThanMs / 1000})`.execute(db)
  return Number(result.numAffectedRows ?? 0)
}

export interface AttemptRecord {
  job: JobRow
  workerId: string
  startedAt: Date
  finishedAt: Date
  error: string | null
  /** When the job should run again; null when it succeeded or has no attempts left. */
  retryAt: Date | null
}

export async function recordAttempt(db: Executor, record: AttemptRecord): Promise<void> {
  const { job, error, retryAt } = record
  const status: JobStatus = error === null ? 'succeeded' : retryAt ? 'pending' : 'failed'
  await db.transaction().execute(async (tx) => {
    await tx
      .insertInto('job_attempts')
      .values({
        id: uuidv7(),
        job_id: job.id,
        attempt: job.attempts,
        worker_id: record.workerId,
        started_at: record.startedAt,
        finished_at: record.finishedAt,
        outcome: error === null ? 'succeeded' : 'failed',
        error,
      })
      .execute()
    await tx
      .updateTable('jobs')
      .set({
        status,
        last_error: error,
        run_at: retryAt ?? job.run_at,
        locked_at: null,
        locked_by: null,
        finished_at: status === 'pending' ? null : record.finishedAt,
      })
      .where('id', '=', job.id)
      .where('locked_by', '=', record.workerId)
      .execute()
  })
}

export async function listJobs(db: Executor, filters: { status?: JobStatus | undefined; name?: string | undefined }, pageReq: PageRequest) {
  let query = db.selectFrom('jobs')
  if (filters.status) query = query.where('status', '=', filters.status)
  if (filters.name) query = query.where('name', '=', filters.name)
  return selectPage(query, pageReq, (q) => q.selectAll(), 'desc')
}

export async function findJob(db: Executor, id: string) {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function listAttempts(db: Executor, jobId: string) {
  return db.selectFrom('job_attempts').selectAll().where('job_id', '=', jobId).orderBy('attempt').execute()
}

/** Housekeeping: succeeded jobs are kept a week for inspection, failed ones until handled. */
export async function purgeSucceededJobs(db: Executor, olderThan: Date): Promise<number> {
  const result = await db.deleteFrom('jobs').where('status', '=', 'succeeded').where('finished_at', '<', olderThan).executeTakeFirst()
  return Number(result.numDeletedRows)
}
