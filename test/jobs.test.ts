import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import pino from 'pino'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../src/db/database.js'
import type { Db } from '../src/db/schema.js'
import { defineJob, exponentialBackoff, JobRegistry, type JobContext, type JobDefinition } from '../src/jobs/job-definition.js'
import { listAttempts, findJob } from '../src/jobs/jobs.repo.js'
import { enqueueJob } from '../src/jobs/outbox.js'
import { Worker } from '../src/jobs/worker.js'
import { uuidv7 } from '../src/lib/ids.js'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const silent = pino({ level: 'silent' })
const Payload = Type.Object({ n: Type.Integer() }, { additionalProperties: false })

/** A job name no earlier run and no other test uses, so a test only ever sees its own jobs. */
const uniqueName = (what: string) => `test.${what}.${randomUUID()}`

function workerFor(definitions: JobDefinition[], db: Db = t.db, options: { concurrency?: number; staleAfterMs?: number } = {}) {
  return new Worker({
    db,
    registry: new JobRegistry(definitions),
    log: silent,
    concurrency: options.concurrency ?? 2,
    pollMs: 20,
    ...(options.staleAfterMs === undefined ? {} : { staleAfterMs: options.staleAfterMs }),
  })
}

describe('a started worker under a burst', () => {
  it('when more jobs are due than it has slots, then it claims again as each slot frees instead of waiting a poll interval per batch', async () => {
    const done: number[] = []
    const job = defineJob({ name: uniqueName('burst'), payload: Payload, handle: async ({ n }) => void done.push(n) })
    await t.db.transaction().execute(async (tx) => {
      for (let n = 0; n < 30; n++) await enqueueJob(tx, job, { n })
    })
    // A poll interval far longer than the test: only the wake-up on a freed slot can drain the burst in time.
    const worker = new Worker({ db: t.db, registry: new JobRegistry([job]), log: silent, concurrency: 2, pollMs: 60_000 })
    worker.start()
    try {
      const deadline = Date.now() + 10_000
      while (done.length < 30 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    } finally {
      await worker.stop()
    }
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, n) => n))
  })
})

describe('the outbox', () => {
  it('when the transaction that enqueued a job rolls back, then no job exists', async () => {
    const job = defineJob({ name: uniqueName('rollback'), payload: Payload, handle: async () => {} })
    let id = ''
    await expect(
      t.db.transaction().execute(async (tx) => {
        id = await enqueueJob(tx, job, { n: 1 })
        throw new Error('the change failed')
      }),
    ).rejects.toThrow('the change failed')
    expect(id).not.toBe('')
    expect(await findJob(t.db, id)).toBeUndefined()
    expect(await t.db.selectFrom('jobs').select('id').where('name', '=', job.name).execute()).toEqual([])
  })

  it('when the transaction commits, then the job is pending with its payload and attempt limit', async () => {
    const job = defineJob({ name: uniqueName('commit'), payload: Payload, maxAttempts: 4, handle: async () => {} })
    const id = await t.db.transaction().execute((tx) => enqueueJob(tx, job, { n: 7 }))
    const row = await findJob(t.db, id)
    expect(row).toMatchObject({ id, name: job.name, payload: { n: 7 }, status: 'pending', attempts: 0, max_attempts: 4 })
  })

  it('when the payload does not match the schema, then enqueueJob refuses it and writes nothing', async () => {
    const job = defineJob({ name: uniqueName('bad-payload'), payload: Payload, handle: async () => {} })
    // Deliberately ill-typed: the compiler would refuse it, a caller with `unknown` data would not.
    await expect(enqueueJob(t.db, job, { n: 'seven' } as unknown as { n: number })).rejects.toThrow(/does not match its schema/)
    await expect(enqueueJob(t.db, job, { n: 1, extra: true } as unknown as { n: number })).rejects.toThrow(/does not match its schema/)
    expect(await t.db.selectFrom('jobs').select('id').where('name', '=', job.name).execute()).toEqual([])
  })
})

