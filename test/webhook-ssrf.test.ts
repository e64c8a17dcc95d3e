import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { systemResolveHost, type ResolveHost } from '../src/lib/outbound-url.js'
import type { Workers } from '../src/main/workers.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'
import { emitTestEvent, openIsolatedDatabase, startReceiver, startWorkers, testWebhookSettings, waitFor, type IsolatedDatabase, type Receiver } from './helpers/webhooks.js'

/**
 * `rebind.example.test` answers a public address while the watcher is saved and loopback when
 * the delivery connects: the DNS rebinding a check made only at creation would miss.
 */
let rebindAnswer = '203.0.113.20'
const resolveHost: ResolveHost = async (hostname) => {
  if (hostname === 'hooks.example.com') return [{ address: '203.0.113.10', family: 4 }]
  if (hostname === 'rebind.example.test') return [{ address: rebindAnswer, family: 4 }]
  return systemResolveHost(hostname) // localhost, through /etc/hosts
}

let isolated: IsolatedDatabase
/** The deployment as configured by default: private addresses refused. */
let strict: TestApp
/** The same database with WEBHOOK_ALLOW_PRIVATE_URLS=true, to save watchers a stricter worker then meets. */
let lenient: TestApp
beforeAll(async () => {
  isolated = await openIsolatedDatabase()
  strict = await startTestApp({ database: isolated.handle, resolveHost, webhooks: testWebhookSettings({ allowPrivateUrls: false }) })
  lenient = await startTestApp({ database: isolated.handle, resolveHost, webhooks: testWebhookSettings({ allowPrivateUrls: true }) })
})
afterAll(async () => {
  await strict?.close()
  await lenient?.close()
  await isolated?.close()
})

let receiver: Receiver | undefined
let workers: Workers | undefined
afterEach(async () => {
  await workers?.stop()
  workers = undefined
  await receiver?.close()
  receiver = undefined
})

const create = (app: TestApp, partner: Credential, url: string) =>
  call(app.app, partner, 'POST', '/watchers', { watcher: { url, event_types: ['error.created'] } })

describe('watcher URLs at creation', () => {
  it.each([
    ['http://127.0.0.1:8080/hook', 'loopback'],
    ['http://2130706433/hook', 'loopback'], // 127.0.0.1 written as one number
    ['http://0x7f.0.0.1/hook', 'loopback'],
    ['http://localhost:3000/hook', 'loopback'],
    ['http://[::1]/hook', 'loopback'],
    ['http://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['http://10.0.0.1/hook', 'private network'],
    ['http://172.16.5.4/hook', 'private network'],
    ['http://192.168.1.1/hook', 'private network'],
    ['http://[::ffff:192.168.1.1]/hook', 'private network'],
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://[fe80::1]/hook', 'link-local'],
    ['http://[::ffff:169.254.169.254]/', 'link-local'],
    ['http://0.0.0.0/hook', 'unspecified'],
    ['http://[::]/hook', 'unspecified'],
    ['http://100.64.0.1/hook', 'carrier-grade NAT'],
    ['http://[fc00::1]/hook', 'unique local'],
    ['http://[fd12:3456::1]/hook', 'unique local'],
    ['http://224.0.0.1/hook', 'multicast'],
    ['http://[ff02::1]/hook', 'multicast'],
  ])('when the URL is %s, then 422 forbidden_address names the %s class', async (url, kind) => {
    const partner = await strict.newPartner()
    const res = await create(strict, partner, url)
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json().errors).toEqual([{ pointer: '/watcher/url', code: 'forbidden_address', detail: expect.stringContaining(kind) }])
  })

  it('when the host resolves to public addresses only, then the watcher is saved; with private URLs allowed, a loopback one is too', async () => {
    const partner = await strict.newPartner()
    expect((await create(strict, partner, 'https://hooks.example.com/enrollsync')).statusCode).toBe(201)
    expect((await create(strict, partner, 'https://203.0.113.10/enrollsync')).statusCode).toBe(201)
    expect((await create(lenient, partner, 'http://127.0.0.1:8080/hook')).statusCode).toBe(201)
    // The shape rules hold whatever the address policy.
    expect((await create(lenient, partner, 'file:///etc/passwd')).json().errors).toEqual([
      { pointer: '/watcher/url', code: 'unsupported_scheme', detail: 'must use http or https' },
    ])
  })
})

describe('watcher URLs at delivery', () => {
  /** Saves a watcher through `app`, emits one event and runs workers that refuse private addresses. */
  async function deliverStrictly(app: TestApp, url: string) {
    const partner = await app.newPartner()
    const created = await create(app, partner, url)
    expect(created.statusCode, created.body).toBe(201)
    const watcherId = created.json().watcher.id as string
    await emitTestEvent(app.db, partner.accountId)
    workers = startWorkers(app.db, testWebhookSettings({ allowPrivateUrls: false, retryScheduleSeconds: [0, 0, 0] }), resolveHost)
    return waitFor(async () => {
      const [delivery] = (await call(app.app, partner, 'GET', `/watchers/${watcherId}/deliveries`)).json().watcher_deliveries
      return delivery.status === 'pending' ? undefined : delivery
    })
  }

  it('when a loopback URL was allowed at creation and configuration forbids it now, then the delivery fails unsent without a retry', async () => {
    receiver = await startReceiver()
    const delivery = await deliverStrictly(lenient, `${receiver.origin}/hook`)
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: null })
    expect(delivery.last_error).toBe('refused: resolves to a loopback address (127.0.0.1), which webhooks may not call')
    expect(delivery.attempt_history).toEqual([expect.objectContaining({ attempt: 1, status_code: null, outcome: 'failed', error: delivery.last_error })])
    expect(receiver.requests).toEqual([])
  })

  it('when the host name resolves to loopback at delivery time, then the connection is refused before it is made', async () => {
    receiver = await startReceiver()
    const delivery = await deliverStrictly(lenient, `http://localhost:${receiver.port}/hook`)
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: null })
    expect(delivery.last_error).toMatch(/^refused: resolves to a loopback address \((127\.0\.0\.1|::1)\)/)
    expect(receiver.requests).toEqual([])
  })

  it('when a host resolved to a public address at creation and to loopback now (DNS rebinding), then the delivery is refused', async () => {
    receiver = await startReceiver()
    rebindAnswer = '203.0.113.20'
    const partner = await strict.newPartner()
    const created = await create(strict, partner, `http://rebind.example.test:${receiver.port}/hook`)
    expect(created.statusCode, created.body).toBe(201)
    rebindAnswer = '127.0.0.1'
    await emitTestEvent(strict.db, partner.accountId)
    workers = startWorkers(strict.db, testWebhookSettings({ allowPrivateUrls: false }), resolveHost)
    const delivery = await waitFor(async () => {
      const [found] = (await call(strict.app, partner, 'GET', `/watchers/${created.json().watcher.id}/deliveries`)).json().watcher_deliveries
      return found.status === 'pending' ? undefined : found
    })
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_error: 'refused: resolves to a loopback address (127.0.0.1), which webhooks may not call' })
    expect(receiver.requests).toEqual([])
  })

  it('when IPv4-mapped IPv6 is used to reach loopback at delivery, then it is refused too', async () => {
    const delivery = await deliverStrictly(lenient, 'http://[::ffff:127.0.0.1]:9/hook')
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1 })
    expect(delivery.last_error).toBe('refused: resolves to a loopback address (::ffff:7f00:1), which webhooks may not call')
  })
})
