import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

/** external_identifier is unique across all accounts, and PostgreSQL runs share one database. */
const uniqueExternalId = () => `ext-${randomUUID()}`

async function createKey(operator: Credential, accountId: string, name = 'integration') {
  return call(t.app, operator, 'POST', `/accounts/${accountId}/api_keys`, { api_key: { name } })
}

describe('POST /accounts', () => {
  it('when an operator creates a partner account, then 201 answers the account', async () => {
    const operator = await t.newOperator()
    const externalId = uniqueExternalId()
    const res = await call(t.app, operator, 'POST', '/accounts', { account: { name: 'Acme Benefits', kind: 'partner', external_identifier: externalId } })
    expect(res.statusCode).toBe(201)
    const { account } = res.json()
    expect(account).toEqual({ id: expect.any(String), name: 'Acme Benefits', kind: 'partner', external_identifier: externalId, created_at: expect.any(String) })
    expect(new Date(account.created_at).toISOString()).toBe(account.created_at)
    const read = await call(t.app, operator, 'GET', `/accounts/${account.id}`)
    expect(read.json().account).toEqual(account)
  })

  it('when no external_identifier is given, then it is null and several such accounts may exist', async () => {
    const operator = await t.newOperator()
    const a = await call(t.app, operator, 'POST', '/accounts', { account: { name: 'No id one', kind: 'service' } })
    const b = await call(t.app, operator, 'POST', '/accounts', { account: { name: 'No id two', kind: 'partner' } })
    expect([a.statusCode, b.statusCode]).toEqual([201, 201])
    expect(a.json().account).toMatchObject({ kind: 'service', external_identifier: null })
    expect(b.json().account.external_identifier).toBeNull()
  })

  it('when a partner calls the operator endpoints, then 403 and nothing is created', async () => {
    const partner = await t.newPartner()
    const externalId = uniqueExternalId()
    const res = await call(t.app, partner, 'POST', '/accounts', { account: { name: 'Sneaky', kind: 'service', external_identifier: externalId } })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toMatchObject({ status: 403, code: 'forbidden' })
    const rows = await t.db.selectFrom('accounts').select('id').where('external_identifier', '=', externalId).execute()
    expect(rows).toEqual([])

    for (const [method, url] of [
      ['GET', '/accounts'],
      ['GET', `/accounts/${partner.accountId}`],
      ['GET', `/accounts/${partner.accountId}/api_keys`],
    ] as const) {
      const denied = await call(t.app, partner, method, url)
      expect(denied.statusCode, url).toBe(403)
    }
    const keyForSelf = await createKey(partner, partner.accountId)
    expect(keyForSelf.statusCode).toBe(403)
  })

  it('when the body is invalid, then 422 points at each offending field', async () => {
    const operator = await t.newOperator()
    const res = await call(t.app, operator, 'POST', '/accounts', { account: { name: '', kind: 'carrier', colour: 'blue' } })
    expect(res.statusCode).toBe(422)
    expect(res.json().code).toBe('validation_failed')
    const pointers = res.json().errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])
    expect(pointers).toEqual(
      expect.arrayContaining([
        ['/account/name', 'invalid_minlength'],
        ['/account/kind', 'invalid_value'],
        ['/account/colour', 'unknown_field'],
      ]),
    )

    const missing = await call(t.app, operator, 'POST', '/accounts', { account: {} })
    expect(missing.json().errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ pointer: '/account/name', code: 'required' }),
        expect.objectContaining({ pointer: '/account/kind', code: 'required' }),
      ]),
    )
  })

  it('when the external_identifier is already used by another account, then 409 points at it', async () => {
    const operator = await t.newOperator()
    const externalId = uniqueExternalId()
    expect((await call(t.app, operator, 'POST', '/accounts', { account: { name: 'First', kind: 'partner', external_identifier: externalId } })).statusCode).toBe(201)
    const res = await call(t.app, operator, 'POST', '/accounts', { account: { name: 'Second', kind: 'partner', external_identifier: externalId } })
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({
      code: 'duplicate_external_identifier',
      errors: [{ pointer: '/account/external_identifier', code: 'duplicate' }],
    })
    const rows = await t.db.selectFrom('accounts').select('name').where('external_identifier', '=', externalId).execute()
    expect(rows).toEqual([{ name: 'First' }])
  })

  it('when the account id is unknown, then the account endpoints answer 404 account_not_found', async () => {
    const operator = await t.newOperator()
    const unknown = uuidv7()
    for (const res of [
      await call(t.app, operator, 'GET', `/accounts/${unknown}`),
      await call(t.app, operator, 'GET', `/accounts/${unknown}/api_keys`),
      await createKey(operator, unknown),
    ]) {
      expect(res.statusCode).toBe(404)
      expect(res.json().code).toBe('account_not_found')
    }
  })
})

