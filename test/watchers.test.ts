import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { REDACTED, webhookSafeData } from '../src/modules/events/events.js'
import { insertGroupWithLocation } from './helpers/installation-factories.js'
import { insertCoveragePeriod } from './helpers/setup-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'
import { emitTestEvent, fakeResolver, openIsolatedDatabase, type IsolatedDatabase } from './helpers/webhooks.js'

// Host names resolve through this table, so the tests need no DNS; 203.0.113.0/24 is a public
// (documentation) range, 10.0.0.0/8 a private one.
const resolveHost = fakeResolver({ 'hooks.example.com': ['203.0.113.10'], 'intranet.example.com': ['203.0.113.11', '10.1.2.3'] })
const URL_OK = 'https://hooks.example.com/enrollsync'

let isolated: IsolatedDatabase
let t: TestApp
beforeAll(async () => {
  isolated = await openIsolatedDatabase()
  t = await startTestApp({ database: isolated.handle, resolveHost })
})
afterAll(async () => {
  await t?.close()
  await isolated?.close()
})

const body = (watcher: Record<string, unknown>) => ({ watcher: { url: URL_OK, event_types: ['error.created'], ...watcher } })

async function createWatcher(credential: Credential, watcher: Record<string, unknown> = {}) {
  const res = await call(t.app, credential, 'POST', '/watchers', body(watcher))
  expect(res.statusCode, res.body).toBe(201)
  return res.json().watcher as { id: string; secret: string } & Record<string, unknown>
}

function problemsOf(res: { statusCode: number; json(): { code: string; errors?: Array<{ pointer: string; code: string }> } }) {
  expect(res.statusCode).toBe(422)
  expect(res.json().code).toBe('validation_failed')
  return (res.json().errors ?? []).map((e) => [e.pointer, e.code])
}

