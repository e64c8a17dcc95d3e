import { randomUUID } from 'node:crypto'
import { sql, type KyselyPlugin } from 'kysely'
import pino from 'pino'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config.js'
import type { Db } from '../src/db/schema.js'
import { defineJob, JobRegistry, type JobDefinition } from '../src/jobs/job-definition.js'
import { findJob, listAttempts } from '../src/jobs/jobs.repo.js'
import { enqueueJob } from '../src/jobs/outbox.js'
import { Worker } from '../src/jobs/worker.js'
import { openIsolatedDatabase, waitFor, type IsolatedDatabase } from './helpers/webhooks.js'

// A database of its own: these workers judge with short windows, and only each other.
let isolated: IsolatedDatabase
let db: Db
beforeAll(async () => {
  isolated = await openIsolatedDatabase()
  db = isolated.handle.db
})
afterAll(async () => isolated?.close())

const silent = pino({ level: 'silent' })
// Short, for the tests' sake, but not so short that a loaded CI machine (a beat more than two
// intervals late breaks a worker's run of punctual beats, and only a punctual worker judges)
// keeps every worker from judging: 100 ms beats did, once, under the full PostgreSQL suite, and
// 250 ms beats did too (no run of twelve punctual beats in 18 s). Six beats of 500 ms, each
// allowed to slip by 500 ms, fill the dead window; the waits below leave room for several tries.
const HEARTBEAT_MS = 500
const DEAD_AFTER_MS = 3000
// Waits long enough for a loaded machine, yet far below the stale window (600 s) these tests
// prove is not the one that applies.
const SLOW_TEST_MS = 90_000
// A beat is one write, due within HEARTBEAT_MS; a loaded machine (two files, each with its own
// embedded database, on two cores) can hold it back for seconds. Inside the 30 s test timeout.
const BEAT_WAIT_MS = 15_000
const Payload = Type.Object({ n: Type.Integer() })
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

function workerFor(definition: JobDefinition, on: Db = db, overrides: { staleAfterMs?: number } = {}): Worker {
  return new Worker({
    db: on,
    registry: new JobRegistry([definition]),
    log: silent,
    concurrency: 2,
    pollMs: 20,
    heartbeatMs: HEARTBEAT_MS,
    deadAfterMs: DEAD_AFTER_MS,
    // Far beyond every test: only heartbeats can release a job here.
    staleAfterMs: overrides.staleAfterMs ?? 600_000,
  })
}

/** The database as a worker sees it, until cut: then every query fails, as for a killed process. */
function severable(on: Db): { db: Db; cut(): void; restore(): void } {
  let cut = false
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      if (cut) throw new Error('this worker is gone')
      return args.node
    },
    transformResult: async (args) => args.result,
  }
  return { db: on.withPlugin(plugin), cut: () => (cut = true), restore: () => (cut = false) }
}

async function heartbeatRow(id: string) {
  const result = await sql<{ id: string; heartbeat_at: Date }>`select id, heartbeat_at from worker_heartbeats where id = ${id}`.execute(db)
  return result.rows[0]
}

/** A job whose attempts the test can watch; `hold` decides how long each attempt lasts. */
function watchedJob(hold: (attempt: number) => Promise<void>) {
  const started: number[] = []
  const definition = defineJob({
    name: `test.liveness.${randomUUID()}`,
    payload: Payload,
    maxAttempts: 3,
    handle: async (_payload, { attempt }) => {
      started.push(attempt)
      await hold(attempt)
    },
  })
  return { definition, started }
}

describe('a worker that stops beating', () => {
  // The doomed worker starts alone and must hold the first attempt before the survivor starts: with
  // both started together, on PostgreSQL (a pool, so the two polls race) the survivor sometimes
  // claimed the first attempt itself, which hangs until the test ends, and nothing was ever
  // released (two CI runs of 2026-11-26 timed out so).
  it('when it stops mid-job, then another worker runs the job again once the dead window has passed, not after the stale window', async () => {
    let endHang!: () => void
    const hang = new Promise<void>((resolve) => (endHang = resolve))
    const { definition, started } = watchedJob((attempt) => (attempt === 1 ? hang : Promise.resolve()))
    const id = await enqueueJob(db, definition, { n: 1 })
    const doomed = severable(db)
    const first = workerFor(definition, doomed.db)
    const second = workerFor(definition)
    first.start()
    try {
      await waitFor(() => (started.length > 0 ? true : undefined), 10_000, 'the first attempt')
      expect((await findJob(db, id))?.locked_by).toBe(first.id)
      second.start()
      const cutAt = Date.now()
      doomed.cut()
      const job = await waitFor(async () => {
        const row = await findJob(db, id)
        return row?.status === 'succeeded' ? row : undefined
      }, DEAD_AFTER_MS + 45_000, 'the job to run again')
      // Not before the dead worker's last beat was a whole window old.
      expect(Date.now() - cutAt).toBeGreaterThan(DEAD_AFTER_MS - 2 * HEARTBEAT_MS)
      expect(started).toEqual([1, 2])
      expect(job).toMatchObject({ attempts: 2, locked_by: null })
      // The dead attempt was never recorded; the one that finished is the second worker's.
      expect((await listAttempts(db, id)).map((a) => [a.attempt, a.worker_id])).toEqual([[2, second.id]])
      expect(await heartbeatRow(first.id)).toBeUndefined()
      expect(await heartbeatRow(second.id)).toBeDefined()
    } finally {
      endHang()
      await Promise.all([first.stop(), second.stop()])
    }
  }, SLOW_TEST_MS)

  it('when a worker whose row was removed (presumed dead) beats again, then it is registered again', async () => {
    const { definition } = watchedJob(async () => {})
    const worker = workerFor(definition)
    worker.start()
    try {
      await waitFor(() => heartbeatRow(worker.id), BEAT_WAIT_MS, 'the first beat')
      await sql`delete from worker_heartbeats where id = ${worker.id}`.execute(db)
      await waitFor(() => heartbeatRow(worker.id), BEAT_WAIT_MS, 'the worker to register again')
    } finally {
      await worker.stop()
    }
  })
})

