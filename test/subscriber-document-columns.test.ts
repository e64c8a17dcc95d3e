import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withStatuses } from '../src/modules/members/subscriber-document.js'
import { insertGroupFixture, subscriberBody, type GroupFixture } from './helpers/member-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

// The stored subscriber document leaves the members' statuses out (migrations/0017): a full file
// or a census moves every member's status at once, and must not rewrite 50,000 documents. The
// members UPDATE trigger lists the columns the document shows; these tests keep that list whole.

/** Columns of members no document shows: the sealed SSN and its hash, the carrier's id, and the statuses (put in as the document is read). */
const NOT_IN_THE_DOCUMENT = ['ssn_ciphertext', 'ssn_key_id', 'ssn_hash', 'carrier_member_id', 'status']

let t: TestApp
let partner: Credential
let fixture: GroupFixture
beforeAll(async () => {
  t = await startTestApp()
  partner = await t.newPartner()
  fixture = await insertGroupFixture(t.db, partner.accountId)
})
afterAll(async () => t?.close())

describe('the stored subscriber document and the members trigger', () => {
  it('lists, in the UPDATE trigger, every column of members the document may show (a column added later fails here until it is listed or left out on purpose)', async () => {
    const columns = (
      await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = 'members'`.execute(t.db)
    ).rows.map((r) => r.name)
    const definition = (await sql<{ definition: string }>`select pg_get_triggerdef(oid) as definition from pg_trigger where tgname = 'members_documents_update'`.execute(t.db)).rows[0]!.definition
    const listed = /AFTER UPDATE OF (.+?) ON /.exec(definition)![1]!.split(',').map((c) => c.trim())
    const shown = columns.filter((c) => !NOT_IN_THE_DOCUMENT.includes(c))
    expect([...listed].sort()).toEqual([...shown].sort())
    // The WHEN compares exactly those columns, old against new.
    for (const column of shown) {
      expect(definition).toContain(`old.${column}`)
      expect(definition).toContain(`new.${column}`)
    }
    for (const column of NOT_IN_THE_DOCUMENT) expect(definition).not.toContain(`old.${column}`)
  })

  it('is not rewritten when only statuses change, and GET /subscribers/{id} shows each member its own current status', async () => {
    const created = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 1) })
    expect(created.statusCode, created.body).toBe(201)
    const subscriber = created.json().subscriber as { id: string; dependents: { id: string }[] }
    expect(subscriber.dependents.length).toBeGreaterThanOrEqual(1)
    const rowVersion = async () => (await sql<{ xmin: string }>`select xmin::text from subscriber_documents where subscriber_id = ${subscriber.id}`.execute(t.db)).rows[0]!.xmin
    const before = await rowVersion()
    const etagBefore = (await call(t.app, partner, 'GET', `/subscribers/${subscriber.id}`)).headers.etag

    // The family moves as a file or a census moves it; one dependent differs, to show whose status goes where.
    await sql`update members set status = 'synced' where id = ${subscriber.id} or subscriber_id = ${subscriber.id}`.execute(t.db)
    await sql`update members set status = 'errors' where id = ${subscriber.dependents[0]!.id}`.execute(t.db)
    expect(await rowVersion()).toBe(before)

    const read = await call(t.app, partner, 'GET', `/subscribers/${subscriber.id}`)
    expect(read.statusCode).toBe(200)
    const body = read.json().subscriber as { status: string; dependents: { id: string; status: string }[] }
    expect(body.status).toBe('synced')
    expect(body.dependents.map((d) => [d.id, d.status])).toEqual(subscriber.dependents.map((d, i) => [d.id, i === 0 ? 'errors' : 'synced']))
    // The ETag is the hash of the bytes served, so it follows the statuses.
    expect(read.headers.etag).not.toBe(etagBefore)
    expect(read.body).not.toContain('\u0001')
  })

  it('still rewrites the document when a shown column changes, and not when an UPDATE sets a shown column to its value', async () => {
    const created = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 2) })
    const subscriber = created.json().subscriber as { id: string; dependents: { id: string }[] }
    const rowVersion = async () => (await sql<{ xmin: string }>`select xmin::text from subscriber_documents where subscriber_id = ${subscriber.id}`.execute(t.db)).rows[0]!.xmin
    const before = await rowVersion()
    await sql`update members set first_name = first_name where subscriber_id = ${subscriber.id}`.execute(t.db)
    expect(await rowVersion()).toBe(before)
    await sql`update members set first_name = 'Renamed' where id = ${subscriber.dependents[0]!.id}`.execute(t.db)
    expect(await rowVersion()).not.toBe(before)
    const read = await call(t.app, partner, 'GET', `/subscribers/${subscriber.id}`)
    expect(read.json().subscriber.dependents[0].first_name).toBe('Renamed')
  })
})

describe('withStatuses', () => {
  it('puts each status, as JSON, where its placeholder stands, and refuses a count that does not match', () => {
    expect(withStatuses('{"a":\u0001,"b":[{"s":\u0001}]}', ['synced', 'errors'])).toBe('{"a":"synced","b":[{"s":"errors"}]}')
    expect(() => withStatuses('{"a":\u0001}', ['synced', 'errors'])).toThrow(/1 status placeholders for 2 members/)
  })
})
