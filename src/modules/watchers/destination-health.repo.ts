import { sql } from 'kysely'
import { prepare } from '../../db/prepared.js'
import type { Executor } from '../../db/schema.js'
import { MAX_HOST_BACKOFF_SECONDS } from './webhook-settings.js'

/**
 * How a destination (a receiver's origin) has been answering, as the job claim reads it
 * (claimDueJobs, migrations/0014_webhook_fairness.sql). Each delivery attempt reports here.
 */

/**
 * The destination answered (any status: it is up, whatever it thought of the delivery): it is
 * trusted again and any block is lifted. A destination already trusted is written at most once a
 * minute, so a busy receiver's deliveries do not all queue on its one row: the UPDATE locks the
 * row only when its WHERE holds, and the INSERT of a first answer does nothing on a conflict. (An
 * `INSERT ... ON CONFLICT DO UPDATE ... WHERE` locks the conflicting row even when its WHERE is
 * false: every delivery to one receiver then waited on that lock, about 2 of 16 slots in
 * `bench:webhook-throughput`.)
 */
// Prepared (see `prepare`): every batch of delivery attempts runs it.
const answered = prepare<never, [destination: string]>(1, (db, [destination]) => ({
  compile: () =>
    sql<never>`
    with trusted_again as (
      update destination_health set
        consecutive_failures = 0, blocks = 0, blocked_until = null, last_error = null, last_success_at = now(), updated_at = now()
      where destination = ${destination}::text
        and (consecutive_failures > 0 or blocked_until is not null or last_success_at is null or last_success_at < now() - interval '1 minute')
      returning 1)
    insert into destination_health (destination, last_success_at, updated_at)
    select ${destination}::text, now(), now() where not exists (select 1 from trusted_again)
    on conflict (destination) do nothing`.compile(db),
}))

export async function recordDestinationAnswered(db: Executor, destination: string): Promise<void> {
  await answered(db, destination)
}

export interface BackoffPolicy {
  /** Consecutive failures that block the destination. */
  threshold: number
  /** The first block; each further one in a row lasts twice as long, up to an hour. */
  firstBlockSeconds: number
}

/**
 * The destination did not answer (connection failure, timeout). Past the threshold it is blocked;
 * a failure while it is blocked (an attempt started before the block) leaves the block as it is,
 * and a failure after it (the probe) blocks it again for twice as long. Answers when it is
 * blocked until, if it is.
 */
export async function recordDestinationFailure(db: Executor, destination: string, error: string, policy: BackoffPolicy): Promise<Date | null> {
  const { threshold, firstBlockSeconds } = policy
  const result = await sql<{ blocked_until: Date | null }>`
    insert into destination_health as h (destination, consecutive_failures, blocks, blocked_until, last_error, updated_at)
    values (
      ${destination}, 1,
      case when 1 >= ${threshold}::int then 1 else 0 end,
      case when 1 >= ${threshold}::int then now() + make_interval(secs => ${firstBlockSeconds}::int) end,
      ${error}, now())
    on conflict (destination) do update set
      consecutive_failures = h.consecutive_failures + 1,
      last_error = excluded.last_error,
      updated_at = now(),
      blocks = case when h.blocked_until > now() or h.consecutive_failures + 1 < ${threshold}::int then h.blocks else h.blocks + 1 end,
      blocked_until = case
        when h.blocked_until > now() or h.consecutive_failures + 1 < ${threshold}::int then h.blocked_until
        else now() + make_interval(secs => least(${MAX_HOST_BACKOFF_SECONDS}::int, ${firstBlockSeconds}::int * power(2, least(h.blocks, 20))))
      end
    returning blocked_until`.execute(db)
  return result.rows[0]?.blocked_until ?? null
}