describe('API keys', () => {
  it('when an operator creates a key, then it is shown once with the esk_ prefix, not cached, and it works', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const res = await createKey(operator, partner.accountId, 'production integration')
    expect(res.statusCode).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    const { api_key: created } = res.json()
    expect(created).toEqual({
      id: expect.any(String),
      account_id: partner.accountId,
      name: 'production integration',
      prefix: created.key.slice(0, 12),
      created_at: expect.any(String),
      revoked_at: null,
      key: expect.stringMatching(/^esk_[A-Za-z0-9_-]{43}$/),
    })

    const groups = await call(t.app, { apiKey: created.key }, 'GET', '/groups')
    expect(groups.statusCode).toBe(200)
    expect(groups.json()).toEqual({ groups: [] })
  })

  it('when keys are listed, then the secret is never shown again', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const { api_key: created } = (await createKey(operator, partner.accountId, 'second key')).json()
    const res = await call(t.app, operator, 'GET', `/accounts/${partner.accountId}/api_keys`)
    expect(res.statusCode).toBe(200)
    expect(res.body).not.toContain(created.key)
    expect(res.body).not.toContain(created.key.slice(12))
    const keys = res.json().api_keys as Array<Record<string, unknown>>
    expect(keys.map((k) => k.id)).toEqual([partner.apiKeyId, created.id])
    for (const key of keys) expect(Object.keys(key).sort()).toEqual(['account_id', 'created_at', 'id', 'name', 'prefix', 'revoked_at'])
  })

  it('when a key is created, then only a hash of the secret is stored', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const { api_key: created } = (await createKey(operator, partner.accountId)).json()
    const row = await t.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow()
    const secretPart = (created.key as string).slice(12) // beyond the prefix kept in clear
    const stored = Object.values(row).flatMap((value) =>
      Buffer.isBuffer(value)
        ? [value.toString('utf8'), value.toString('hex'), value.toString('base64'), value.toString('base64url')]
        : [String(value instanceof Date ? value.toISOString() : value)],
    )
    for (const text of stored) expect(text).not.toContain(secretPart)
    expect(row.prefix).toBe(created.key.slice(0, 12))
    expect(row.secret_hash.length).toBe(32)
  })

  it('when a key is revoked, then it answers 401 at once; revoking again answers 204 and keeps the first time', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const { api_key: created } = (await createKey(operator, partner.accountId)).json()
    // Used once so that it sits in the credential cache.
    expect((await call(t.app, { apiKey: created.key }, 'GET', '/groups')).statusCode).toBe(200)

    const revoked = await call(t.app, operator, 'DELETE', `/api_keys/${created.id}`)
    expect(revoked.statusCode).toBe(204)
    expect(revoked.body).toBe('')
    const after = await call(t.app, { apiKey: created.key }, 'GET', '/groups')
    expect(after.statusCode).toBe(401)
    expect(after.json().code).toBe('invalid_credentials')

    const listed = (await call(t.app, operator, 'GET', `/accounts/${partner.accountId}/api_keys`)).json().api_keys
    const revokedAt = listed.find((k: { id: string }) => k.id === created.id).revoked_at
    expect(revokedAt).toEqual(expect.any(String))

    const again = await call(t.app, operator, 'DELETE', `/api_keys/${created.id}`)
    expect(again.statusCode).toBe(204)
    const relisted = (await call(t.app, operator, 'GET', `/accounts/${partner.accountId}/api_keys`)).json().api_keys
    expect(relisted.find((k: { id: string }) => k.id === created.id).revoked_at).toBe(revokedAt)

    // The account's other key is untouched.
    expect((await call(t.app, partner, 'GET', '/groups')).statusCode).toBe(200)
  })

  it('when a partner tries to revoke a key, then 403 and the key keeps working', async () => {
    const partner = await t.newPartner()
    const victim = await t.newPartner()
    const res = await call(t.app, partner, 'DELETE', `/api_keys/${victim.apiKeyId}`)
    expect(res.statusCode).toBe(403)
    expect((await call(t.app, victim, 'GET', '/groups')).statusCode).toBe(200)
  })

  it('when the key id is unknown, then DELETE answers 404 api_key_not_found', async () => {
    const operator = await t.newOperator()
    const res = await call(t.app, operator, 'DELETE', `/api_keys/${uuidv7()}`)
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe('api_key_not_found')
  })

  it('when the key name is missing, then 422 points at it', async () => {
    const operator = await t.newOperator()
    const partner = await t.newPartner()
    const res = await call(t.app, operator, 'POST', `/accounts/${partner.accountId}/api_keys`, { api_key: {} })
    expect(res.statusCode).toBe(422)
    expect(res.json().errors).toEqual([expect.objectContaining({ pointer: '/api_key/name', code: 'required' })])
  })
})
