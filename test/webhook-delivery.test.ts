import { Webhook } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { enqueueJob } from '../src/jobs/outbox.js'
import type { Workers } from '../src/main/workers.js'
import { WEBHOOK_DELIVERY_JOB } from '../src/modules/events/events.js'
import type { WebhookSettings } from '../src/modules/watchers/webhook-settings.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'
import {
  emitTestEvent,
  openIsolatedDatabase,
  startReceiver,
  startWorkers,
  testWebhookSettings,
  waitFor,
  type Behaviour,
  type IsolatedDatabase,
  type Receiver,
} from './helpers/webhooks.js'

let isolated: IsolatedDatabase
let t: TestApp
beforeAll(async () => {
  isolated = await openIsolatedDatabase()
  // Loopback receivers are allowed: the address checks have their own file.
  t = await startTestApp({ database: isolated.handle, webhooks: testWebhookSettings() })
})
afterAll(async () => {
  await t?.close()
  await isolated?.close()
})

const receivers: Receiver[] = []
let workers: Workers | undefined
afterEach(async () => {
  await workers?.stop()
  workers = undefined
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()))
})

async function receiver(behaviour?: Behaviour): Promise<Receiver> {
  const started = await startReceiver(behaviour)
  receivers.push(started)
  return started
}

function runWorkers(overrides: Partial<WebhookSettings> = {}): void {
  workers = startWorkers(t.db, testWebhookSettings(overrides))
}