describe('the worker', () => {
  it('when a job is due, then the worker runs it once with its payload and records the attempt', async () => {
    const seen: Array<{ payload: { n: number }; context: JobContext }> = []
    const job = defineJob({ name: uniqueName('run'), payload: Payload, handle: async (payload, context) => void seen.push({ payload, context }) })
    const id = await enqueueJob(t.db, job, { n: 42 })
    const worker = workerFor([job])
    await worker.drain()

    expect(seen).toHaveLength(1)
    expect(seen[0]!.payload).toEqual({ n: 42 })
    expect(seen[0]!.context).toMatchObject({ jobId: id, attempt: 1 })
    const row = await findJob(t.db, id)
    expect(row).toMatchObject({ status: 'succeeded', attempts: 1, last_error: null, locked_by: null })
    expect(row!.finished_at).toBeInstanceOf(Date)
    const attempts = await listAttempts(t.db, id)
    expect(attempts).toEqual([
      expect.objectContaining({ job_id: id, attempt: 1, worker_id: worker.id, outcome: 'succeeded', error: null }),
    ])
    expect(attempts[0]!.finished_at.getTime()).toBeGreaterThanOrEqual(attempts[0]!.started_at.getTime())
  })

  it('when a job is scheduled for later, then the worker leaves it until then', async () => {
    let runs = 0
    const job = defineJob({ name: uniqueName('later'), payload: Payload, handle: async () => void runs++ })
    const id = await enqueueJob(t.db, job, { n: 1 }, { runAt: new Date(Date.now() + 3_600_000) })
    await workerFor([job]).drain()
    expect(runs).toBe(0)
    expect(await findJob(t.db, id)).toMatchObject({ status: 'pending', attempts: 0 })
  })

  it('when an attempt fails, then the job waits for its backoff before the next attempt', async () => {
    const backoffAsked: number[] = []
    const job = defineJob({
      name: uniqueName('backoff'),
      payload: Payload,
      maxAttempts: 5,
      backoffMs: (attempt) => {
        backoffAsked.push(attempt)
        return 60_000
      },
      handle: async () => {
        throw new Error('carrier unavailable')
      },
    })
    const id = await enqueueJob(t.db, job, { n: 1 })
    const before = Date.now()
    await workerFor([job]).drain()

    expect(backoffAsked).toEqual([1])
    const row = await findJob(t.db, id)
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_error: 'carrier unavailable', finished_at: null })
    // Database and test clocks may differ a little; the delay is a minute.
    expect(row!.run_at.getTime()).toBeGreaterThan(before + 50_000)
    expect(await listAttempts(t.db, id)).toEqual([expect.objectContaining({ attempt: 1, outcome: 'failed', error: 'carrier unavailable' })])
  })

  it('when an attempt fails and the next succeeds, then the job succeeds with both attempts recorded', async () => {
    const job = defineJob({
      name: uniqueName('flaky'),
      payload: Payload,
      backoffMs: () => 0,
      handle: async (_payload, { attempt }) => {
        if (attempt === 1) throw new Error('first try fails')
      },
    })
    const id = await enqueueJob(t.db, job, { n: 1 })
    await workerFor([job]).drain()
    expect(await findJob(t.db, id)).toMatchObject({ status: 'succeeded', attempts: 2, last_error: null })
    const attempts = await listAttempts(t.db, id)
    expect(attempts.map((a) => [a.attempt, a.outcome, a.error])).toEqual([
      [1, 'failed', 'first try fails'],
      [2, 'succeeded', null],
    ])
  })

  it('when every attempt fails, then after max_attempts the job stays failed with its last error', async () => {
    const job = defineJob({
      name: uniqueName('doomed'),
      payload: Payload,
      maxAttempts: 3,
      backoffMs: () => 0,
      handle: async (_payload, { attempt }) => {
        throw new Error(`attempt ${attempt} failed`)
      },
    })
    const id = await enqueueJob(t.db, job, { n: 1 })
    const worker = workerFor([job])
    await worker.drain()
    await worker.drain()

    const row = await findJob(t.db, id)
    expect(row).toMatchObject({ status: 'failed', attempts: 3, last_error: 'attempt 3 failed' })
    expect(row!.finished_at).toBeInstanceOf(Date)
    const attempts = await listAttempts(t.db, id)
    expect(attempts.map((a) => [a.attempt, a.outcome, a.error])).toEqual([
      [1, 'failed', 'attempt 1 failed'],
      [2, 'failed', 'attempt 2 failed'],
      [3, 'failed', 'attempt 3 failed'],
    ])
  })

  it('when a stored payload no longer matches the schema, then the job fails at once without retries', async () => {
    let runs = 0
    const job = defineJob({ name: uniqueName('stale-schema'), payload: Payload, maxAttempts: 5, backoffMs: () => 0, handle: async () => void runs++ })
    const id = uuidv7()
    await t.db
      .insertInto('jobs')
      .values({ id, name: job.name, payload: JSON.stringify({ n: 'x' }), max_attempts: 5, run_at: new Date(), locked_at: null, locked_by: null, last_error: null, finished_at: null })
      .execute()
    await workerFor([job]).drain()
    expect(runs).toBe(0)
    expect(await findJob(t.db, id)).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringMatching(/does not match its schema/) })
  })

  it("when a worker does not know a job's name, then it leaves the job pending for a worker that does", async () => {
    let runs = 0
    const newer = defineJob({ name: uniqueName('newer-release'), payload: Payload, maxAttempts: 5, handle: async () => void runs++ })
    const id = await enqueueJob(t.db, newer, { n: 1 })
    const other = defineJob({ name: uniqueName('other'), payload: Payload, handle: async () => {} })
    await workerFor([other]).drain()
    expect(await findJob(t.db, id)).toMatchObject({ status: 'pending', attempts: 0, last_error: null })

    await workerFor([other, newer]).drain()
    expect(runs).toBe(1)
    expect(await findJob(t.db, id)).toMatchObject({ status: 'succeeded', attempts: 1 })
  })

  it('when a job was left running by a worker that died, then it is released and run again', async () => {
    const attemptsSeen: number[] = []
    const job = defineJob({ name: uniqueName('orphaned'), payload: Payload, handle: async (_p, { attempt }) => void attemptsSeen.push(attempt) })
    const id = await enqueueJob(t.db, job, { n: 1 })
    // What a worker that claimed the job and then crashed leaves behind.
    await sql`update jobs set status = 'running', attempts = 1, locked_by = 'dead-worker', locked_at = now() - interval '10 minutes'
              where id = ${id}`.execute(t.db)

    await workerFor([job], t.db, { staleAfterMs: 60_000 }).drain()
    expect(attemptsSeen).toEqual([2])
    expect(await findJob(t.db, id)).toMatchObject({ status: 'succeeded', attempts: 2, locked_by: null })
  })

  it('when a job is running for less than the stale limit, then another worker leaves it alone', async () => {
    let runs = 0
    const job = defineJob({ name: uniqueName('busy'), payload: Payload, handle: async () => void runs++ })
    const id = await enqueueJob(t.db, job, { n: 1 })
    await sql`update jobs set status = 'running', attempts = 1, locked_by = 'live-worker', locked_at = now() where id = ${id}`.execute(t.db)

    await workerFor([job], t.db, { staleAfterMs: 60_000 }).drain()
    expect(runs).toBe(0)
    expect(await findJob(t.db, id)).toMatchObject({ status: 'running', locked_by: 'live-worker' })
  })

  it('when a dead worker had taken the last attempt, then the stale job is failed, not retried', async () => {
    let runs = 0
    const job = defineJob({ name: uniqueName('last-try'), payload: Payload, maxAttempts: 1, handle: async () => void runs++ })
    const id = await enqueueJob(t.db, job, { n: 1 })
    await sql`update jobs set status = 'running', attempts = 1, locked_by = 'dead-worker', locked_at = now() - interval '10 minutes'
              where id = ${id}`.execute(t.db)

    await workerFor([job], t.db, { staleAfterMs: 60_000 }).drain()
    expect(runs).toBe(0)
    expect(await findJob(t.db, id)).toMatchObject({ status: 'failed', last_error: 'worker stopped responding during the attempt' })
  })
})

