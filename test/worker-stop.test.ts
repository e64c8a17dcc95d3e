import pino from 'pino'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle } from '../src/db/database.js'
import { defineJob, JobRegistry } from '../src/jobs/job-definition.js'
import { enqueueJob } from '../src/jobs/outbox.js'
import { Worker } from '../src/jobs/worker.js'
import { openTestDatabase } from './helpers/test-app.js'

let database: DatabaseHandle
beforeAll(async () => {
  database = await openTestDatabase()
})
afterAll(async () => database?.close())

describe('stopping a worker (SIGTERM)', () => {
  it('when stop() is called while a job runs, then it waits for that job, records it, and claims nothing new', async () => {
    let releaseJob!: () => void
    const jobMayFinish = new Promise<void>((resolve) => (releaseJob = resolve))
    let markStarted!: () => void
    const jobStarted = new Promise<void>((resolve) => (markStarted = resolve))
    const definition = defineJob({
      name: `slow-${crypto.randomUUID()}`,
      payload: Type.Object({ n: Type.Integer() }),
      handle: async () => {
        markStarted()
        await jobMayFinish
      },
    })
    const registry = new JobRegistry([definition])
    const first = await enqueueJob(database.db, definition, { n: 1 })
    const worker = new Worker({ db: database.db, registry, log: pino({ level: 'silent' }), concurrency: 1, pollMs: 20 })
    worker.start()
    await jobStarted
    const second = await enqueueJob(database.db, definition, { n: 2 })

    let stopped = false
    const stopping = worker.stop().then(() => (stopped = true))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(stopped).toBe(false)
    releaseJob()
    await stopping

    const rows = await database.db.selectFrom('jobs').select(['id', 'status']).where('id', 'in', [first, second]).execute()
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({ [first]: 'succeeded', [second]: 'pending' })
  })
})