async function createWatcher(partner: Credential, url: string, extra: Record<string, unknown> = {}) {
  const res = await call(t.app, partner, 'POST', '/watchers', { watcher: { url, event_types: ['error.created'], ...extra } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().watcher as { id: string; secret: string }
}

interface DeliveryView {
  id: string
  status: string
  attempts: number
  last_status_code: number | null
  last_error: string | null
  next_attempt_at: string | null
  delivered_at: string | null
  attempt_history: Array<{ attempt: number; status_code: number | null; error: string | null; outcome: string; duration_ms: number }>
}

async function onlyDelivery(partner: Credential, watcherId: string): Promise<DeliveryView> {
  const res = await call(t.app, partner, 'GET', `/watchers/${watcherId}/deliveries`)
  expect(res.statusCode, res.body).toBe(200)
  const [delivery, ...others] = res.json().watcher_deliveries as DeliveryView[]
  expect(others).toEqual([])
  return delivery!
}

/** Waits until the watcher's one delivery is no longer pending, through the API. */
function finished(partner: Credential, watcherId: string, timeoutMs = 10_000): Promise<DeliveryView> {
  return waitFor(async () => {
    const delivery = await onlyDelivery(partner, watcherId)
    return delivery.status === 'pending' ? undefined : delivery
  }, timeoutMs, 'the delivery to finish')
}

const headersOf = (request: { headers: Record<string, string | string[] | undefined> }) => ({
  'webhook-id': String(request.headers['webhook-id']),
  'webhook-timestamp': String(request.headers['webhook-timestamp']),
  'webhook-signature': String(request.headers['webhook-signature']),
})

describe('delivering an event', () => {
  it('when the receiver answers 200, then it gets the payload once with Standard Webhooks headers a consumer library verifies', async () => {
    const partner = await t.newPartner()
    const hook = await receiver()
    const watcher = await createWatcher(partner, `${hook.origin}/hooks?source=enrollsync`)
    await emitTestEvent(t.db, partner.accountId)
    runWorkers()

    const delivery = await finished(partner, watcher.id)
    const [request] = hook.requests
    expect(hook.requests).toHaveLength(1)
    expect(request).toMatchObject({ method: 'POST', path: '/hooks?source=enrollsync' })
    expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'Enrollsync-Webhooks/1.0', 'webhook-id': delivery.id })
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60)
    expect(String(request!.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    const verified = new Webhook(watcher.secret).verify(request!.body, headersOf(request!))
    expect(verified).toEqual({
      id: expect.any(String),
      type: 'error.created',
      timestamp: expect.any(String),
      account_id: partner.accountId,
      data: { error_id: expect.any(String), status: 'unresolved', assignee: 'partner' },
    })
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request!.body, headersOf(request!))).toThrow()
    expect(Object.keys(JSON.parse(request!.body))).toEqual(['id', 'type', 'timestamp', 'account_id', 'data'])

    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null, delivered_at: expect.any(String) })
    expect(delivery.attempt_history).toEqual([
      { attempt: 1, started_at: expect.any(String), duration_ms: expect.any(Number), status_code: 200, error: null, outcome: 'succeeded' },
    ])
  })

  it('when the receiver fails twice and then succeeds, then the application accepts it once and three attempts are recorded on the schedule', async () => {
    const partner = await t.newPartner()
    const hook = await receiver((n) => (n <= 2 ? 503 : 200))
    const watcher = await createWatcher(partner, `${hook.origin}/flaky`)
    await emitTestEvent(t.db, partner.accountId)
    runWorkers({ retryScheduleSeconds: [0, 1, 1, 1] })

    const delivery = await finished(partner, watcher.id)
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 200, last_error: null })
    expect(delivery.attempt_history.map((a) => [a.attempt, a.status_code, a.outcome, a.error])).toEqual([
      [1, 503, 'failed', 'HTTP 503: receiver says 503'],
      [2, 503, 'failed', 'HTTP 503: receiver says 503'],
      [3, 200, 'succeeded', null],
    ])
    // Every attempt is the same message (one webhook-id), signed anew; the application acts on the one it accepted.
    const accepted = new Map<string, unknown>()
    hook.requests.forEach((request, index) => {
      const payload = new Webhook(watcher.secret).verify(request.body, headersOf(request))
      if (index === 2) accepted.set(String(request.headers['webhook-id']), payload)
    })
    expect(new Set(hook.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery.id]))
    expect(accepted.size).toBe(1)
    // The schedule's second and third delays are one second each.
    expect(hook.requests[1]!.at - hook.requests[0]!.at).toBeGreaterThanOrEqual(900)
    expect(hook.requests[2]!.at - hook.requests[1]!.at).toBeGreaterThanOrEqual(900)
  })

  it('when the receiver stays down past the last attempt, then the delivery is failed with every attempt visible', async () => {
    const partner = await t.newPartner()
    const down = await startReceiver()
    await down.close() // nothing listens on that port any more: connections are refused
    const watcher = await createWatcher(partner, `${down.origin}/down`)
    await emitTestEvent(t.db, partner.accountId)
    runWorkers({ retryScheduleSeconds: [0, 0, 0] })

    const delivery = await finished(partner, watcher.id)
    expect(delivery).toMatchObject({ status: 'failed', attempts: 3, last_status_code: null, last_error: 'connection failed (ECONNREFUSED)', next_attempt_at: null, delivered_at: null })
    expect(delivery.attempt_history.map((a) => [a.attempt, a.status_code, a.outcome, a.error])).toEqual([
      [1, null, 'failed', 'connection failed (ECONNREFUSED)'],
      [2, null, 'failed', 'connection failed (ECONNREFUSED)'],
      [3, null, 'failed', 'connection failed (ECONNREFUSED)'],
    ])
    const one = await call(t.app, partner, 'GET', `/watcher_deliveries/${delivery.id}`)
    expect(one.json().watcher_delivery).toMatchObject({ status: 'failed', attempts: 3 })
  })

  it('when the receiver answers 410, then the delivery fails at once and the watcher is disabled until re-enabled', async () => {
    const partner = await t.newPartner()
    const hook = await receiver(() => 410)
    const watcher = await createWatcher(partner, `${hook.origin}/gone`)
    await emitTestEvent(t.db, partner.accountId)
    runWorkers({ retryScheduleSeconds: [0, 0, 0] })

    const delivery = await finished(partner, watcher.id)
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410 })
    expect(delivery.last_error).toContain('HTTP 410 Gone')
    const disabled = (await call(t.app, partner, 'GET', `/watchers/${watcher.id}`)).json().watcher
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'the receiver answered 410 Gone' })
    const audit = await t.db.selectFrom('audit_events').select(['action', 'channel']).where('resource_id', '=', watcher.id).orderBy('created_at').execute()
    expect(audit).toEqual([
      { action: 'watcher.created', channel: 'api' },
      { action: 'watcher.disabled', channel: 'system' },
    ])
    expect(await emitTestEvent(t.db, partner.accountId)).toBe(0)

    // The receiver is back: re-enable the watcher and send the failed delivery again.
    hook.behave(() => 200)
    expect((await call(t.app, partner, 'PATCH', `/watchers/${watcher.id}`, { watcher: { status: 'active' } })).statusCode).toBe(200)
    expect((await call(t.app, partner, 'POST', `/watcher_deliveries/${delivery.id}/retry`)).statusCode).toBe(200)
    const resent = await finished(partner, watcher.id)
    expect(resent).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 200 })
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([delivery.id, delivery.id])
  })

  it.each([
    [400, 'HTTP 400: receiver says 400'],
    [404, 'HTTP 404: receiver says 404'],
    [301, 'HTTP 301: redirects are not followed; set the watcher URL to the final location'],
  ])('when the receiver answers %i, then the delivery fails without a retry', async (status, error) => {
    const partner = await t.newPartner()
    const hook = await receiver(() => status)
    const watcher = await createWatcher(partner, `${hook.origin}/refuses`)
    await emitTestEvent(t.db, partner.accountId)
    runWorkers({ retryScheduleSeconds: [0, 0, 0] })

    const delivery = await finished(partner, watcher.id)
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: status, last_error: error })
    expect(hook.requests).toHaveLength(1)
    expect((await call(t.app, partner, 'GET', `/watchers/${watcher.id}`)).json().watcher.status).toBe('active')
  })

  it('when the receiver answers 429, then it is retried like a 5xx', async () => {
    const partner = await t.newPartner()
    const hook = await receiver((n) => (n === 1 ? 429 : 204))
    const watcher = await createWatcher(partner, `${hook.origin}/busy`)
    await emitTestEvent(t.db, partner.accountId)
    runWorkers({ retryScheduleSeconds: [0, 0] })
    expect(await finished(partner, watcher.id)).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 204 })
  })

  it("when receivers hang, then each is cut off at the timeout and another watcher's delivery still goes through at once", async () => {
    const partner = await t.newPartner()
    const stuck = await receiver(() => 'hang')
    const healthy = await receiver()
    const hung = [
      await createWatcher(partner, `${stuck.origin}/a`),
      await createWatcher(partner, `${stuck.origin}/b`),
      await createWatcher(partner, `${stuck.origin}/c`),
    ]
    const fine = await createWatcher(partner, `${healthy.origin}/fine`)
    expect(await emitTestEvent(t.db, partner.accountId)).toBe(4)
    const started = Date.now()
    runWorkers({ timeoutMs: 1500, retryScheduleSeconds: [0] })

    await healthy.received(1, 1200)
    expect(Date.now() - started).toBeLessThan(1200)
    expect(await finished(partner, fine.id, 2000)).toMatchObject({ status: 'succeeded' })
    for (const watcher of hung) {
      const delivery = await finished(partner, watcher.id, 5000)
      expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: null, last_error: 'no response within 1500 ms' })
      expect(delivery.attempt_history[0]!.duration_ms).toBeGreaterThanOrEqual(1400)
      expect(delivery.attempt_history[0]!.duration_ms).toBeLessThan(3000)
    }
    expect(stuck.requests).toHaveLength(3)
  })
})