describe('the default backoff', () => {
  it('when attempts fail one after another, then the delay doubles from one second and stops at one hour', () => {
    expect([1, 2, 3, 4].map(exponentialBackoff)).toEqual([1000, 2000, 4000, 8000])
    expect(exponentialBackoff(13)).toBe(3_600_000)
    expect(exponentialBackoff(100)).toBe(3_600_000)
  })
})

describe('GET /jobs (operators)', () => {
  it('when a job failed for good, then operators find it with its last error and every attempt, and partners get 403', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const job = defineJob({
      name: uniqueName('visible'),
      payload: Payload,
      maxAttempts: 2,
      backoffMs: () => 0,
      handle: async (_p, { attempt }) => {
        throw new Error(`refused on attempt ${attempt}`)
      },
    })
    const id = await enqueueJob(t.db, job, { n: 1 })
    await workerFor([job]).drain()

    const list = await call(t.app, operator, 'GET', `/jobs?status=failed&name=${encodeURIComponent(job.name)}`)
    expect(list.statusCode).toBe(200)
    expect(list.headers.total).toBe('1')
    expect(list.json().jobs).toEqual([
      {
        id,
        name: job.name,
        status: 'failed',
        attempts: 2,
        max_attempts: 2,
        run_at: expect.any(String),
        last_error: 'refused on attempt 2',
        created_at: expect.any(String),
        finished_at: expect.any(String),
      },
    ])
    // Payloads stay hidden from the listing.
    expect(list.json().jobs[0]).not.toHaveProperty('payload')

    const pending = await call(t.app, operator, 'GET', `/jobs?status=pending&name=${encodeURIComponent(job.name)}`)
    expect(pending.json().jobs).toEqual([])

    const one = await call(t.app, operator, 'GET', `/jobs/${id}`)
    expect(one.statusCode).toBe(200)
    expect(one.json().job).toMatchObject({ id, status: 'failed', last_error: 'refused on attempt 2' })
    expect(one.json().job.attempt_history).toEqual([
      { attempt: 1, worker_id: expect.any(String), started_at: expect.any(String), finished_at: expect.any(String), outcome: 'failed', error: 'refused on attempt 1' },
      { attempt: 2, worker_id: expect.any(String), started_at: expect.any(String), finished_at: expect.any(String), outcome: 'failed', error: 'refused on attempt 2' },
    ])

    for (const url of ['/jobs?status=failed', `/jobs/${id}`]) {
      const denied = await call(t.app, partner, 'GET', url)
      expect(denied.statusCode, url).toBe(403)
      expect(denied.json().code, url).toBe('forbidden')
    }
  })

  it('when the job id is unknown, then 404', async () => {
    const operator = await t.newOperator()
    const res = await call(t.app, operator, 'GET', `/jobs/${uuidv7()}`)
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe('not_found')
  })
})

