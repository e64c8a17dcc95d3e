import type { Static, TSchema } from 'typebox'
import { uuidv7 } from '../lib/ids.js'
import type { Executor } from '../db/schema.js'
import type { JobSpec } from './job-definition.js'

/**
 * Whom a job's work is for and where it goes, for jobs that must share workers fairly (webhook
 * deliveries): the claim round-robins across `key`s and `destination`s and backs off failing
 * destinations (claimDueJobs). Jobs without it are claimed oldest first.
 */
export interface JobFairness {
  key: string
  destination: string | null
}

function fairnessColumns(fairness: JobFairness | undefined) {
  return { fairness_key: fairness?.key ?? null, destination: fairness?.destination ?? null }
}

/**
 * Adds a job to the outbox. Pass the transaction of the change that needs the job: the job then
 * exists exactly when the change commits, never for a rolled-back one.
 */
export async function enqueueJob<S extends TSchema>(
  tx: Executor,
  definition: JobSpec<S>,
  payload: Static<S>,
  options: { runAt?: Date; fairness?: JobFairness } = {},
): Promise<string> {
  if (!definition.check(payload)) throw new Error(`Payload of job ${definition.name} does not match its schema`)
  const id = uuidv7()
  await tx
    .insertInto('jobs')
    .values({
      id,
      name: definition.name,
      payload: JSON.stringify(payload),
      max_attempts: definition.maxAttempts,
      run_at: options.runAt ?? new Date(),
      locked_at: null,
      locked_by: null,
      last_error: null,
      finished_at: null,
      ...fairnessColumns(options.fairness),
    })
    .execute()
  return id
}

const JOB_INSERT_BATCH = 1000

/** Adds many jobs of one kind in multi-row inserts: for changes that touch thousands of rows at once. */
export async function enqueueJobs<S extends TSchema>(
  tx: Executor,
  definition: JobSpec<S>,
  payloads: readonly Static<S>[],
  options: { runAt?: Date; fairness?: (payload: Static<S>) => JobFairness } = {},
): Promise<void> {
  const runAt = options.runAt ?? new Date()
  for (let start = 0; start < payloads.length; start += JOB_INSERT_BATCH) {
    const rows = payloads.slice(start, start + JOB_INSERT_BATCH).map((payload) => {
      if (!definition.check(payload)) throw new Error(`Payload of job ${definition.name} does not match its schema`)
      return {
        id: uuidv7(),
        name: definition.name,
        payload: JSON.stringify(payload),
        max_attempts: definition.maxAttempts,
        run_at: runAt,
        locked_at: null,
        locked_by: null,
        last_error: null,
        finished_at: null,
        ...fairnessColumns(options.fairness?.(payload)),
      }
    })
    await tx.insertInto('jobs').values(rows).execute()
  }
}
