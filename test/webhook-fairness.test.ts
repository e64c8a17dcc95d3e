import { createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { claimDueJobs } from '../src/jobs/jobs.repo.js'
import type { Workers } from '../src/main/workers.js'
import { recordDestinationAnswered, recordDestinationFailure } from '../src/modules/watchers/destination-health.repo.js'
import { call, expectProblem, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'
import { emitTestEvent, openIsolatedDatabase, startReceiver, startWorkers, testWebhookSettings, waitFor, type IsolatedDatabase, type Receiver } from './helpers/webhooks.js'

// Issue 15, point 3: one account cannot hold up another's webhooks.
let isolated: IsolatedDatabase
let t: TestApp
beforeAll(async () => {
  // An isolated database: the claims below would otherwise take other files' due deliveries.
  isolated = await openIsolatedDatabase()
  t = await startTestApp({ database: isolated.handle, webhooks: testWebhookSettings({ watchersPerAccountLimit: 3 }) })
})
afterAll(async () => {
  await t?.close()
  await isolated?.close()
})

const DELIVER = ['webhook.deliver']

async function createWatcher(partner: Credential, url: string) {
  return call(t.app, partner, 'POST', '/watchers', { watcher: { url, event_types: ['error.created'] } })
}

async function watcherTo(partner: Credential, url: string): Promise<string> {
  const res = await createWatcher(partner, url)
  expect(res.statusCode, res.body).toBe(201)
  return res.json().watcher.id as string
}

/** Every due delivery job is finished, so each test claims only the jobs it queued. */
async function clearQueue(): Promise<void> {
  await t.db.updateTable('jobs').set({ status: 'succeeded', finished_at: new Date() }).where('status', 'in', ['pending', 'running']).execute()
  await t.db.deleteFrom('destination_health').execute()
}

/** The delivery id of each claimed job. */
const deliveryIds = (jobs: { payload: unknown }[]) => jobs.map((job) => (job.payload as { delivery_id: string }).delivery_id)

async function deliveriesOf(watcherId: string) {
  return t.db.selectFrom('watcher_deliveries').select(['id', 'status', 'attempts']).where('watcher_id', '=', watcherId).orderBy('created_at').orderBy('id').execute()
}

describe('the watcher limit per account', () => {
  it('when an account has as many watchers as the limit, then another is refused with 422 watcher_limit_reached until one is deleted; other accounts are not affected', async () => {
    const partner = await t.newPartner()
    const ids = []
    for (let n = 0; n < 3; n++) ids.push(await watcherTo(partner, `http://127.0.0.1:9/hook-${n}`))

    const refused = await createWatcher(partner, 'http://127.0.0.1:9/one-too-many')
    expectProblem(refused, 422, 'watcher_limit_reached')
    expect(refused.json().detail).toContain('3 watchers')
    expect((await call(t.app, partner, 'GET', '/watchers')).json().watchers).toHaveLength(3)

    // Another account has its own allowance.
    await watcherTo(await t.newPartner(), 'http://127.0.0.1:9/elsewhere')

    // A deleted watcher does not count; a disabled one does.
    await call(t.app, partner, 'PATCH', `/watchers/${ids[0]}`, { watcher: { status: 'disabled' } })
    expectProblem(await createWatcher(partner, 'http://127.0.0.1:9/still-too-many'), 422, 'watcher_limit_reached')
    expect((await call(t.app, partner, 'DELETE', `/watchers/${ids[1]}`)).statusCode).toBe(204)
    await watcherTo(partner, 'http://127.0.0.1:9/in-its-place')
  })

  it('when several creations race for the last places, then no more than the limit are created', async () => {
    const partner = await t.newPartner()
    const answers = await Promise.all(Array.from({ length: 6 }, (_, n) => createWatcher(partner, `http://127.0.0.1:9/race-${n}`)))
    expect(answers.filter((res) => res.statusCode === 201)).toHaveLength(3)
    for (const res of answers.filter((answer) => answer.statusCode !== 201)) expectProblem(res, 422, 'watcher_limit_reached')
  })
})

describe('claiming deliveries fairly', () => {
  afterEach(clearQueue)

  it("when one account has a backlog, then another account's fresh delivery is taken in the next claim, and the backlog oldest first", async () => {
    const busy = await t.newPartner()
    const quiet = await t.newPartner()
    const busyWatcher = await watcherTo(busy, 'http://127.0.0.1:9/busy')
    const quietWatcher = await watcherTo(quiet, 'http://127.0.0.1:10/quiet')
    // The busy receiver is known to answer, so no cap applies to it: only the order is fair.
    await recordDestinationAnswered(t.db, 'http://127.0.0.1:9')
    for (let n = 0; n < 20; n++) await emitTestEvent(t.db, busy.accountId)
    await emitTestEvent(t.db, quiet.accountId)

    const claimed = deliveryIds(await claimDueJobs(t.db, 'fairness-test-worker', 4, DELIVER))
    const backlog = (await deliveriesOf(busyWatcher)).map((delivery) => delivery.id)
    const [fresh] = (await deliveriesOf(quietWatcher)).map((delivery) => delivery.id)
    expect(claimed).toHaveLength(4)
    expect(claimed).toContain(fresh)
    expect(claimed.filter((id) => id !== fresh).sort()).toEqual(backlog.slice(0, 3).sort())
  })

  it('when deliveries go to a receiver not yet known to answer, then they hold at most half the slots; once it answers, every slot', async () => {
    const partner = await t.newPartner()
    await watcherTo(partner, 'http://127.0.0.1:11/new')
    for (let n = 0; n < 12; n++) await emitTestEvent(t.db, partner.accountId)

    // 8 free slots: 4 for a receiver that has never answered (a black hole would hang them all).
    expect(await claimDueJobs(t.db, 'fairness-cap-worker', 8, DELIVER)).toHaveLength(4)
    // This worker holds those 4 of its 8 slots: nothing more until they finish.
    expect(await claimDueJobs(t.db, 'fairness-cap-worker', 4, DELIVER)).toHaveLength(0)

    await recordDestinationAnswered(t.db, 'http://127.0.0.1:11')
    expect(await claimDueJobs(t.db, 'fairness-cap-worker', 4, DELIVER)).toHaveLength(4)
  })
})

describe('backing off a destination that keeps failing', () => {
  afterEach(clearQueue)
  const policy = { threshold: 3, firstBlockSeconds: 60 }
  const destination = 'http://127.0.0.1:12'

  async function health() {
    return t.db.selectFrom('destination_health').selectAll().where('destination', '=', destination).executeTakeFirstOrThrow()
  }

  /** Ends the block now, as if its time had passed. */
  async function endBlock() {
    await t.db.updateTable('destination_health').set({ blocked_until: sql`now() - interval '1 second'` }).where('destination', '=', destination).execute()
  }

  it('when it fails past the threshold, then its deliveries wait; when the block ends one probe goes; a failed probe blocks it twice as long; an answer releases them all', async () => {
    const failing = await t.newPartner()
    const other = await t.newPartner()
    await watcherTo(failing, `${destination}/hook`)
    await watcherTo(other, 'http://127.0.0.1:13/hook')
    await recordDestinationAnswered(t.db, 'http://127.0.0.1:13')
    for (let n = 0; n < 5; n++) await emitTestEvent(t.db, failing.accountId)

    expect(await recordDestinationFailure(t.db, destination, 'connection failed (ECONNREFUSED)', policy)).toBeNull()
    expect(await recordDestinationFailure(t.db, destination, 'connection failed (ECONNREFUSED)', policy)).toBeNull()
    const blockedUntil = await recordDestinationFailure(t.db, destination, 'no response within 2000 ms', policy)
    expect(blockedUntil!.getTime()).toBeGreaterThan(Date.now() + 50_000)
    // An attempt that started before the block and fails after it leaves the block as it is.
    expect(await recordDestinationFailure(t.db, destination, 'no response within 2000 ms', policy)).toEqual(blockedUntil)

    // Blocked: none of its deliveries is claimed, another account's is.
    await emitTestEvent(t.db, other.accountId)
    const whileBlocked = await claimDueJobs(t.db, 'backoff-worker', 16, DELIVER)
    expect(whileBlocked.map((job) => job.destination)).toEqual(['http://127.0.0.1:13'])

    // The block ends: one probe, and no other while it runs.
    await endBlock()
    const probe = await claimDueJobs(t.db, 'backoff-worker', 16, DELIVER)
    expect(probe.map((job) => job.destination)).toEqual([destination])
    expect(await claimDueJobs(t.db, 'another-worker', 16, DELIVER)).toEqual([])

    // The probe fails: blocked again, for twice as long.
    await t.db.updateTable('jobs').set({ status: 'failed', finished_at: new Date() }).where('id', '=', probe[0]!.id).execute()
    const again = await recordDestinationFailure(t.db, destination, 'no response within 2000 ms', policy)
    expect(again!.getTime() - Date.now()).toBeGreaterThan(110_000)
    expect(await health()).toMatchObject({ blocks: 2, consecutive_failures: 5 })
    expect(await claimDueJobs(t.db, 'backoff-worker', 16, DELIVER)).toEqual([])

    // It answers (a probe got through): the rest go, as to any receiver that answers.
    await recordDestinationAnswered(t.db, destination)
    expect(await health()).toMatchObject({ blocks: 0, consecutive_failures: 0, blocked_until: null })
    expect(await claimDueJobs(t.db, 'backoff-worker', 16, DELIVER)).toHaveLength(4)
  })
})

describe('retrying by hand while a receiver is backed off', () => {
  afterEach(clearQueue)

  it('when a delivery of a blocked receiver is retried by hand, then that attempt is claimed at once, while its other deliveries wait', async () => {
    const partner = await t.newPartner()
    const watcher = await watcherTo(partner, 'http://127.0.0.1:14/hook')
    await emitTestEvent(t.db, partner.accountId)
    await emitTestEvent(t.db, partner.accountId)
    const [first] = await deliveriesOf(watcher)
    // The first delivery failed earlier (its job is done); the second is still queued.
    await t.db.updateTable('watcher_deliveries').set({ status: 'failed', attempts: 8 }).where('id', '=', first!.id).execute()
    await t.db.updateTable('jobs').set({ status: 'failed' }).where(sql<boolean>`payload->>'delivery_id' = ${first!.id}`).execute()
    await recordDestinationFailure(t.db, 'http://127.0.0.1:14', 'connection failed (ECONNREFUSED)', { threshold: 1, firstBlockSeconds: 600 })

    const retried = await call(t.app, partner, 'POST', `/watcher_deliveries/${first!.id}/retry`)
    expect(retried.statusCode, retried.body).toBe(200)
    const claimed = await claimDueJobs(t.db, 'manual-retry-worker', 16, DELIVER)
    expect(claimed.map((job) => job.payload)).toEqual([{ delivery_id: first!.id, attempt: 9, manual: true }])
  })
})

describe('a backed-off receiver whose watcher goes', () => {
  afterEach(clearQueue)

  it('when the watcher of a blocked receiver is deleted or disabled, then its queued deliveries are claimed at once, to fail unsent', async () => {
    const partner = await t.newPartner()
    const deleted = await watcherTo(partner, 'http://127.0.0.1:15/deleted')
    const disabled = await watcherTo(partner, 'http://127.0.0.1:15/disabled')
    await emitTestEvent(t.db, partner.accountId)
    await recordDestinationFailure(t.db, 'http://127.0.0.1:15', 'connection failed (ECONNREFUSED)', { threshold: 1, firstBlockSeconds: 600 })
    expect(await claimDueJobs(t.db, 'watcher-gone-worker', 16, DELIVER)).toEqual([])

    expect((await call(t.app, partner, 'DELETE', `/watchers/${deleted}`)).statusCode).toBe(204)
    expect((await call(t.app, partner, 'PATCH', `/watchers/${disabled}`, { watcher: { status: 'disabled' } })).statusCode).toBe(200)
    const claimed = deliveryIds(await claimDueJobs(t.db, 'watcher-gone-worker', 16, DELIVER))
    const queued = [...(await deliveriesOf(deleted)), ...(await deliveriesOf(disabled))].map((delivery) => delivery.id)
    expect(claimed.sort()).toEqual(queued.sort())
  })
})

describe('a black hole next to a healthy receiver, with running workers', () => {
  let workers: Workers | undefined
  let blackHole: BlackHole | undefined
  let healthy: Receiver | undefined
  afterEach(async () => {
    await workers?.stop()
    await healthy?.close()
    await blackHole?.close()
    await clearQueue()
  })

  it("when one account's receiver never answers, then it is backed off after the threshold with its other deliveries untried, and another account's deliveries still arrive", async () => {
    blackHole = await startBlackHole()
    healthy = await startReceiver()
    const stuck = await t.newPartner()
    const fine = await t.newPartner()
    const stuckWatcher = await watcherTo(stuck, `${blackHole.origin}/hook`)
    await watcherTo(fine, `${healthy.origin}/hook`)
    for (let n = 0; n < 6; n++) await emitTestEvent(t.db, stuck.accountId)

    workers = startWorkers(t.db, testWebhookSettings({ timeoutMs: 300, retryScheduleSeconds: [0, 0, 0], hostFailureThreshold: 2, hostBackoffSeconds: 600, concurrency: 4 }))
    const blocked = await waitFor(async () => {
      const row = await t.db.selectFrom('destination_health').selectAll().where('destination', '=', blackHole!.origin).executeTakeFirst()
      return row?.blocked_until ? row : undefined
    }, 15_000, 'the black hole to be backed off')
    expect(blocked.consecutive_failures).toBeGreaterThanOrEqual(2)

    await emitTestEvent(t.db, fine.accountId)
    await healthy.received(1)
    // Attempts that began before the block have ended (at the timeout), and no other has begun.
    await waitFor(async () => {
      const running = await t.db.selectFrom('jobs').select('id').where('status', '=', 'running').where('destination', '=', blackHole!.origin).execute()
      return running.length === 0 ? true : undefined
    })
    // At most the slots it was allowed (half of 4) were tried before the block; the rest wait, untried and pending.
    const stuckDeliveries = await deliveriesOf(stuckWatcher)
    expect(stuckDeliveries.every((delivery) => delivery.status === 'pending')).toBe(true)
    expect(stuckDeliveries.filter((delivery) => delivery.attempts === 0).length).toBeGreaterThanOrEqual(2)
    expect(blackHole.connections()).toBe(stuckDeliveries.reduce((sum, delivery) => sum + delivery.attempts, 0))
    // Its waits allow 15 + 10 + 10 s on a loaded machine, more than the 30 s default (1.4 s observed).
  }, 60_000)
})

interface BlackHole {
  origin: string
  connections(): number
  close(): Promise<void>
}

/** A TCP server that accepts connections and never answers: a receiver that hangs every request. */
async function startBlackHole(): Promise<BlackHole> {
  const sockets = new Set<Socket>()
  let connections = 0
  const server = createServer((socket) => {
    connections += 1
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

describe('recording that a trusted destination answered', () => {
  const destination = 'http://127.0.0.1:14'

  it('when its first answer comes, then it is recorded trusted; answers within the minute write nothing', async () => {
    await t.db.deleteFrom('destination_health').where('destination', '=', destination).execute()
    await recordDestinationAnswered(t.db, destination)
    const first = await t.db.selectFrom('destination_health').selectAll().where('destination', '=', destination).executeTakeFirstOrThrow()
    expect(first).toMatchObject({ consecutive_failures: 0, blocked_until: null })
    expect(first.last_success_at).not.toBeNull()
    await recordDestinationAnswered(t.db, destination)
    const second = await t.db.selectFrom('destination_health').selectAll().where('destination', '=', destination).executeTakeFirstOrThrow()
    expect(second.updated_at).toEqual(first.updated_at)
  })

  it.skipIf(!process.env.DATABASE_URL)('when another delivery to it has recorded its answer and not committed yet, then this one does not wait for it (PostgreSQL)', async () => {
    await recordDestinationAnswered(t.db, destination)
    await t.db.transaction().execute(async (tx) => {
      await recordDestinationAnswered(tx, destination)
      // The other delivery, on its own connection, while this transaction stays open.
      const outcome = await Promise.race([
        recordDestinationAnswered(t.db, destination).then(() => 'recorded'),
        new Promise((resolve) => setTimeout(() => resolve('waited on the row lock'), 3_000)),
      ])
      expect(outcome).toBe('recorded')
    })
  })
})
