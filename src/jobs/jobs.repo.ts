import { sql } from 'kysely'
import type { Executor, JobRow, JobStatus } from '../db/schema.js'
import type { PageRequest } from '../http/pagination.js'
import { selectPage } from '../db/paging.js'
import { prepare } from '../db/prepared.js'
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
  return (await claimDue(db, workerId, limit, names)).jobs
}

/**
 * Where a worker's claims have got to in one account's backlog: the last job (by run_at, id) it
 * claimed of it. A later claim may read that account's jobs from there on (see claimFairly).
 */
export interface ClaimCursor {
  key: string
  /** run_at as PostgreSQL writes it (microseconds; a Date would round them to milliseconds). */
  runAt: string
  id: string
}

export interface Claim {
  jobs: JobRow[]
  /**
   * Jobs were due when the claim began. With fewer jobs than asked for, more may still be due: the
   * claim was capped (a destination not yet trusted) or skipped rows another worker was claiming.
   */
  due: boolean
  /** Some of what was due has a fairness key (claimed round-robin). */
  fair?: boolean
  /** The claim saw due jobs it did not take (a cap held them back, or they were beyond its limit). */
  more?: boolean
  /** The claim read on from the cursors it was given (false: it read every account from the start). */
  readOn?: boolean
  /** Per account of the jobs claimed round-robin, the last one claimed: the cursors for the next claims. */
  cursors?: ClaimCursor[]
}

/**
 * claimDueJobs, also saying whether anything was due: what the worker needs to know whether to
 * claim again soon. `expectFair`: the last claim found jobs with a fairness key due (a burst of
 * deliveries): claim them straight away, without the look for what is due first.
 */
export async function claimDue(
  db: Executor,
  workerId: string,
  limit: number,
  names: readonly string[],
  options: { expectFair?: boolean; cursors?: readonly ClaimCursor[]; slots?: number; running?: ReadonlyMap<string, number> } = {},
): Promise<Claim> {
  if (names.length === 0) return { jobs: [], due: false }
  const running = options.running ?? new Map<string, number>()
  if (options.expectFair) {
    const cursors = options.cursors ?? []
    const claimed = await withoutWaitingForFlush(db, (tx) => claimFairly(tx, workerId, limit, names, { cursors, slots: options.slots, running }))
    if (claimed.jobs.length > 0) return { ...claimed, due: true, fair: true, readOn: cursors.length > 0 }
  }
  // Most polls find nothing due, and most jobs name no fairness key: both are answered by a cheap
  // look first (on the embedded database, queries share the event loop with everything else).
  const due = await sql<{ any: boolean; fair: boolean }>`
    select
      exists (select 1 from jobs where status = 'pending' and run_at <= now() and name = any(${[...names]}::text[])) as any,
      exists (select 1 from jobs where status = 'pending' and fairness_key is not null and run_at <= now() and name = any(${[...names]}::text[])) as fair`.execute(db)
  const { any, fair } = due.rows[0] ?? { any: false, fair: false }
  if (!any) return { jobs: [], due: false }
  if (!fair) return { jobs: await withoutWaitingForFlush(db, (tx) => claimOldestFirst(tx, workerId, limit, names)), due: true, fair }
  return { ...(await withoutWaitingForFlush(db, (tx) => claimFairly(tx, workerId, limit, names, { cursors: [], slots: options.slots, running }))), due: true, fair, readOn: false }
}

/**
 * Runs a claim in a transaction that commits without waiting for its WAL to reach the disk
 * (synchronous_commit off). A claim lost to a database crash only puts its jobs back to pending,
 * where they are claimed again: at least once still holds. And nothing a job does is recorded
 * durably before its claim: the job's outcome commits synchronously, which flushes the WAL up to
 * it, the claim included. During a burst the worker claims at every freed slot, and waiting for
 * that flush was most of a claim's time (bench/RESULTS.md, issue 16).
 */
