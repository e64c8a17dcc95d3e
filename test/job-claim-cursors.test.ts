import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import pino from 'pino'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineJob, JobRegistry } from '../src/jobs/job-definition.js'
import { claimDue } from '../src/jobs/jobs.repo.js'
import { enqueueJob } from '../src/jobs/outbox.js'
import { Worker } from '../src/jobs/worker.js'
import { startTestApp, type TestApp } from './helpers/test-app.js'

// Issue 16, point 3: during a burst a worker's claims read each account's backlog on from where
// its last claim stopped (claimFairly), instead of past every job claimed before.
let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const Payload = Type.Object({ account: Type.String(), n: Type.Integer() }, { additionalProperties: false })
const uniqueName = (what: string) => `test.${what}.${randomUUID()}`
const account = (what: string) => `${what}-${randomUUID()}`

describe('claiming a backlog from cursors', () => {
  it('when a worker drains two accounts in bursts, then every job runs once, each account oldest first, and a new account is served within the next claims', async () => {
    const started: Array<{ account: string; n: number }> = []
    const job = defineJob({
      name: uniqueName('cursor-burst'),
      payload: Payload,
      handle: async (payload) => {
        started.push(payload)
        await new Promise((resolve) => setTimeout(resolve, 5))
      },
    })
    const [a, b, late] = [account('a'), account('b'), account('late')]
    await t.db.transaction().execute(async (tx) => {
      for (let n = 0; n < 40; n++) {
        await enqueueJob(tx, job, { account: a, n }, { fairness: { key: a, destination: null } })
        await enqueueJob(tx, job, { account: b, n }, { fairness: { key: b, destination: null } })
      }
    })
    // Only freed slots wake it: every claim after the first is a burst's.
    const worker = new Worker({ db: t.db, registry: new JobRegistry([job]), log: pino({ level: 'silent' }), concurrency: 4, pollMs: 60_000 })
    worker.start()
    let startedBeforeLate = 0
    try {
      const deadline = Date.now() + 20_000
      while (started.length < 12 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2))
      startedBeforeLate = started.length
      await enqueueJob(t.db, job, { account: late, n: 0 }, { fairness: { key: late, destination: null } })
      while (started.length < 81 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    } finally {
      await worker.stop()
    }
    const of = (key: string) => started.filter((p) => p.account === key).map((p) => p.n)
    expect(of(a)).toEqual(Array.from({ length: 40 }, (_, n) => n))
    expect(of(b)).toEqual(Array.from({ length: 40 }, (_, n) => n))
    // Two claims of four slots at most after it was queued, not after the 80 others.
    const lateAt = started.findIndex((p) => p.account === late)
    expect(lateAt).toBeGreaterThanOrEqual(0)
    expect(lateAt - startedBeforeLate).toBeLessThanOrEqual(12)
  })

  it('when a job behind the cursor goes back to pending, then claims from the cursor pass it and the next claim from the start takes it', async () => {
    const job = defineJob({ name: uniqueName('cursor-behind'), payload: Payload, handle: async () => {} })
    const key = account('behind')
    const ids: string[] = []
    await t.db.transaction().execute(async (tx) => {
      for (let n = 0; n < 6; n++) ids.push(await enqueueJob(tx, job, { account: key, n }, { fairness: { key, destination: null } }))
    })
    // One run_at to the microsecond for all (as a burst queued in one transaction): the cursor
    // must keep the microseconds, or it would fall before every job and read them all again.
    await sql`update jobs set run_at = '2026-01-01 00:00:00.123456+00' where name = ${job.name}`.execute(t.db)
    const claim = (cursors = first.cursors ?? []) => claimDue(t.db, 'cursor-test-worker', 2, [job.name], { expectFair: true, cursors })
    const first = await claimDue(t.db, 'cursor-test-worker', 2, [job.name], { expectFair: true })
    expect(first.jobs.map((j) => j.id)).toEqual(ids.slice(0, 2))
    expect(first.cursors).toEqual([{ key, runAt: expect.stringContaining('.123456') as unknown, id: ids[1] }])

    // Its worker presumed dead: the first job is pending again, behind the cursor.
    await t.db.updateTable('jobs').set({ status: 'pending', locked_by: null, locked_at: null }).where('id', '=', ids[0]!).execute()
    const fromCursor = await claim()
    expect(fromCursor.readOn).toBe(true)
    expect(fromCursor.jobs.map((j) => j.id).sort()).toEqual(ids.slice(2, 4))

    const fromStart = await claim([])
    expect(fromStart.readOn).toBe(false)
    expect(fromStart.jobs.map((j) => j.id).sort()).toEqual([ids[0], ids[4]].sort())
  })

  it('when a claim is for the one slot just freed, then it goes to the account with the fewest jobs running in the worker, not to the oldest backlog', async () => {
    const job = defineJob({ name: uniqueName('running-rounds'), payload: Payload, handle: async () => {} })
    const [busy, fresh, later] = [account('busy'), account('fresh'), account('later')]
    const busyIds: string[] = []
    await t.db.transaction().execute(async (tx) => {
      for (let n = 0; n < 6; n++) busyIds.push(await enqueueJob(tx, job, { account: busy, n }, { fairness: { key: busy, destination: null } }))
    })
    const claimOne = (options: Parameters<typeof claimDue>[4]) => claimDue(t.db, 'running-rounds-worker', 1, [job.name], { expectFair: true, slots: 4, ...options })

    // Nothing running yet: the oldest due job of all.
    const first = await claimOne({})
    expect(first.jobs.map((j) => j.id)).toEqual([busyIds[0]])
    const freshId = await enqueueJob(t.db, job, { account: fresh, n: 0 }, { fairness: { key: fresh, destination: null } })

    // Reading on from the cursors, with one of busy's jobs running: fresh's is in round one, busy's next in round two.
    const fromCursors = await claimOne({ cursors: first.cursors!, running: new Map([[busy, 1]]) })
    expect(fromCursors.readOn).toBe(true)
    expect(fromCursors.jobs.map((j) => j.id)).toEqual([freshId])

    // From the start too, whatever the age of the backlog.
    const laterId = await enqueueJob(t.db, job, { account: later, n: 0 }, { fairness: { key: later, destination: null } })
    const fromStart = await claimOne({ running: new Map([[busy, 3], [fresh, 1]]) })
    expect(fromStart.readOn).toBe(false)
    expect(fromStart.jobs.map((j) => j.id)).toEqual([laterId])

    // Told nothing of what runs, a claim of one takes the oldest, as before.
    const told = await claimOne({})
    expect(told.jobs.map((j) => j.id)).toEqual([busyIds[1]])
  })
})
