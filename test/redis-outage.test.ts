import { randomBytes, randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisRateLimitStore, type StoreOutageLog } from '../src/http/redis-rate-limit-store.js'
import { consoleUser, signIn } from './helpers/console-session.js'
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.js'
import { call, expectProblem, startTestApp, type TestApp } from './helpers/test-app.js'

const redisUrl = process.env.REDIS_URL
const MAX = 3
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** What the store logs, by level, so a test can count the lines of an outage. */
function recordingLog() {
  const lines: { level: 'warn' | 'info'; message: string }[] = []
  const log: StoreOutageLog = {
    warn: (_fields, message) => void lines.push({ level: 'warn', message }),
    info: (_fields, message) => void lines.push({ level: 'info', message }),
  }
  return { lines, log }
}

// Runs only with REDIS_URL (CI's PostgreSQL pass); Redis is reached through a TCP proxy, so it
// can be taken away from this app alone while other tests keep using it.
describe.runIf(!!redisUrl)('Redis going away and coming back (through a TCP proxy)', () => {
  let proxy: TcpProxy
  let store: RedisRateLimitStore
  let t: TestApp
  const recorded = recordingLog()
  /** The app's own log lines (warn and above). */
  const appLines: string[] = []
  const prefix = `enrollsync-test:${randomUUID()}:`

  beforeAll(async () => {
    const target = new URL(redisUrl!)
    proxy = await startTcpProxy(target.hostname, Number(target.port || 6379))
    store = new RedisRateLimitStore(proxy.urlFor(redisUrl!), prefix, recorded.log)
    t = await startTestApp({
      rateLimitStore: store,
      rateLimit: { max: MAX, windowSeconds: 60 },
      logger: { level: 'warn', stream: { write: (line: string) => void appLines.push(line) } },
    })
  })

  afterAll(async () => {
    await t?.close()
    await proxy?.close()
    if (!redisUrl) return
    const redis = new Redis(redisUrl)
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    await redis.quit()
  })

  it('when Redis is cut off, then calls are let through (fail-open) with one warning, sign-in answers 503; restored, limits and sign-in counters apply again', async () => {
    const busy = await t.newPartner()
    const user = await consoleUser(t, busy)
    for (let i = 0; i < MAX; i++) expect((await call(t.app, busy, 'GET', '/users')).statusCode).toBe(200)
    expectProblem(await call(t.app, busy, 'GET', '/users'), 429, 'rate_limited')

    await proxy.cut('refuse')
    // Fail-open: even the account over its limit is served, and 20 calls make one warning, not 20.
    const during: number[] = []
    for (let i = 0; i < 20; i++) during.push((await call(t.app, busy, 'GET', '/users')).statusCode)
    expect(during).toEqual(Array.from({ length: 20 }, () => 200))
    expect(recorded.lines.filter((line) => line.level === 'warn')).toHaveLength(1)
    expect(recorded.lines[0]!.message).toContain('rate limits are not enforced')
    // The requests themselves log nothing about it: the store's one line tells the story.
    expect(appLines.filter((line) => line.includes('rate limit'))).toEqual([])
    // Failed sign-ins cannot be counted: sign-in fails closed, quickly, as a problem with Retry-After.
    const refused = await signIn(t.app, user.email, user.password)
    expectProblem(refused, 503, 'service_unavailable')
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    // So do set-password links, whose failures are counted the same way.
    const redemption = await t.app.inject({
      method: 'POST',
      url: '/password_links/redemption',
      payload: { token: randomBytes(32).toString('base64url'), password: 'a pass phrase long enough' },
    })
    expectProblem(redemption, 503, 'service_unavailable')

    await proxy.restore()
    // The store reconnects on its own (within a second or so): no restart of the app.
    const deadline = Date.now() + 15_000
    while (!store.available && Date.now() < deadline) await sleep(50)
    expect(store.available).toBe(true)
    expect(recorded.lines.filter((line) => line.level === 'info').map((line) => line.message)).toEqual([
      expect.stringContaining('Redis is reachable again'),
    ])
    // The account's window is still in Redis: it is limited again at once.
    expectProblem(await call(t.app, busy, 'GET', '/users'), 429, 'rate_limited')
    // And a fresh account is counted from its first call.
    const fresh = await t.newPartner()
    const statuses: number[] = []
    for (let i = 0; i <= MAX; i++) statuses.push((await call(t.app, fresh, 'GET', '/users')).statusCode)
    expect(statuses).toEqual([200, 200, 200, 429])
    const signedIn = await signIn(t.app, user.email, user.password)
    expect(signedIn.statusCode, signedIn.body).toBe(201)
  })

  it('when Redis accepts connections but never answers, then calls still go through after at most the command timeout, with one warning per outage', async () => {
    const partner = await t.newPartner()
    const warningsBefore = recorded.lines.filter((line) => line.level === 'warn').length
    await proxy.cut('blackhole')
    try {
      const statuses: number[] = []
      for (let i = 0; i < 5; i++) statuses.push((await call(t.app, partner, 'GET', '/users')).statusCode)
      expect(statuses).toEqual([200, 200, 200, 200, 200])
      expect(recorded.lines.filter((line) => line.level === 'warn').length).toBe(warningsBefore + 1)
    } finally {
      await proxy.restore()
    }
    const deadline = Date.now() + 15_000
    while (!store.available && Date.now() < deadline) await sleep(50)
    expect(store.available).toBe(true)
  })
})