async function withoutWaitingForFlush<T>(db: Executor, claim: (tx: Executor) => Promise<T>): Promise<T> {
  if (db.isTransaction) return claim(db)
  return db.transaction().execute(async (tx) => {
    await sql`set local synchronous_commit = off`.execute(tx)
    return claim(tx)
  })
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

/**
 * The values a fair claim binds, by name. `prepare` builds the query once with stand-ins for them,
 * so they are typed loosely here; FairClaimValues types the values each call passes.
 */
interface FairClaimParams {
  names: unknown
  limit: unknown
  workerId: unknown
  /** The worker's slots, or null: count the jobs it holds, plus `limit`. */
  slots: unknown
  keys: unknown
  runAts: unknown
  ids: unknown
  /** The accounts of the jobs the worker is running, and how many each. */
  runningKeys: unknown
  runningCounts: unknown
}

type ClaimedRow = JobRow & { cursor_run_at: string; cursor_last: boolean; left_due: boolean }

/**
 * The fair claim's SQL, from the start of every backlog or from the cursors. Why it reads as it
 * does:
 *
 * Candidates are read per account through jobs_fair_claim_idx (its `limit` oldest claimable
 * jobs), so a claim costs accounts times `limit` rows, not the whole backlog; only a backed-off
 * destination's waiting jobs are read past. Accounts are enumerated by skipping through the
 * index (one probe per account), not by reading every pending row.
 *
 * With cursors, an account's jobs are read from its cursor on, and the accounts are the cursors'
 * plus the others, found by skipping through the index between the cursors' accounts (never
 * through their entries). Why: a claimed job leaves its entry in the
 * index until VACUUM, or until a scan finds it dead to every transaction and marks it, which a
 * long transaction anywhere on the server (a census, a full file) prevents. During a burst each
 * claim would then read past every job claimed before it, twice (counting accounts, reading
 * candidates): 6,000 entries, 15 ms a claim, two thirds through a 10,000 burst. From the
 * cursor, only what was claimed since. Jobs behind a cursor (released by a dead worker, or left
 * by a cap or a back-off) wait for the worker's next claim without cursors (Worker, at least
 * every second), as do jobs without an account:
 * finding those reads past every pending job with one (no index leads to them alone).
 *
 * `slots`, when the worker says how many it has, spares counting the jobs it holds, which
 * reads past every job it has finished since the last VACUUM for the same reason.
 *
 * The rounds start from what the worker is already running for each account (`runningKeys`,
 * `runningCounts`: an account with three jobs running has its oldest due job in round four).
 * During a burst a claim is often for the one slot just freed; with rounds counted within the
 * claim alone, that slot went to the oldest due job of all, so an account that just queued
 * something waited behind every older account's backlog.
 */
function fairClaimQuery(byCursor: boolean, p: FairClaimParams) {
  const accounts = byCursor
    ? sql`
    gaps as (
      select lag(fairness_key) over (order by fairness_key) as after, fairness_key as before from cursors
    ),
    between_cursors as (
      select gaps.before, fresh.fairness_key from gaps cross join lateral (
        select j.fairness_key from jobs j
        where j.status = 'pending' and j.fairness_key > coalesce(gaps.after, '') and j.fairness_key < gaps.before
        order by j.fairness_key limit 1) fresh
      union all
      select b.before, (
        select j.fairness_key from jobs j
        where j.status = 'pending' and j.fairness_key > b.fairness_key and j.fairness_key < b.before
        order by j.fairness_key limit 1)
      from between_cursors b where b.fairness_key is not null
    ),
    after_cursors as (
      (select j.fairness_key from jobs j
       where j.status = 'pending' and j.fairness_key > (select max(fairness_key) from cursors)
       order by j.fairness_key limit 1)
      union all
      select (select j.fairness_key from jobs j where j.status = 'pending' and j.fairness_key > a.fairness_key order by j.fairness_key limit 1)
      from after_cursors a where a.fairness_key is not null
    ),
    accounts as (
      select fairness_key from cursors
      union
      select fairness_key from between_cursors where fairness_key is not null
      union
      select fairness_key from after_cursors where fairness_key is not null
    ),`
    : sql`
    accounts as (
      (select fairness_key from jobs where status = 'pending' and fairness_key is not null order by fairness_key limit 1)
      union all
      select (select j.fairness_key from jobs j where j.status = 'pending' and j.fairness_key > accounts.fairness_key order by j.fairness_key limit 1)
      from accounts where accounts.fairness_key is not null
    ),
`
  const keyless = byCursor
    ? sql``
    : sql`
      union all
      (select j.id, j.run_at, j.fairness_key, j.destination from jobs j
       where j.status = 'pending' and j.fairness_key is null and j.run_at <= now() and j.name = any(${p.names}::text[])
         and (j.destination is null or j.destination not in (select destination from health where blocked union all select destination from probed))
       order by j.run_at, j.id
       limit ${p.limit})`
  return sql<ClaimedRow>`
    with recursive
    cursors as (
      select * from unnest(${p.keys}::text[], ${p.runAts}::timestamptz[], ${p.ids}::uuid[]) as c(fairness_key, run_at, id)
    ),
    running as (
      select * from unnest(${p.runningKeys}::text[], ${p.runningCounts}::int[]) as r(fairness_key, jobs)
    ),
    ${accounts}
    slots as (
      -- The worker's own count when it gives one (coalesce evaluates the count only without it).
      select coalesce(${p.slots}::int, (select count(*) from jobs where status = 'running' and locked_by = ${p.workerId}) + ${p.limit}::int) as total
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
      where j.status = 'running' and j.locked_by = ${p.workerId} and j.destination is not null and not coalesce(h.trusted, false)
    ),
    probed as (
      select distinct j.destination from jobs j join health h on h.destination = j.destination and h.probing where j.status = 'running'
    ),
    candidates as (
      select c.* from accounts left join cursors on cursors.fairness_key = accounts.fairness_key cross join lateral (
        select j.id, j.run_at, j.fairness_key, j.destination from jobs j
        where j.status = 'pending' and j.fairness_key = accounts.fairness_key and j.run_at <= now() and j.name = any(${p.names}::text[])
          and (j.run_at, j.id) > (coalesce(cursors.run_at, '-infinity'), coalesce(cursors.id, '00000000-0000-0000-0000-000000000000'))
          and (j.destination is null or j.destination not in (select destination from health where blocked union all select destination from probed))
        order by j.run_at, j.id
        limit ${p.limit}) c
      where accounts.fairness_key is not null
      ${keyless}
    ),
    due as (
      select c.id, c.run_at, c.fairness_key, c.destination,
        c.destination is null or coalesce(h.trusted, false) as trusted,
        coalesce(h.probing, false) as probing,
        row_number() over (partition by coalesce(c.fairness_key, c.id::text) order by c.run_at, c.id)
          + coalesce((select r.jobs from running r where r.fairness_key = c.fairness_key), 0) as key_round,
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
      limit ${p.limit}
    ),
    claimed as (
      update jobs set status = 'running', attempts = attempts + 1, locked_at = now(), locked_by = ${p.workerId}
      where id in (select id from jobs where id in (select id from chosen) and status = 'pending' for update skip locked)
      returning *
    )
    select claimed.*, claimed.run_at::text as cursor_run_at,
      row_number() over (partition by claimed.fairness_key order by claimed.run_at desc, claimed.id desc) = 1 as cursor_last,
      (select count(*) from due) > (select count(*) from chosen) as left_due
    from claimed
    -- The worker starts them in this order: oldest first within a claim too.
    order by claimed.run_at, claimed.id`
}

// Prepared: this claim is planned once per connection, not at every claim (a millisecond of
// PostgreSQL's time, as much as running it, and a burst claims at every freed slot).
const FAIR_CLAIM_PARAMS = 9
const toStandIns = (p: readonly string[]): FairClaimParams => ({ names: p[0], limit: p[1], workerId: p[2], slots: p[3], keys: p[4], runAts: p[5], ids: p[6], runningKeys: p[7], runningCounts: p[8] })
type FairClaimValues = [
  names: readonly string[],
  limit: number,
  workerId: string,
  slots: number | null,
  keys: string[],
  runAts: string[],
  ids: string[],
  runningKeys: string[],
  runningCounts: number[],
]
const fairClaimFromStart = prepare<ClaimedRow, FairClaimValues>(FAIR_CLAIM_PARAMS, (db, p) => ({ compile: () => fairClaimQuery(false, toStandIns(p)).compile(db) }))
const fairClaimFromCursors = prepare<ClaimedRow, FairClaimValues>(FAIR_CLAIM_PARAMS, (db, p) => ({ compile: () => fairClaimQuery(true, toStandIns(p)).compile(db) }))

async function claimFairly(
  db: Executor,
  workerId: string,
  limit: number,
  names: readonly string[],
  options: { cursors: readonly ClaimCursor[]; slots?: number | undefined; running: ReadonlyMap<string, number> },
): Promise<{ jobs: JobRow[]; cursors: ClaimCursor[]; more: boolean }> {
  const { cursors, slots, running } = options
  const claim = cursors.length > 0 ? fairClaimFromCursors : fairClaimFromStart
  const rows = await claim(db, [...names], limit, workerId, slots ?? null, cursors.map((c) => c.key), cursors.map((c) => c.runAt), cursors.map((c) => c.id), [...running.keys()], [...running.values()])
  const next: ClaimCursor[] = []
  const jobs = rows.map(({ cursor_run_at, cursor_last, left_due: _, ...job }) => {
    if (cursor_last && job.fairness_key !== null) next.push({ key: job.fairness_key, runAt: cursor_run_at, id: job.id })
    return job
  })
  return { jobs, cursors: next, more: rows[0]?.left_due === true }
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
  await db.transaction().execute((tx) => writeAttemptRecords(tx, [record]))
}

function statusAfter(record: AttemptRecord): JobStatus {
  return record.error === null ? 'succeeded' : record.retryAt ? 'pending' : 'failed'
}

// Prepared (see `prepare`): every batch of finished jobs writes them, a burst of deliveries many times a second.
const insertJobAttempts = prepare<never, [ids: string[], jobIds: string[], attempts: number[], workerIds: string[], startedAt: string[], finishedAt: string[], outcomes: string[], errors: (string | null)[]]>(
  8,
  (db, [ids, jobIds, attempts, workerIds, startedAt, finishedAt, outcomes, errors]) => ({
    compile: () =>
      sql<never>`
    insert into job_attempts (id, job_id, attempt, worker_id, started_at, finished_at, outcome, error)
    select * from unnest(${ids}::uuid[], ${jobIds}::uuid[], ${attempts}::int[], ${workerIds}::text[], ${startedAt}::timestamptz[], ${finishedAt}::timestamptz[],
      ${outcomes}::text[], ${errors}::text[])`.compile(db),
  }),
)

const updateAttemptedJobs = prepare<never, [ids: string[], workerIds: string[], statuses: string[], errors: (string | null)[], runAt: (string | null)[], finishedAt: (string | null)[]]>(
  6,
  (db, [ids, workerIds, statuses, errors, runAt, finishedAt]) => ({
    compile: () =>
      sql<never>`
    update jobs set
      status = v.status, last_error = v.error, run_at = coalesce(v.run_at, jobs.run_at),
      locked_at = null, locked_by = null, finished_at = v.finished_at
    from unnest(${ids}::uuid[], ${workerIds}::text[], ${statuses}::text[], ${errors}::text[], ${runAt}::timestamptz[], ${finishedAt}::timestamptz[])
      as v(id, locked_by, status, error, run_at, finished_at)
    where jobs.id = v.id and jobs.locked_by = v.locked_by`.compile(db),
  }),
)

/**
 * Writes attempts' outcomes in the caller's transaction, two statements for any number: each
 * attempt's row, and its job's new state (pending again at `retryAt`, succeeded or failed). A job
 * no longer held by the attempt's worker (released as its worker's meanwhile) is left as it is.
 * Columns go as arrays (unnest), a few parameters instead of several per row.
 */
export async function writeAttemptRecords(tx: Executor, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return
  // One order for every writer, so two batches touching the same jobs cannot deadlock.
  const sorted = [...records].sort((a, b) => (a.job.id < b.job.id ? -1 : a.job.id > b.job.id ? 1 : 0))
  const iso = (date: Date | null) => (date ? date.toISOString() : null)
  await insertJobAttempts(
    tx,
    sorted.map(() => uuidv7()),
    sorted.map((r) => r.job.id),
    sorted.map((r) => r.job.attempts),
    sorted.map((r) => r.workerId),
    sorted.map((r) => r.startedAt.toISOString()),
    sorted.map((r) => r.finishedAt.toISOString()),
    sorted.map((r) => (r.error === null ? 'succeeded' : 'failed')),
    sorted.map((r) => r.error),
  )
  await updateAttemptedJobs(
    tx,
    sorted.map((r) => r.job.id),
    sorted.map((r) => r.workerId),
    sorted.map(statusAfter),
    sorted.map((r) => r.error),
    sorted.map((r) => iso(r.retryAt)),
    sorted.map((r) => (statusAfter(r) === 'pending' ? null : iso(r.finishedAt))),
  )
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
