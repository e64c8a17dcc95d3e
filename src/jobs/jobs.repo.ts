import { sql } from 'kysely'
import type { Executor, JobRow, JobStatus } from '../db/schema.js'
import type { PageRequest } from '../http/pagination.js'
import { selectPage } from '../db/paging.js'
import { uuidv7 } from '../lib/ids.js'
import { RELEASED_JOB } from './worker-liveness.repo.js'

/**
 * Takes up to `limit` due jobs for this worker, among the job names it can run. SKIP LOCKED lets
 * any number of workers poll the same table: a row one of them is claiming is invisible to the
 * others, so no job runs twice. Restricting to known names means a worker of an older release
 * leaves a newer job for a worker that knows it, instead of failing it.
 *
 * Fairness (issue 15), for jobs that name a `fairness_key` (an account) and a `destination` (a
 * receiver's origin); others are taken oldest first as before:
 * - Round-robin: due jobs are taken in rounds, the oldest job of every account and of every
 *   destination first, then the second oldest of each, and so on; so a fresh job of one account
 *   is taken in the next claim however long another account's backlog is.
 * - Caps: jobs to destinations not known to answer (no answer within the hour, or failing since)
 *   may hold at most half of this worker's slots per destination and half per account, so the
 *   other half is always there for everyone else; jobs to receivers that answer are not capped,
 *   so one account alone still has every slot, and a burst drains at full speed.
 * - Back-off: a blocked destination's jobs wait; once the block ends one job goes as a probe,
 *   and no other until it has answered (destination_health, recorded by the job's handler).
 * The worker's slots are the jobs it holds plus `limit`, the free ones it asks to fill.
 */
export async function claimDueJobs(db: Executor, workerId: string, limit: number, names: readonly string[]): Promise<JobRow[]> {
  if (names.length === 0) return []
  // Most polls find nothing due, and most jobs name no fairness key: both are answered by a cheap
  // look first (on the embedded database, queries share the event loop with everything else).
  const due = await sql<{ any: boolean; fair: boolean }>`
    select
      exists (select 1 from jobs where status = 'pending' and run_at <= now() and name = any(${[...names]}::text[])) as any,
      exists (select 1 from jobs where status = 'pending' and fairness_key is not null and run_at <= now() and name = any(${[...names]}::text[])) as fair`.execute(db)
  const { any, fair } = due.rows[0] ?? { any: false, fair: false }
  if (!any) return []
  return fair ? claimFairly(db, workerId, limit, names) : claimOldestFirst(db, workerId, limit, names)
}

async function claimOldestFirst(db: Executor, workerId: string, limit: number, names: readonly string[]): Promise<JobRow[]> {
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

async function claimFairly(db: Executor, workerId: string, limit: number, names: readonly string[]): Promise<JobRow[]> {
  // Candidates are read per account through jobs_fair_claim_idx (its `limit` oldest claimable
  // jobs), so a claim costs accounts times `limit` rows, not the whole backlog; only a backed-off
  // destination's waiting jobs are read past. Accounts are enumerated by skipping through the
  // index (one probe per account), not by reading every pending row.
  const result = await sql<JobRow>`
    with recursive accounts as (
      (select fairness_key from jobs where status = 'pending' and fairness_key is not null order by fairness_key limit 1)
      union all
      select (select j.fairness_key from jobs j where j.status = 'pending' and j.fairness_key > accounts.fairness_key order by j.fairness_key limit 1)
      from accounts where accounts.fairness_key is not null
    ),
    slots as (
      select count(*) + ${limit}::int as total from jobs where status = 'running' and locked_by = ${workerId}
    ),
    health as (
      select destination,
        consecutive_failures = 0 and coalesce(last_success_at > now() - interval '1 hour', false) as trusted,
        coalesce(blocked_until > now(), false) as blocked,
        coalesce(blocked_until <= now(), false) as probing
      from destination_health
    ),
    held as (
      select j.fairness_key, j.destination from jobs j left join health h on h.destination = j.destination
      where j.status = 'running' and j.locked_by = ${workerId} and j.destination is not null and not coalesce(h.trusted, false)
    ),
    probed as (
      select distinct j.destination from jobs j join health h on h.destination = j.destination and h.probing where j.status = 'running'
    ),
    candidates as (
      select c.* from accounts cross join lateral (
        select j.id, j.run_at, j.fairness_key, j.destination from jobs j
        where j.status = 'pending' and j.fairness_key = accounts.fairness_key and j.run_at <= now() and j.name = any(${[...names]}::text[])
          and (j.destination is null or j.destination not in (select destination from health where blocked union all select destination from probed))
        order by j.run_at, j.id
        limit ${limit}) c
      where accounts.fairness_key is not null
      union all
      (select j.id, j.run_at, j.fairness_key, j.destination from jobs j
       where j.status = 'pending' and j.fairness_key is null and j.run_at <= now() and j.name = any(${[...names]}::text[])
         and (j.destination is null or j.destination not in (select destination from health where blocked union all select destination from probed))
       order by j.run_at, j.id
       limit ${limit})
    ),
    due as (
      select c.id, c.run_at, c.fairness_key, c.destination,
        c.destination is null or coalesce(h.trusted, false) as trusted,
        coalesce(h.probing, false) as probing,
        row_number() over (partition by coalesce(c.fairness_key, c.id::text) order by c.run_at, c.id) as key_round,
        row_number() over (partition by coalesce(c.destination, c.id::text) order by c.run_at, c.id) as destination_round
      from candidates c left join health h on h.destination = c.destination
    ),
    capped as (
      select id,
        row_number() over (partition by destination order by run_at, id) + (select count(*) from held where held.destination = due.destination) as destination_load,
        row_number() over (partition by fairness_key order by run_at, id) + (select count(*) from held where held.fairness_key = due.fairness_key) as key_load
      from due where not trusted
    ),
    chosen as (
      select due.id from due left join capped on capped.id = due.id cross join slots
      where due.trusted or (
        capped.destination_load <= greatest(1, ceil(slots.total / 2.0))
        and (due.fairness_key is null or capped.key_load <= greatest(1, ceil(slots.total / 2.0)))
        and (not due.probing or capped.destination_load = 1))
      order by greatest(due.key_round, due.destination_round), due.run_at, due.id
      limit ${limit}
    )
    update jobs set status = 'running', attempts = attempts + 1, locked_at = now(), locked_by = ${workerId}
    where id in (select id from jobs where id in (select id from chosen) and status = 'pending' for update skip locked)
    returning *`.execute(db)
  return result.rows
}

/**
 * Jobs held for longer than `olderThanMs` by a worker without a heartbeat row go back to the queue
 * (or fail, if that was their last try): a worker of a release before heartbeats, one that only
 * drains, or one whose row is gone. A heartbeating worker's jobs are never stale, however long
 * they run; they are released when it stops beating (releaseJobsOfDeadWorkers).
 */
export async function releaseStaleJobs(db: Executor, olderThanMs: number): Promise<number> {
  const result = await sql`
    update jobs set ${RELEASED_JOB}
    where status = 'running' and locked_at < now() - make_interval(secs => ${olderThanMs / 1000})
      and not exists (select 1 from worker_heartbeats w where w.id = jobs.locked_by)`.execute(db)
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