describe('POST /watchers', () => {
  it('when a partner subscribes a URL, then 201 answers the watcher with a Standard Webhooks secret shown only this once', async () => {
    const partner = await t.newPartner()
    const res = await call(t.app, partner, 'POST', '/watchers', body({ event_types: ['error.created', 'error.returned'], description: 'benefits team' }))
    expect(res.statusCode, res.body).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    const watcher = res.json().watcher
    expect(watcher).toEqual({
      id: expect.any(String),
      account_id: partner.accountId,
      url: URL_OK,
      event_types: ['error.created', 'error.returned'],
      coverage_period_id: null,
      group_id: null,
      description: 'benefits team',
      status: 'active',
      disabled_reason: null,
      previous_secret_expires_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    })
    expect(Buffer.from(watcher.secret.slice(6), 'base64')).toHaveLength(32)

    const read = await call(t.app, partner, 'GET', `/watchers/${watcher.id}`)
    expect(read.statusCode).toBe(200)
    expect(read.json().watcher).not.toHaveProperty('secret')
    const { secret: _secret, ...withoutSecret } = watcher
    expect(read.json().watcher).toEqual(withoutSecret)
    const list = await call(t.app, partner, 'GET', '/watchers')
    expect(list.headers.total).toBe('1')
    expect(list.body).not.toContain(watcher.secret)

    const audit = await t.db.selectFrom('audit_events').selectAll().where('resource_id', '=', watcher.id).execute()
    expect(audit.map((event) => event.action)).toEqual(['watcher.created'])
    expect(JSON.stringify(audit)).not.toContain(watcher.secret)
  })

  it('when the body breaks the rules, then 422 points at every problem at once', async () => {
    const partner = await t.newPartner()
    expect(problemsOf(await call(t.app, partner, 'POST', '/watchers', { watcher: {} }))).toEqual([
      ['/watcher/url', 'required'],
      ['/watcher/event_types', 'required'],
    ])
    expect(problemsOf(await call(t.app, partner, 'POST', '/watchers', body({ event_types: [] })))).toEqual([['/watcher/event_types', 'invalid_minitems']])
    expect(problemsOf(await call(t.app, partner, 'POST', '/watchers', body({ event_types: ['error.created', 'error.deleted'] })))).toEqual([
      ['/watcher/event_types/1', 'invalid_value'],
    ])
    expect(problemsOf(await call(t.app, partner, 'POST', '/watchers', body({ secret: 'mine' })))).toEqual([['/watcher/secret', 'unknown_field']])
    expect(
      problemsOf(
        await call(t.app, partner, 'POST', '/watchers', body({ url: 'ftp://hooks.example.com/x', event_types: ['error.created', 'error.resolved', 'error.created'] })),
      ),
    ).toEqual([
      ['/watcher/url', 'unsupported_scheme'],
      ['/watcher/event_types/2', 'duplicate'],
    ])
    // Text the database cannot store is refused by the HTTP layer (invalid_character) before the rules run.
    const unstorable = await call(t.app, partner, 'POST', '/watchers', body({ url: 'ftp://hooks.example.com/x', description: 'a\u0000b' }))
    expect(unstorable.statusCode).toBe(422)
    expect(unstorable.json().code).toBe('invalid_character')
    expect(unstorable.json().errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])).toEqual([['/watcher/description', 'invalid_character']])
    expect(problemsOf(await call(t.app, partner, 'POST', '/watchers', body({ url: 'https://user:pass@hooks.example.com/x' })))).toEqual([
      ['/watcher/url', 'credentials_in_url'],
    ])
    expect(problemsOf(await call(t.app, partner, 'POST', '/watchers', body({ url: 'not a url' })))).toEqual([['/watcher/url', 'invalid_url']])
    expect(problemsOf(await call(t.app, partner, 'POST', '/watchers', body({ url: 'https://nowhere.example.com/x' })))).toEqual([
      ['/watcher/url', 'unresolvable_host'],
    ])
    // One internal address among public ones is enough: a connection may pick any of them.
    const mixed = await call(t.app, partner, 'POST', '/watchers', body({ url: 'https://intranet.example.com/x' }))
    expect(problemsOf(mixed)).toEqual([['/watcher/url', 'forbidden_address']])
    expect(mixed.json().errors[0].detail).toContain('private network address (10.1.2.3)')
    expect(await t.db.selectFrom('watchers').select('id').where('account_id', '=', partner.accountId).execute()).toEqual([])
  })

  it("when a filter names another account's coverage period or group, or ones that do not match, then 422 without revealing them", async () => {
    const partner = await t.newPartner()
    const other = await t.newPartner('Other partner')
    const mine = await insertGroupWithLocation(t.db, partner.accountId)
    const myPeriod = await insertCoveragePeriod(t.db, mine.group)
    const myOtherGroup = await insertGroupWithLocation(t.db, partner.accountId)
    const theirs = await insertGroupWithLocation(t.db, other.accountId)
    const theirPeriod = await insertCoveragePeriod(t.db, theirs.group)

    expect(problemsOf(await call(t.app, partner, 'POST', '/watchers', body({ coverage_period_id: theirPeriod.id, group_id: theirs.group.id })))).toEqual([
      ['/watcher/coverage_period_id', 'unknown_coverage_period'],
      ['/watcher/group_id', 'unknown_group'],
    ])
    expect(problemsOf(await call(t.app, partner, 'POST', '/watchers', body({ coverage_period_id: uuidv7() })))).toEqual([
      ['/watcher/coverage_period_id', 'unknown_coverage_period'],
    ])
    expect(problemsOf(await call(t.app, partner, 'POST', '/watchers', body({ coverage_period_id: myPeriod.id, group_id: myOtherGroup.group.id })))).toEqual([
      ['/watcher/coverage_period_id', 'not_in_group'],
    ])
    const narrowed = await createWatcher(partner, { coverage_period_id: myPeriod.id, group_id: mine.group.id })
    expect(narrowed).toMatchObject({ coverage_period_id: myPeriod.id, group_id: mine.group.id })
  })

  it('when the same Idempotency-Key is sent again, then the first answer is replayed and one watcher exists', async () => {
    const partner = await t.newPartner()
    const headers = { 'idempotency-key': `watcher-${uuidv7()}` }
    const first = await call(t.app, partner, 'POST', '/watchers', body({}), headers)
    const again = await call(t.app, partner, 'POST', '/watchers', body({}), headers)
    expect(again.statusCode).toBe(201)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json().watcher.id).toBe(first.json().watcher.id)
    expect(await t.db.selectFrom('watchers').select('id').where('account_id', '=', partner.accountId).execute()).toHaveLength(1)
  })
})