describe('secrets and the life of a watcher', () => {
  it('when the secret was rotated, then both secrets sign during the overlap, each verifiable alone, and only the new one after it', async () => {
    const partner = await t.newPartner()
    const hook = await receiver()
    const watcher = await createWatcher(partner, `${hook.origin}/rotating`)
    const rotated = (await call(t.app, partner, 'POST', `/watchers/${watcher.id}/rotate_secret`)).json().watcher as { secret: string }
    await emitTestEvent(t.db, partner.accountId)
    runWorkers()
    const [during] = await hook.received(1)

    const signatures = String(during!.headers['webhook-signature']).split(' ')
    expect(signatures).toHaveLength(2)
    expect(signatures.every((s) => s.startsWith('v1,'))).toBe(true)
    expect(new Webhook(rotated.secret).verify(during!.body, headersOf(during!))).toMatchObject({ type: 'error.created' })
    expect(new Webhook(watcher.secret).verify(during!.body, headersOf(during!))).toMatchObject({ type: 'error.created' })
    // Each signature on its own belongs to one secret: the new one first.
    const alone = (signature: string) => ({ ...headersOf(during!), 'webhook-signature': signature })
    expect(() => new Webhook(rotated.secret).verify(during!.body, alone(signatures[0]!))).not.toThrow()
    expect(() => new Webhook(watcher.secret).verify(during!.body, alone(signatures[1]!))).not.toThrow()
    expect(() => new Webhook(watcher.secret).verify(during!.body, alone(signatures[0]!))).toThrow()

    // The overlap is over.
    await t.db.updateTable('watchers').set({ previous_secret_expires_at: new Date(Date.now() - 1000) }).where('id', '=', watcher.id).execute()
    await emitTestEvent(t.db, partner.accountId)
    const [, after] = await hook.received(2)
    expect(String(after!.headers['webhook-signature']).split(' ')).toHaveLength(1)
    expect(new Webhook(rotated.secret).verify(after!.body, headersOf(after!))).toMatchObject({ type: 'error.created' })
    expect(() => new Webhook(watcher.secret).verify(after!.body, headersOf(after!))).toThrow()
  })

  it('when the watcher is deleted or disabled before its delivery goes out, then the delivery fails unsent with the reason', async () => {
    const partner = await t.newPartner()
    const hook = await receiver()
    const deleted = await createWatcher(partner, `${hook.origin}/deleted`)
    const disabled = await createWatcher(partner, `${hook.origin}/disabled`)
    await emitTestEvent(t.db, partner.accountId)
    const [deletedDelivery] = await t.db.selectFrom('watcher_deliveries').select('id').where('watcher_id', '=', deleted.id).execute()
    expect((await call(t.app, partner, 'DELETE', `/watchers/${deleted.id}`)).statusCode).toBe(204)
    await call(t.app, partner, 'PATCH', `/watchers/${disabled.id}`, { watcher: { status: 'disabled' } })
    runWorkers()

    const stored = await waitFor(async () => {
      const row = await t.db.selectFrom('watcher_deliveries').select(['status', 'last_error', 'attempts']).where('id', '=', deletedDelivery!.id).executeTakeFirstOrThrow()
      return row.status === 'pending' ? undefined : row
    })
    expect(stored).toEqual({ status: 'failed', last_error: 'not sent: the watcher was deleted', attempts: 0 })
    expect(await finished(partner, disabled.id)).toMatchObject({ status: 'failed', attempts: 0, last_error: 'not sent: the watcher is disabled (disabled through the API)' })
    expect(hook.requests).toEqual([])
  })

  it('when a succeeded delivery is retried, then it is sent once more with the same webhook-id; a stray duplicate job sends nothing', async () => {
    const partner = await t.newPartner()
    const hook = await receiver()
    const watcher = await createWatcher(partner, `${hook.origin}/again`)
    await emitTestEvent(t.db, partner.accountId)
    runWorkers()
    const first = await finished(partner, watcher.id)

    const retried = await call(t.app, partner, 'POST', `/watcher_deliveries/${first.id}/retry`)
    expect(retried.statusCode, retried.body).toBe(200)
    await hook.received(2)
    const second = await finished(partner, watcher.id)
    expect(second).toMatchObject({ status: 'succeeded', attempts: 2 })
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([first.id, first.id])

    // A job for an attempt already made (a worker's twin run) finds the delivery past it.
    await enqueueJob(t.db, WEBHOOK_DELIVERY_JOB, { delivery_id: first.id, attempt: 2 })
    await workers!.drain()
    expect(hook.requests).toHaveLength(2)
    expect(await onlyDelivery(partner, watcher.id)).toMatchObject({ attempts: 2 })
  })
})