describe('a live worker', () => {
  it('when its job runs far past the dead and the stale windows, then no other worker takes it', async () => {
    const { definition, started } = watchedJob(() => sleep(2 * DEAD_AFTER_MS))
    const id = await enqueueJob(db, definition, { n: 1 })
    // A stale window shorter than the job: it no longer applies to a worker that beats.
    const first = workerFor(definition, db, { staleAfterMs: 1000 })
    first.start()
    await waitFor(() => (started.length > 0 ? true : undefined), 10_000, 'the attempt')
    const second = workerFor(definition, db, { staleAfterMs: 1000 })
    second.start()
    try {
      await waitFor(async () => ((await findJob(db, id))?.status === 'succeeded' ? true : undefined), 4 * DEAD_AFTER_MS + 10_000, 'the job')
      expect(started).toEqual([1])
      expect((await listAttempts(db, id)).map((a) => [a.attempt, a.worker_id])).toEqual([[1, first.id]])
    } finally {
      await Promise.all([first.stop(), second.stop()])
    }
  }, SLOW_TEST_MS)

  it('when the whole process stalls longer than the dead window, then its workers do not take each other for dead', async () => {
    let stallOver = 0
    // The attempt ends a few beats after the stall, giving every worker time to judge wrongly.
    const { definition, started } = watchedJob(async () => {
      while (stallOver === 0 || Date.now() < stallOver + 10 * HEARTBEAT_MS) await sleep(20)
    })
    const id = await enqueueJob(db, definition, { n: 1 })
    const first = workerFor(definition)
    const second = workerFor(definition)
    first.start()
    await waitFor(() => (started.length > 0 ? true : undefined), 10_000, 'the attempt')
    second.start()
    try {
      await sleep(DEAD_AFTER_MS + 5 * HEARTBEAT_MS)
      // Synchronous work (or a long collection) blocks every timer of the process, beats included.
      const until = Date.now() + 2 * DEAD_AFTER_MS
      while (Date.now() < until) {
        /* busy */
      }
      stallOver = Date.now()
      await waitFor(async () => ((await findJob(db, id))?.status === 'succeeded' ? true : undefined), 30_000, 'the job')
      expect(started).toEqual([1])
      expect(await heartbeatRow(first.id)).toBeDefined()
    } finally {
      await Promise.all([first.stop(), second.stop()])
    }
  }, SLOW_TEST_MS)
})

describe('an attempt that could not be recorded', () => {
  it('when the database is away as a job finishes, then the worker records the attempt once it is back', async () => {
    const connection = severable(db)
    const { definition, started } = watchedJob(async () => {
      connection.cut()
      setTimeout(() => connection.restore(), 5 * HEARTBEAT_MS)
    })
    const id = await enqueueJob(db, definition, { n: 1 })
    const worker = workerFor(definition, connection.db)
    worker.start()
    try {
      const job = await waitFor(async () => {
        const row = await findJob(db, id)
        return row?.status === 'succeeded' ? row : undefined
      }, 15_000, 'the attempt to be recorded')
      expect(started).toEqual([1])
      expect(job).toMatchObject({ attempts: 1, locked_by: null })
      expect((await listAttempts(db, id)).map((a) => [a.attempt, a.worker_id, a.outcome])).toEqual([[1, worker.id, 'succeeded']])
    } finally {
      await worker.stop()
    }
  })
})

describe('a clean stop', () => {
  it('when a started worker stops, then its heartbeat row is removed', async () => {
    const { definition } = watchedJob(async () => {})
    const worker = workerFor(definition)
    worker.start()
    await waitFor(() => heartbeatRow(worker.id), BEAT_WAIT_MS, 'the first beat')
    await worker.stop()
    expect(await heartbeatRow(worker.id)).toBeUndefined()
  })
})

describe('heartbeat configuration', () => {
  it('when nothing is set, then workers beat every 5 s and are presumed dead after 30 s', () => {
    expect(loadConfig({}).worker).toMatchObject({ heartbeatMs: 5000, deadAfterMs: 30_000 })
  })

  it('when the dead window is not at least three heartbeats, then the start is refused', () => {
    expect(() => loadConfig({ WORKER_HEARTBEAT_MS: '10000', WORKER_DEAD_AFTER_MS: '20000' })).toThrow(ConfigError)
    expect(() => loadConfig({ WORKER_HEARTBEAT_MS: '10000', WORKER_DEAD_AFTER_MS: '20000' })).toThrow(/at least three times WORKER_HEARTBEAT_MS/)
    expect(loadConfig({ WORKER_HEARTBEAT_MS: '1000', WORKER_DEAD_AFTER_MS: '3000' }).worker).toMatchObject({ heartbeatMs: 1000, deadAfterMs: 3000 })
  })
})