describe('reading, changing and deleting watchers', () => {
  it('when a watcher is changed, then fields left out are kept, null clears, and status toggles with a reason', async () => {
    const partner = await t.newPartner()
    const { group } = await insertGroupWithLocation(t.db, partner.accountId)
    const watcher = await createWatcher(partner, { group_id: group.id, description: 'first' })

    const changed = await call(t.app, partner, 'PATCH', `/watchers/${watcher.id}`, { watcher: { event_types: ['error.resolved', 'error.commented'], group_id: null } })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json().watcher).toMatchObject({ url: URL_OK, event_types: ['error.resolved', 'error.commented'], group_id: null, description: 'first' })

    const disabled = await call(t.app, partner, 'PATCH', `/watchers/${watcher.id}`, { watcher: { status: 'disabled' } })
    expect(disabled.json().watcher).toMatchObject({ status: 'disabled', disabled_reason: 'disabled through the API' })
    const listed = await call(t.app, partner, 'GET', '/watchers?status=disabled')
    expect(listed.json().watchers.map((w: { id: string }) => w.id)).toEqual([watcher.id])
    const enabled = await call(t.app, partner, 'PATCH', `/watchers/${watcher.id}`, { watcher: { status: 'active' } })
    expect(enabled.json().watcher).toMatchObject({ status: 'active', disabled_reason: null })

    expect(problemsOf(await call(t.app, partner, 'PATCH', `/watchers/${watcher.id}`, { watcher: {} }))).toEqual([['/watcher', 'invalid_minproperties']])
    expect(problemsOf(await call(t.app, partner, 'PATCH', `/watchers/${watcher.id}`, { watcher: { url: 'http://127.0.0.1:8080/hook' } }))).toEqual([
      ['/watcher/url', 'forbidden_address'],
    ])
    const audit = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', watcher.id).orderBy('created_at').execute()
    expect(audit.map((a) => a.action)).toEqual(['watcher.created', 'watcher.updated', 'watcher.updated', 'watcher.updated'])
  })

  it('when a watcher is deleted, then it answers 404, leaves the list, receives nothing more, and its deliveries stay stored', async () => {
    const partner = await t.newPartner()
    const watcher = await createWatcher(partner)
    expect(await emitTestEvent(t.db, partner.accountId)).toBe(1)
    const [delivery] = await t.db.selectFrom('watcher_deliveries').select('id').where('watcher_id', '=', watcher.id).execute()

    const deleted = await call(t.app, partner, 'DELETE', `/watchers/${watcher.id}`)
    expect(deleted.statusCode).toBe(204)
    expect(deleted.body).toBe('')
    for (const [method, url] of [
      ['GET', `/watchers/${watcher.id}`],
      ['PATCH', `/watchers/${watcher.id}`],
      ['DELETE', `/watchers/${watcher.id}`],
      ['POST', `/watchers/${watcher.id}/rotate_secret`],
      ['GET', `/watchers/${watcher.id}/deliveries`],
    ] as const) {
      const res = await call(t.app, partner, method, url, method === 'PATCH' ? { watcher: { description: 'x' } } : undefined)
      expect(res.statusCode, `${method} ${url}`).toBe(404)
      expect(res.json().code).toBe('watcher_not_found')
    }
    expect((await call(t.app, partner, 'GET', `/watcher_deliveries/${delivery!.id}`)).json().code).toBe('watcher_delivery_not_found')
    expect((await call(t.app, partner, 'GET', '/watchers')).json().watchers).toEqual([])
    expect(await emitTestEvent(t.db, partner.accountId)).toBe(0)
    expect(await t.db.selectFrom('watcher_deliveries').select('id').where('watcher_id', '=', watcher.id).execute()).toHaveLength(1)
    const audit = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', watcher.id).orderBy('created_at').execute()
    expect(audit.map((a) => a.action)).toEqual(['watcher.created', 'watcher.deleted'])
  })

  it("when a partner names another account's watcher or delivery, then every endpoint answers 404", async () => {
    const owner = await t.newPartner()
    const stranger = await t.newPartner('Stranger')
    const watcher = await createWatcher(owner)
    await emitTestEvent(t.db, owner.accountId)
    const [delivery] = await t.db.selectFrom('watcher_deliveries').select('id').where('watcher_id', '=', watcher.id).execute()
    await t.db.updateTable('watcher_deliveries').set({ status: 'failed' }).where('id', '=', delivery!.id).execute()

    for (const [method, url, code] of [
      ['GET', `/watchers/${watcher.id}`, 'watcher_not_found'],
      ['PATCH', `/watchers/${watcher.id}`, 'watcher_not_found'],
      ['DELETE', `/watchers/${watcher.id}`, 'watcher_not_found'],
      ['POST', `/watchers/${watcher.id}/rotate_secret`, 'watcher_not_found'],
      ['GET', `/watchers/${watcher.id}/deliveries`, 'watcher_not_found'],
      ['GET', `/watcher_deliveries/${delivery!.id}`, 'watcher_delivery_not_found'],
      ['POST', `/watcher_deliveries/${delivery!.id}/retry`, 'watcher_delivery_not_found'],
    ] as const) {
      const res = await call(t.app, stranger, method, url, method === 'PATCH' ? { watcher: { status: 'disabled' } } : undefined)
      expect(res.statusCode, `${method} ${url}`).toBe(404)
      expect(res.json().code, `${method} ${url}`).toBe(code)
    }
    expect((await call(t.app, stranger, 'GET', '/watchers')).json().watchers).toEqual([])
    expect((await call(t.app, owner, 'GET', `/watchers/${watcher.id}`)).json().watcher.status).toBe('active')
    expect((await call(t.app, null, 'GET', '/watchers')).statusCode).toBe(401)
  })

  it('when the secret is rotated, then a new secret is shown once and the previous one is kept for the overlap', async () => {
    const partner = await t.newPartner()
    const watcher = await createWatcher(partner)
    const before = Date.now()
    const res = await call(t.app, partner, 'POST', `/watchers/${watcher.id}/rotate_secret`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['cache-control']).toBe('no-store')
    const rotated = res.json().watcher
    expect(rotated.secret).toMatch(/^whsec_/)
    expect(rotated.secret).not.toBe(watcher.secret)
    const expires = Date.parse(rotated.previous_secret_expires_at)
    expect(expires).toBeGreaterThanOrEqual(before + 86_400_000 - 1000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 86_400_000 + 1000)
    const read = await call(t.app, partner, 'GET', `/watchers/${watcher.id}`)
    expect(read.body).not.toContain(rotated.secret)
    expect(read.body).not.toContain(watcher.secret)
    const row = await t.db.selectFrom('watchers').select(['secret', 'previous_secret']).where('id', '=', watcher.id).executeTakeFirstOrThrow()
    expect(row).toEqual({ secret: rotated.secret, previous_secret: watcher.secret })
    const audit = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', watcher.id).orderBy('created_at').execute()
    expect(audit.map((a) => a.action)).toEqual(['watcher.created', 'watcher.secret_rotated'])
  })
})

