import { sql } from 'kysely'
import type { Executor } from '../db/schema.js'

/**
 * What a running job becomes when the worker holding it is gone: pending again, or failed if that
 * was its last attempt. The attempt counted when it was claimed, so a job that kills its worker
 * every time cannot loop for ever.
 */
export const RELEASED_JOB = sql`
  status = case when attempts >= max_attempts then 'failed' else 'pending' end,
  finished_at = case when attempts >= max_attempts then now() else null end,
  last_error = 'worker stopped responding during the attempt',
  locked_at = null, locked_by = null`

const seconds = (ms: number) => sql`make_interval(secs => ${ms / 1000})`

export interface Beat {
  /** When this registration began: a later value than the first beat's means the row was removed meanwhile. */
  startedAt: Date
}

/**
 * Records that the worker is alive, registering it if it has no row (its first beat, or after it
 * was presumed dead). A beat later than `lateAfterMs` after the previous one starts a new run of
 * punctual beats (on_time_since), which keeps this worker from judging others for a dead window.
 * All times are the database's, so clocks of different hosts never disagree.
 */
export async function beat(db: Executor, workerId: string, options: { lateAfterMs: number; deadAfterMs: number }): Promise<Beat> {
  const { lateAfterMs, deadAfterMs } = options
  const result = await sql<{ started_at: Date }>`
    insert into worker_heartbeats (id, dead_after_ms) values (${workerId}, ${deadAfterMs})
    on conflict (id) do update set
      dead_after_ms = excluded.dead_after_ms,
      on_time_since = case when worker_heartbeats.heartbeat_at >= now() - ${seconds(lateAfterMs)}
                           then worker_heartbeats.on_time_since else now() end,
      heartbeat_at = now()
    returning started_at`.execute(db)
  const row = result.rows[0]
  if (!row) throw new Error('the heartbeat returned no row')
  return { startedAt: new Date(row.started_at) }
}

export interface Judgement {
  /** Workers presumed dead, whose rows were removed. */
  deadWorkers: string[]
  /** Their running jobs, released. */
  releasedJobs: number
}

/**
 * Workers silent for their dead window (their own dead_after_ms) are presumed dead: their rows go
 * and their running jobs are released, in one statement. Only a judge whose own beats have been
 * punctual for that whole window (and whose last beat is recent) may judge: when the event loop,
 * the pool or the database stalled every worker alike, the judge's own run of beats was broken
 * too, and the others get a full window to beat again before anyone is taken for dead.
 */
export async function releaseJobsOfDeadWorkers(db: Executor, judgeId: string, options: { lateAfterMs: number }): Promise<Judgement> {
  const result = await sql<{ dead_workers: string[]; released_jobs: number }>`
    with judge as (
      select on_time_since from worker_heartbeats
      where id = ${judgeId} and heartbeat_at >= now() - ${seconds(options.lateAfterMs)}),
    dead as (
      delete from worker_heartbeats w
      using judge
      where w.id <> ${judgeId}
        and w.heartbeat_at < now() - make_interval(secs => w.dead_after_ms / 1000.0)
        and judge.on_time_since <= now() - make_interval(secs => w.dead_after_ms / 1000.0)
      returning w.id),
    released as (
      update jobs set ${RELEASED_JOB}
      where status = 'running' and locked_by in (select id from dead)
      returning 1)
    select coalesce((select array_agg(id) from dead), '{}') as dead_workers, (select count(*) from released)::int as released_jobs`.execute(db)
  const row = result.rows[0]
  return { deadWorkers: row?.dead_workers ?? [], releasedJobs: Number(row?.released_jobs ?? 0) }
}

/**
 * A clean stop: the worker's row goes, and any job it still holds is released. By then every
 * attempt it ran has finished, so such a job is one whose outcome could not be recorded.
 */
export async function deregister(db: Executor, workerId: string): Promise<number> {
  const result = await sql`
    with gone as (delete from worker_heartbeats where id = ${workerId})
    update jobs set ${RELEASED_JOB}
    where status = 'running' and locked_by = ${workerId}`.execute(db)
  return Number(result.numAffectedRows ?? 0)
}
