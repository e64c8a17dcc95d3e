import { randomUUID } from 'node:crypto'
import { InsertQueryNode, sql, type KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestFingerprint } from '../src/http/idempotency.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const newKey = () => `key-${randomUUID()}`

function createUser(app: TestApp['app'], who: Credential, email: string, key: string) {
  return call(app, who, 'POST', '/users', { user: { email } }, { 'idempotency-key': key })
}

async function userEmails(who: Credential): Promise<string[]> {
  const res = await call(t.app, who, 'GET', '/users?per_page=100')
  return res.json().users.map((u: { email: string }) => u.email)
}

/** Every insert into users fails: a deterministic 5xx from inside the handler's transaction. */
const failUserInserts: KyselyPlugin = {
  transformQuery(args) {
    if (InsertQueryNode.is(args.node) && args.node.into?.table.identifier.name === 'users') {
      throw new Error('simulated database failure')
    }
    return args.node
  },
  async transformResult(args) {
    return args.result
  },
}

describe('Idempotency-Key on POST', () => {
  it('when the same key and body are sent again, then the stored answer is replayed and no second user is created', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const first = await createUser(t.app, partner, 'once@example.com', key)
    expect(first.statusCode).toBe(201)
    expect(first.headers['idempotent-replayed']).toBeUndefined()

    const second = await createUser(t.app, partner, 'once@example.com', key)
    expect(second.statusCode).toBe(201)
    expect(second.headers['idempotent-replayed']).toBe('true')
    expect(second.headers['content-type']).toContain('application/json')
    expect(second.json()).toEqual(first.json())
    // The replay is a new call: it has its own request id.
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id'])

    expect(await userEmails(partner)).toEqual(['once@example.com'])
  })

  it('when a replay happens, then no second audit event is written for the create', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const first = await createUser(t.app, partner, 'audited-once@example.com', key)
    await createUser(t.app, partner, 'audited-once@example.com', key)
    const events = await t.db
      .selectFrom('audit_events')
      .select('resource_id')
      .where('account_id', '=', partner.accountId)
      .where('action', '=', 'user.created')
      .execute()
    expect(events).toEqual([{ resource_id: first.json().user.id }])
  })

  it('when the same key comes with a different body, then 422 idempotency_key_reused and nothing is created', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    expect((await createUser(t.app, partner, 'first@example.com', key)).statusCode).toBe(201)
    const res = await createUser(t.app, partner, 'second@example.com', key)
    expect(res.statusCode).toBe(422)
    expect(res.headers['content-type']).toContain('application/problem+json')
    expect(res.json()).toMatchObject({ status: 422, code: 'idempotency_key_reused' })
    expect(await userEmails(partner)).toEqual(['first@example.com'])
  })

  it('when the same key comes with the same JSON in another key order and other whitespace, then the stored answer is replayed', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const send = (text: string) =>
      t.app.inject({
        method: 'POST',
        url: '/users',
        headers: { 'service-api-key': partner.apiKey, 'content-type': 'application/json', 'idempotency-key': key },
        payload: text,
      })
    const first = await send('{"user":{"email":"same@example.com","role_names":[]}}')
    expect(first.statusCode).toBe(201)
    const again = await send('{\n  "user": {\n    "role_names": [ ],\n    "email": "same@example.com"\n  }\n}\n')
    expect(again.statusCode).toBe(201)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json()).toEqual(first.json())
    // A different value is a different request, however it is spelled.
    const other = await send('{"user":{"role_names":[],"email":"other@example.com"}}')
    expect(other.statusCode).toBe(422)
    expect(other.json().code).toBe('idempotency_key_reused')
    expect(await userEmails(partner)).toEqual(['same@example.com'])
  })

  it('when a body starts with a UTF-8 byte order mark and carries a key, then it is created and the same request again is replayed', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/users',
        headers: { 'service-api-key': partner.apiKey, 'content-type': 'application/json', 'idempotency-key': key },
        // The body parser accepts a leading BOM (secure-json-parse strips it); the fingerprint must too.
        payload: '\uFEFF{"user":{"email":"bom@example.com"}}',
      })
    const first = await send()
    expect(first.statusCode, first.body).toBe(201)
    expect(first.headers['idempotent-replayed']).toBeUndefined()
    const again = await send()
    expect(again.statusCode, again.body).toBe(201)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json()).toEqual(first.json())
    expect(await userEmails(partner)).toEqual(['bom@example.com'])
  })

  it('when the raw body cannot be parsed again, then the fingerprint falls back to the text instead of throwing', () => {
    const fingerprint = (text: string) => requestFingerprint('POST', '/users', text)
    expect(() => fingerprint('{"user":')).not.toThrow()
    expect(fingerprint('{"user":')).toBe(fingerprint('{"user":'))
    expect(fingerprint('{"user":')).not.toBe(fingerprint('{"user":1}'))
    // With or without a BOM, the same JSON is the same request.
    expect(fingerprint('\uFEFF{"b":1,"a":2}')).toBe(fingerprint('{"a":2,"b":1}'))
  })

  it('when the same key is used on another endpoint, then it counts as a different request (422)', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const created = await createUser(t.app, partner, 'moved@example.com', key)
    const res = await call(t.app, partner, 'POST', `/users/${created.json().user.id}/deactivation`, undefined, { 'idempotency-key': key })
    expect(res.statusCode).toBe(422)
    expect(res.json().code).toBe('idempotency_key_reused')
    const user = await call(t.app, partner, 'GET', `/users/${created.json().user.id}`)
    expect(user.json().user).not.toHaveProperty('deactivated_at')
  })

  it('when two accounts use the same key, then each request runs in its own account', async () => {
    const alice = await t.newPartner('Alice')
    const bob = await t.newPartner('Bob')
    const key = newKey()
    const a = await createUser(t.app, alice, 'shared-key@example.com', key)
    const b = await createUser(t.app, bob, 'shared-key@example.com', key)
    expect(a.statusCode).toBe(201)
    expect(b.statusCode).toBe(201)
    expect(b.headers['idempotent-replayed']).toBeUndefined()
    expect(b.json().user.id).not.toBe(a.json().user.id)
    expect(await userEmails(alice)).toEqual(['shared-key@example.com'])
    expect(await userEmails(bob)).toEqual(['shared-key@example.com'])
  })

  it('when the service restarts between the two requests, then the second instance still replays', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const before = await startTestApp({ database: t.database })
    const first = await createUser(before.app, partner, 'restart@example.com', key)
    await before.close()
    expect(first.statusCode).toBe(201)

    const after = await startTestApp({ database: t.database })
    try {
      const replay = await createUser(after.app, partner, 'restart@example.com', key)
      expect(replay.statusCode).toBe(201)
      expect(replay.headers['idempotent-replayed']).toBe('true')
      expect(replay.json()).toEqual(first.json())
    } finally {
      await after.close()
    }
    expect(await userEmails(partner)).toEqual(['restart@example.com'])
  })

  it('when the stored key has expired, then the key is treated as new', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    expect((await createUser(t.app, partner, 'old@example.com', key)).statusCode).toBe(201)
    await sql`update idempotency_keys set expires_at = now() - interval '1 second'
              where account_id = ${partner.accountId} and key = ${key}`.execute(t.db)

    // A different body would be 422 within the 24 hours; after them it is simply a new request.
    const res = await createUser(t.app, partner, 'new@example.com', key)
    expect(res.statusCode).toBe(201)
    expect(res.headers['idempotent-replayed']).toBeUndefined()
    expect((await userEmails(partner)).sort()).toEqual(['new@example.com', 'old@example.com'])
    // And the key now remembers the new request.
    const replay = await createUser(t.app, partner, 'new@example.com', key)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect(replay.json()).toEqual(res.json())
  })

  it('when a key is new, then it is kept for 24 hours', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    await createUser(t.app, partner, 'ttl@example.com', key)
    const row = await t.db
      .selectFrom('idempotency_keys')
      .select(['state', sql<number>`extract(epoch from expires_at - created_at)::int`.as('ttl_seconds')])
      .where('account_id', '=', partner.accountId)
      .where('key', '=', key)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ state: 'completed', ttl_seconds: 24 * 3600 })
  })

  it('when the request fails validation, then the key stays free for the corrected request', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const invalid = await createUser(t.app, partner, 'not-an-email', key)
    expect(invalid.statusCode).toBe(422)
    expect(invalid.json().code).toBe('validation_failed')

    const corrected = await createUser(t.app, partner, 'fixed@example.com', key)
    expect(corrected.statusCode).toBe(201)
    expect(corrected.headers['idempotent-replayed']).toBeUndefined()
    expect(await userEmails(partner)).toEqual(['fixed@example.com'])
  })

  it('when the request fails its business rule (409), then that answer is what the key replays', async () => {
    const partner = await t.newPartner()
    await createUser(t.app, partner, 'taken@example.com', newKey())
    const key = newKey()
    const conflict = await createUser(t.app, partner, 'taken@example.com', key)
    expect(conflict.statusCode).toBe(409)
    const replay = await createUser(t.app, partner, 'taken@example.com', key)
    expect(replay.statusCode).toBe(409)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect(replay.json()).toEqual(conflict.json())
  })

  it('when the key is longer than 255 characters or not visible ASCII, then 422 invalid_idempotency_key and nothing is created', async () => {
    const partner = await t.newPartner()
    for (const key of ['k'.repeat(256), 'has space', 'clé']) {
      const res = await createUser(t.app, partner, 'badkey@example.com', key)
      expect(res.statusCode, key).toBe(422)
      expect(res.json().code, key).toBe('invalid_idempotency_key')
    }
    expect(await userEmails(partner)).toEqual([])
    const longest = await createUser(t.app, partner, 'badkey@example.com', 'k'.repeat(255))
    expect(longest.statusCode).toBe(201)
  })

  it('when the handler fails with a 5xx, then the key is released and a retry runs the request', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const broken = await startTestApp({ database: t.database, db: t.db.withPlugin(failUserInserts) })
    try {
      const failed = await createUser(broken.app, partner, 'retry@example.com', key)
      expect(failed.statusCode).toBe(500)
      expect(failed.json().code).toBe('internal_error')
      expect(failed.body).not.toContain('simulated')
    } finally {
      await broken.close()
    }
    const stored = await t.db.selectFrom('idempotency_keys').select('key').where('account_id', '=', partner.accountId).execute()
    expect(stored).toEqual([])

    const retry = await createUser(t.app, partner, 'retry@example.com', key)
    expect(retry.statusCode).toBe(201)
    expect(retry.headers['idempotent-replayed']).toBeUndefined()
    expect(await userEmails(partner)).toEqual(['retry@example.com'])
  })

  it('when a GET carries a key, then the key is ignored', async () => {
    const partner = await t.newPartner()
    const key = newKey()
    const res = await call(t.app, partner, 'GET', '/users', undefined, { 'idempotency-key': key })
    expect(res.statusCode).toBe(200)
    const stored = await t.db.selectFrom('idempotency_keys').select('key').where('account_id', '=', partner.accountId).execute()
    expect(stored).toEqual([])
  })
})
