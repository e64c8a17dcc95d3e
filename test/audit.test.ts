import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { call, startTestApp, systemActor, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

interface AuditEvent {
  id: string
  account_id: string
  actor_account_id: string | null
  api_key_id: string | null
  channel: string
  request_id: string | null
  action: string
  resource_type: string
  resource_id: string
  created_at: string
}

async function eventsOf(accountId: string, query = ''): Promise<AuditEvent[]> {
  const operator = await t.newOperator()
  const res = await call(t.app, operator, 'GET', `/audit_events?account_id=${accountId}&per_page=100${query}`)
  expect(res.statusCode).toBe(200)
  return res.json().audit_events
}

describe('audit events', () => {
  it('when a partner creates and deactivates a user, then each change is recorded with who, which key and which request', async () => {
    const partner = await t.newPartner()
    const created = await call(t.app, partner, 'POST', '/users', { user: { email: 'audited@example.com' } })
    const userId = created.json().user.id
    const deactivated = await call(t.app, partner, 'POST', `/users/${userId}/deactivation`)
    expect(deactivated.statusCode).toBe(200)

    const events = await eventsOf(partner.accountId, '&resource_type=user')
    const expected = (action: string, requestId: unknown) => ({
      id: expect.any(String),
      account_id: partner.accountId,
      actor_account_id: partner.accountId,
      api_key_id: partner.apiKeyId,
      api_key_name: 'Test partner key',
      actor_user_id: null,
      actor_user_email: null,
      channel: 'api',
      request_id: requestId,
      action,
      resource_type: 'user',
      resource_id: userId,
      created_at: expect.any(String),
    })
    // Newest first.
    expect(events).toEqual([
      expected('user.deactivated', deactivated.headers['x-request-id']),
      expected('user.created', created.headers['x-request-id']),
    ])
  })

  it('when a client sends its own X-Request-Id, then the audit event carries it', async () => {
    const partner = await t.newPartner()
    const requestId = `client-${Date.now()}`
    const res = await call(t.app, partner, 'POST', '/users', { user: { email: 'traced@example.com' } }, { 'x-request-id': requestId })
    expect(res.headers['x-request-id']).toBe(requestId)
    const events = await eventsOf(partner.accountId, '&action=user.created')
    expect(events.map((e) => e.request_id)).toEqual([requestId])
  })

  it('when a user is deactivated twice, then only the first deactivation is recorded', async () => {
    const partner = await t.newPartner()
    const { user } = (await call(t.app, partner, 'POST', '/users', { user: { email: 'twice@example.com' } })).json()
    await call(t.app, partner, 'POST', `/users/${user.id}/deactivation`)
    await call(t.app, partner, 'POST', `/users/${user.id}/deactivation`)
    expect(await eventsOf(partner.accountId, '&action=user.deactivated')).toHaveLength(1)
  })

  it('when an operator creates and revokes a key of a partner, then both events belong to the partner and name the operator', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const created = await call(t.app, operator, 'POST', `/accounts/${partner.accountId}/api_keys`, { api_key: { name: 'audited key' } })
    const keyId = created.json().api_key.id
    const revoked = await call(t.app, operator, 'DELETE', `/api_keys/${keyId}`)
    expect(revoked.statusCode).toBe(204)

    const events = await eventsOf(partner.accountId, `&resource_id=${keyId}`)
    const expected = (action: string, requestId: unknown) => ({
      id: expect.any(String),
      account_id: partner.accountId,
      actor_account_id: operator.accountId,
      api_key_id: operator.apiKeyId,
      api_key_name: 'Test operator key',
      actor_user_id: null,
      actor_user_email: null,
      channel: 'api',
      request_id: requestId,
      action,
      resource_type: 'api_key',
      resource_id: keyId,
      created_at: expect.any(String),
    })
    expect(events).toEqual([expected('api_key.revoked', revoked.headers['x-request-id']), expected('api_key.created', created.headers['x-request-id'])])
  })

  it('when an operator creates an account, then account.created is recorded on the new account', async () => {
    const operator = await t.newOperator()
    const res = await call(t.app, operator, 'POST', '/accounts', { account: { name: 'Audited Co', kind: 'partner' } })
    const accountId = res.json().account.id
    const events = await eventsOf(accountId)
    expect(events).toEqual([
      expect.objectContaining({
        account_id: accountId,
        actor_account_id: operator.accountId,
        action: 'account.created',
        resource_type: 'account',
        resource_id: accountId,
        request_id: res.headers['x-request-id'],
      }),
    ])
  })

  it('when a change fails, then no event is recorded', async () => {
    const partner = await t.newPartner()
    await call(t.app, partner, 'POST', '/users', { user: { email: 'dup@example.com' } })
    const conflict = await call(t.app, partner, 'POST', '/users', { user: { email: 'dup@example.com' } })
    expect(conflict.statusCode).toBe(409)
    expect(await eventsOf(partner.accountId, '&action=user.created')).toHaveLength(1)
  })

  it('when audit events hold a change to a user, then the email is nowhere in them', async () => {
    const partner = await t.newPartner()
    const email = `pii.${Date.now()}@private-example.com`
    const { user } = (await call(t.app, partner, 'POST', '/users', { user: { email } })).json()
    await call(t.app, partner, 'POST', `/users/${user.id}/deactivation`)

    const operator = await t.newOperator()
    const res = await call(t.app, operator, 'GET', `/audit_events?account_id=${partner.accountId}`)
    expect(res.json().audit_events.length).toBeGreaterThanOrEqual(2)
    expect(res.body.toLowerCase()).not.toContain(email.split('@')[0])
    expect(res.body).not.toContain('private-example.com')
    const rows = await t.db.selectFrom('audit_events').selectAll().where('account_id', '=', partner.accountId).execute()
    expect(JSON.stringify(rows)).not.toContain('private-example.com')
  })
})