describe('events and deliveries', () => {
  it('when an event is emitted, then each matching watcher gets one pending delivery, listed with its payload', async () => {
    const partner = await t.newPartner()
    const { group } = await insertGroupWithLocation(t.db, partner.accountId)
    const period = await insertCoveragePeriod(t.db, group)
    const all = await createWatcher(partner, { event_types: ['error.created', 'error.resolved'] })
    const ofGroup = await createWatcher(partner, { group_id: group.id })
    const ofPeriod = await createWatcher(partner, { coverage_period_id: period.id })
    const otherType = await createWatcher(partner, { event_types: ['work_order.status_changed'] })
    const disabled = await createWatcher(partner)
    await call(t.app, partner, 'PATCH', `/watchers/${disabled.id}`, { watcher: { status: 'disabled' } })

    expect(await emitTestEvent(t.db, partner.accountId, { groupId: group.id, coveragePeriodId: period.id })).toBe(3)
    expect(await emitTestEvent(t.db, partner.accountId, { groupId: uuidv7(), coveragePeriodId: null })).toBe(1)
    expect(await emitTestEvent(t.db, partner.accountId, { type: 'error.resolved' })).toBe(1)

    const counts = async (id: string) => (await call(t.app, partner, 'GET', `/watchers/${id}/deliveries`)).json().watcher_deliveries.length
    expect([await counts(all.id), await counts(ofGroup.id), await counts(ofPeriod.id), await counts(otherType.id), await counts(disabled.id)]).toEqual([3, 1, 1, 0, 0])

    const list = await call(t.app, partner, 'GET', `/watchers/${ofPeriod.id}/deliveries`)
    expect(list.statusCode).toBe(200)
    expect(list.headers.total).toBe('1')
    const [delivery] = list.json().watcher_deliveries
    expect(delivery).toEqual({
      id: expect.any(String),
      watcher_id: ofPeriod.id,
      event_id: expect.any(String),
      event_type: 'error.created',
      status: 'pending',
      attempts: 0,
      next_attempt_at: expect.any(String),
      last_status_code: null,
      last_error: null,
      delivered_at: null,
      payload: {
        id: delivery.event_id,
        type: 'error.created',
        timestamp: expect.any(String),
        account_id: partner.accountId,
        data: { error_id: expect.any(String), status: 'unresolved', assignee: 'partner' },
      },
      attempt_history: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const one = await call(t.app, partner, 'GET', `/watcher_deliveries/${delivery.id}`)
    expect(one.json().watcher_delivery).toEqual(delivery)
    const job = await t.db.selectFrom('jobs').select(['payload', 'status']).where('name', '=', 'webhook.deliver').where(sql`payload->>'delivery_id'`, '=', delivery.id).executeTakeFirstOrThrow()
    expect(job).toEqual({ payload: { delivery_id: delivery.id, attempt: 1 }, status: 'pending' })
  })

  it('when the change that emitted the event rolls back, then no delivery and no job exist', async () => {
    const partner = await t.newPartner()
    const watcher = await createWatcher(partner)
    const { emitEvent } = await import('../src/modules/events/events.js')
    await expect(
      t.db.transaction().execute(async (tx) => {
        await emitEvent(tx, { type: 'error.created', accountId: partner.accountId, coveragePeriodId: null, groupId: null, data: { status: 'unresolved' } })
        throw new Error('the change failed')
      }),
    ).rejects.toThrow('the change failed')
    expect(await t.db.selectFrom('watcher_deliveries').select('id').where('watcher_id', '=', watcher.id).execute()).toEqual([])
  })

  it('when a delivery is retried, then a pending one is 409, a finished one queues one manual attempt, and a disabled watcher is 409', async () => {
    const partner = await t.newPartner()
    const watcher = await createWatcher(partner)
    await emitTestEvent(t.db, partner.accountId)
    const [{ id }] = (await call(t.app, partner, 'GET', `/watchers/${watcher.id}/deliveries`)).json().watcher_deliveries
    const pending = await call(t.app, partner, 'POST', `/watcher_deliveries/${id}/retry`)
    expect(pending.statusCode).toBe(409)
    expect(pending.json().code).toBe('watcher_delivery_pending')

    // What eight failed attempts leave behind.
    await t.db.updateTable('watcher_deliveries').set({ status: 'failed', attempts: 8, last_status_code: 503, last_error: 'HTTP 503', next_attempt_at: null }).where('id', '=', id).execute()
    const retried = await call(t.app, partner, 'POST', `/watcher_deliveries/${id}/retry`)
    expect(retried.statusCode, retried.body).toBe(200)
    expect(retried.json().watcher_delivery).toMatchObject({ id, status: 'pending', attempts: 8, next_attempt_at: expect.any(String) })
    const jobs = await t.db.selectFrom('jobs').select('payload').where('name', '=', 'webhook.deliver').where(sql`payload->>'delivery_id'`, '=', id).orderBy('created_at').execute()
    expect(jobs.map((job) => job.payload)).toEqual([{ delivery_id: id, attempt: 1 }, { delivery_id: id, attempt: 9, manual: true }])
    expect((await call(t.app, partner, 'POST', `/watcher_deliveries/${id}/retry`)).json().code).toBe('watcher_delivery_pending')

    await t.db.updateTable('watcher_deliveries').set({ status: 'succeeded' }).where('id', '=', id).execute()
    await call(t.app, partner, 'PATCH', `/watchers/${watcher.id}`, { watcher: { status: 'disabled' } })
    const refused = await call(t.app, partner, 'POST', `/watcher_deliveries/${id}/retry`)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().code).toBe('watcher_disabled')
    const audit = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', id).execute()
    expect(audit.map((a) => a.action)).toEqual(['watcher_delivery.retried'])
  })
})

describe('operator watchers', () => {
  it("when an operator watches, then it receives every account's events (narrowed by its filters) and partners never see them", async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const { group } = await insertGroupWithLocation(t.db, partner.accountId)
    const period = await insertCoveragePeriod(t.db, group)
    const everything = await createWatcher(operator, { event_types: ['error.created'] })
    // An operator may narrow its watcher to any account's coverage period.
    const narrowed = await createWatcher(operator, { coverage_period_id: period.id })
    try {
      expect(await emitTestEvent(t.db, partner.accountId, { groupId: group.id, coveragePeriodId: period.id })).toBe(2)
      expect(await emitTestEvent(t.db, partner.accountId)).toBe(1)

      const deliveries = (await call(t.app, operator, 'GET', `/watchers/${everything.id}/deliveries`)).json().watcher_deliveries
      expect(deliveries).toHaveLength(2)
      expect(deliveries[0].payload.account_id).toBe(partner.accountId)
      const rows = await t.db.selectFrom('watcher_deliveries').select('account_id').where('watcher_id', 'in', [everything.id, narrowed.id]).execute()
      expect(rows.every((row) => row.account_id === operator.accountId)).toBe(true)
      const peek = await call(t.app, partner, 'GET', `/watcher_deliveries/${deliveries[0].id}`)
      expect(peek.statusCode).toBe(404)
      // The operator sees the partner's watchers too (as it sees every account's data).
      const mine = await createWatcher(partner)
      const seen = (await call(t.app, operator, 'GET', `/watchers/${mine.id}`)).json().watcher
      expect(seen.account_id).toBe(partner.accountId)
    } finally {
      await call(t.app, operator, 'DELETE', `/watchers/${everything.id}`)
      await call(t.app, operator, 'DELETE', `/watchers/${narrowed.id}`)
    }
  })
})

describe('event data leaving the service', () => {
  it('when data names a personal field, then emitting fails; when a value is SSN- or date-shaped, then it is redacted', () => {
    expect(() => webhookSafeData({ social_security_number: 'x' })).toThrow(/personal fields/)
    expect(() => webhookSafeData({ birth_date: null })).toThrow(/personal fields/)
    expect(() => webhookSafeData({ member_email: 'a@b.c' })).toThrow(/personal fields/)
    expect(webhookSafeData({ member_id: '0193a4b2-0000-7000-8000-000000000001', external_identifier: '123-45-6789', ids: ['123456789', 'abc'], when: '1980-02-29', n: 3 })).toEqual({
      member_id: '0193a4b2-0000-7000-8000-000000000001',
      external_identifier: REDACTED,
      ids: [REDACTED, 'abc'],
      when: REDACTED,
      n: 3,
    })
  })
})
