import { afterAll, beforeAll, expect, it } from 'vitest'
import { currentRequestTransaction } from '../src/db/request-transaction.js'
import type { ResolveHost } from '../src/lib/outbound-url.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * A keyed POST /watchers looks its URL's host up before the Idempotency-Key's request
 * transaction opens: a DNS server slow to answer must not hold a database connection (on the
 * embedded database, the only one every other request waits for).
 */
let t: TestApp
let partner: Credential
const lookups: { host: string; inRequestTransaction: boolean }[] = []
const resolveHost: ResolveHost = async (host) => {
  lookups.push({ host, inRequestTransaction: currentRequestTransaction()?.isOpen === true })
  if (host !== 'hooks.example.com') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
  return [{ address: '203.0.113.10', family: 4 }]
}

beforeAll(async () => {
  t = await startTestApp({ resolveHost })
  partner = await t.newPartner()
})
afterAll(async () => t?.close())

function createWatcher(url: string, key: string) {
  return call(t.app, partner, 'POST', '/watchers', { watcher: { url, event_types: ['error.created'] } }, { 'idempotency-key': key })
}

it('when a watcher is created with an Idempotency-Key, then its host is looked up outside the request transaction, once', async () => {
  lookups.length = 0
  const res = await createWatcher('https://hooks.example.com/in', `watcher-${Date.now()}`)
  expect(res.statusCode, res.body).toBe(201)
  expect(lookups).toEqual([{ host: 'hooks.example.com', inRequestTransaction: false }])
})

it('when the host does not resolve, then 422 at the url, and the answer is replayed for the same key', async () => {
  const key = `unresolvable-${Date.now()}`
  const first = await createWatcher('https://nowhere.example.com/in', key)
  expect(first.statusCode, first.body).toBe(422)
  expect(first.json().errors).toEqual([expect.objectContaining({ pointer: '/watcher/url', code: 'unresolvable_host' })])
  const again = await createWatcher('https://nowhere.example.com/in', key)
  expect(again.headers['idempotent-replayed']).toBe('true')
  expect(again.body).toBe(first.body)
})