describe.runIf(!!process.env.DATABASE_URL)('several workers on PostgreSQL', () => {
  it('when two workers with their own pools drain 200 jobs together, then every job runs exactly once', async () => {
    const url = process.env.DATABASE_URL!
    const first = await openDatabase({ kind: 'postgres', url, poolSize: 4 })
    const second = await openDatabase({ kind: 'postgres', url, poolSize: 4 })
    try {
      const runs = new Map<string, number>()
      const job = defineJob({
        name: uniqueName('crowd'),
        payload: Payload,
        maxAttempts: 1,
        handle: async (_payload, { jobId }) => {
          runs.set(jobId, (runs.get(jobId) ?? 0) + 1)
          // Keeps jobs in flight long enough for the two workers to overlap.
          await new Promise((resolve) => setTimeout(resolve, 2))
        },
      })
      const ids = new Set<string>()
      for (let n = 0; n < 200; n++) ids.add(await enqueueJob(t.db, job, { n }))

      const a = workerFor([job], first.db, { concurrency: 8 })
      const b = workerFor([job], second.db, { concurrency: 8 })
      await Promise.all([a.drain(), b.drain()])

      const mine = [...runs.entries()].filter(([id]) => ids.has(id))
      expect(mine).toHaveLength(200)
      expect(mine.filter(([, count]) => count !== 1)).toEqual([])
      const rows = await t.db.selectFrom('jobs').select(['status', 'attempts']).where('name', '=', job.name).execute()
      expect(rows).toHaveLength(200)
      expect(rows.every((row) => row.status === 'succeeded' && row.attempts === 1)).toBe(true)
      const byWorker = await t.db
        .selectFrom('job_attempts')
        .innerJoin('jobs', 'jobs.id', 'job_attempts.job_id')
        .select(['job_attempts.worker_id', (eb) => eb.fn.countAll<number>().as('count')])
        .where('jobs.name', '=', job.name)
        .groupBy('job_attempts.worker_id')
        .execute()
      // Both took part (else the test proved nothing), and together they ran each job once.
      expect(byWorker.map((row) => row.worker_id).sort()).toEqual([a.id, b.id].sort())
      expect(byWorker.reduce((sum, row) => sum + row.count, 0)).toBe(200)
    } finally {
      await first.close()
      await second.close()
    }
  })
})