describe('GET /audit_events', () => {
  it('when a partner asks for audit events, then 403', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'GET', `/audit_events?account_id=${partner.accountId}`)
    expect(res.statusCode).toBe(403)
    expect(res.json().code).toBe('forbidden')
  })

  it('when events are listed page by page, then the pages hold every event once, with headers and links that keep the filter', async () => {
    const partner = await t.newPartner()
    for (const n of [1, 2, 3]) await call(t.app, partner, 'POST', '/users', { user: { email: `page${n}@example.com` } })
    const operator = await t.newOperator()
    const all = await eventsOf(partner.accountId)
    // account.created and api_key.created of the test helper, then three user.created.
    expect(all).toHaveLength(5)

    const seen: string[] = []
    let url: string | undefined = `/audit_events?account_id=${partner.accountId}&per_page=2`
    let pages = 0
    while (url) {
      const res = await call(t.app, operator, 'GET', url)
      expect(res.statusCode).toBe(200)
      expect(res.headers).toMatchObject({ total: '5', 'per-page': '2', page: String(pages + 1) })
      seen.push(...res.json().audit_events.map((e: AuditEvent) => e.id))
      const links = parseLinks(String(res.headers.link))
      expect(Object.keys(links)).toEqual(expect.arrayContaining(['first', 'last']))
      for (const link of Object.values(links)) expect(new URL(link).searchParams.get('account_id')).toBe(partner.accountId)
      expect(new URL(links.last!).searchParams.get('page')).toBe('3')
      url = links.next ? pathOf(links.next) : undefined
      pages++
    }
    expect(pages).toBe(3)
    expect(seen).toEqual(all.map((e) => e.id))
  })

  it('when events are filtered by the console user who acted and by a date range, then only those events answer', async () => {
    const partner = await t.newPartner()
    const user = await t.services.users.createUser(systemActor(partner.accountId), { email: `actor.${Date.now()}@example.com`, role_names: [] }, partner.accountId)
    const row = (id: string, at: string, actorUserId: string | null) => ({
      id,
      account_id: partner.accountId,
      actor_account_id: partner.accountId,
      actor_user_id: actorUserId,
      channel: actorUserId ? ('console' as const) : ('api' as const),
      action: 'error.commented',
      resource_type: 'error',
      resource_id: id,
      created_at: new Date(at),
    })
    const [early, byUser, late] = [uuidv7(), uuidv7(), uuidv7()]
    await t.db
      .insertInto('audit_events')
      .values([row(early, '2020-01-01T10:00:00Z', null), row(byUser, '2020-01-02T10:00:00Z', user.id), row(late, '2020-01-03T10:00:00Z', null)])
      .execute()

    const byActor = await eventsOf(partner.accountId, `&actor_user_id=${user.id}`)
    expect(byActor.map((e) => e.id)).toEqual([byUser])
    // A day is [its midnight, the next midnight): the second of January only.
    const day = await eventsOf(partner.accountId, '&created_after=2020-01-02T00:00:00Z&created_before=2020-01-03T00:00:00Z')
    expect(day.map((e) => e.id)).toEqual([byUser])
    const since = await eventsOf(partner.accountId, '&created_after=2020-01-02T10:00:00Z&created_before=2020-01-04T00:00:00Z')
    expect(since.map((e) => e.id)).toEqual([late, byUser])
  })

  it('when the date range is not a timestamp, then 422 names the parameter', async () => {
    const operator = await t.newOperator()
    const res = await call(t.app, operator, 'GET', '/audit_events?created_after=yesterday')
    expect(res.statusCode).toBe(422)
    expect(res.json().errors).toEqual([expect.objectContaining({ parameter: 'created_after' })])
  })

  it('when the account_id filter is not a UUID, then 422 names the parameter', async () => {
    const operator = await t.newOperator()
    const res = await call(t.app, operator, 'GET', '/audit_events?account_id=nope')
    expect(res.statusCode).toBe(422)
    expect(res.json().errors).toEqual([expect.objectContaining({ parameter: 'account_id' })])
  })
})

function parseLinks(header: string): Record<string, string> {
  const links: Record<string, string> = {}
  for (const part of header.split(',')) {
    const match = /<([^>]+)>;\s*rel="([a-z]+)"/.exec(part.trim())
    if (match) links[match[2]!] = match[1]!
  }
  return links
}

function pathOf(link: string): string {
  const url = new URL(link)
  return url.pathname + url.search
}
