import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { entityTagOfText } from '../src/lib/etag.js'
import { uuidv7 } from '../src/lib/ids.js'
import { withStatuses } from '../src/modules/members/subscriber-document.js'
import { dependentBody, insertGroupFixture, subscriberBody, type GroupFixture } from './helpers/member-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

// GET /subscribers/{id} reads a stored document (migrations/0016_subscriber_documents.sql) that
// triggers rewrite in every statement changing what it shows. These tests write through each
// path there is (the API, and plain SQL standing for the census, carrier acknowledgements, the
// family status and the expiry job, which all end in such statements) and check, after every
// step, that every stored document is exactly what the tables give now.

let t: TestApp
let partner: Credential
let fixture: GroupFixture
let n = 0
beforeAll(async () => {
  t = await startTestApp()
  partner = await t.newPartner()
  fixture = await insertGroupFixture(t.db, partner.accountId)
})
afterAll(async () => t?.close())

/** Subscribers whose stored document differs from a fresh one, missing ones and orphans included. */
async function staleDocuments(): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select coalesce(sd.subscriber_id, f.subscriber_id) as id
      from subscriber_documents sd
      full join subscriber_document_texts(array(select id from members where kind = 'subscriber')) f on f.subscriber_id = sd.subscriber_id
     where sd.body is distinct from f.body or sd.account_id is distinct from f.account_id`.execute(t.db)
  return rows.map((r) => r.id)
}

/** The stored text with the members' statuses put in, as the read does (migrations/0017). */
async function storedBody(subscriberId: string): Promise<string | undefined> {
  const row = await t.db.selectFrom('subscriber_documents').select('body').where('subscriber_id', '=', subscriberId).executeTakeFirst()
  if (!row) return undefined
  const { rows } = await sql<{ status: string }>`select status from members where id = ${subscriberId} or subscriber_id = ${subscriberId} order by kind = 'dependent', created_at, id`.execute(t.db)
  return withStatuses(row.body, rows.map((r) => r.status))
}

async function createSubscriber(overrides: Record<string, unknown> = {}): Promise<{ id: string; dependents: { id: string }[] }> {
  const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, ++n, overrides) })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().subscriber
}

async function read(subscriberId: string) {
  const res = await call(t.app, partner, 'GET', `/subscribers/${subscriberId}`)
  expect(res.statusCode, res.body).toBe(200)
  return res
}

async function insertCoveragePeriod(state: string): Promise<string> {
  const id = uuidv7()
  await t.db
    .insertInto('coverage_periods')
    .values({
      id,
      account_id: partner.accountId,
      group_id: fixture.groupId,
      external_identifier: `cp-${id}`,
      carrier_name: 'sandbox_edi',
      coverage_start_date: '2027-01-01',
      state,
      distribution_format: 'edi',
    } as never)
    .execute()
  return id
}

async function insertLifeEvent(subscriberId: string, coveragePeriodId: string, event = 'new_hire'): Promise<string> {
  const id = uuidv7()
  await t.db
    .insertInto('qualifying_life_events')
    .values({ id, account_id: partner.accountId, subscriber_id: subscriberId, coverage_period_id: coveragePeriodId, event, date: '2027-01-01', eligibility_start_date: '2027-01-01' } as never)
    .execute()
  return id
}

// staleDocuments() recomputes the document of every subscriber in the database, which on PostgreSQL
// is shared with every other test file: the later this file runs, the more there are. In CI a
// test took up to 5.1 s; on a loaded machine with 9,000 subscribers, 24 s of the 30 s default.
describe('the stored subscriber document', { timeout: 120_000 }, () => {
  it('is written with the subscribers, one or many at once, and GET answers it byte for byte with the hash of those bytes as ETag', async () => {
    const one = await createSubscriber()
    const many = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, {
      subscribers: [subscriberBody(fixture, ++n), subscriberBody(fixture, ++n, { dependents: [] })],
    })
    expect(many.statusCode, many.body).toBe(201)
    expect(await staleDocuments()).toEqual([])
    for (const id of [one.id, ...many.json().subscribers.map((s: { id: string }) => s.id)]) {
      const res = await read(id)
      expect(res.body).toBe(await storedBody(id))
      expect(res.headers.etag).toBe(entityTagOfText(res.body))
    }
  })

  it('follows PUT /subscribers/{id}, a dependent added and a dependent replaced, and the ETag of the write is the next read\'s', async () => {
    const subscriber = await createSubscriber()
    const before = (await read(subscriber.id)).headers.etag
    const { dependents: _dependents, ...fields } = subscriberBody(fixture, n, { first_name: 'Renamed', middle_name: 'Q' })
    const put = await call(t.app, partner, 'PUT', `/subscribers/${subscriber.id}`, { subscriber: fields }, { 'if-match': String(before) })
    expect(put.statusCode, put.body).toBe(200)
    expect(await staleDocuments()).toEqual([])
    const afterPut = await read(subscriber.id)
    expect(afterPut.headers.etag).toBe(put.headers.etag)
    expect(afterPut.json().subscriber.first_name).toBe('Renamed')

    const added = await call(t.app, partner, 'POST', `/subscribers/${subscriber.id}/dependents`, { dependent: dependentBody(n * 10 + 7, { first_name: 'Added' }) })
    expect(added.statusCode, added.body).toBe(201)
    expect(await staleDocuments()).toEqual([])
    expect((await read(subscriber.id)).json().subscriber.dependents.map((d: { first_name: string }) => d.first_name)).toContain('Added')

    const dependentId = added.json().dependent.id
    const replaced = await call(t.app, partner, 'PUT', `/dependents/${dependentId}`, { dependent: dependentBody(n * 10 + 7, { first_name: 'Replaced' }) })
    expect(replaced.statusCode, replaced.body).toBe(200)
    expect(await staleDocuments()).toEqual([])
    expect((await read(subscriber.id)).json().subscriber.dependents.map((d: { first_name: string }) => d.first_name)).toContain('Replaced')
  })

  it('follows statuses set on a family, a dependent removed, and leaves the text alone for columns no answer shows', async () => {
    const subscriber = await createSubscriber()
    await sql`update members set status = 'synced' where id = ${subscriber.id} or subscriber_id = ${subscriber.id}`.execute(t.db)
    expect(await staleDocuments()).toEqual([])
    expect((await read(subscriber.id)).json().subscriber.status).toBe('synced')

    await sql`delete from members where id = ${subscriber.dependents[0]!.id}`.execute(t.db)
    expect(await staleDocuments()).toEqual([])
    expect((await read(subscriber.id)).json().subscriber.dependents).toHaveLength(subscriber.dependents.length - 1)

    // A census writes carrier member ids: not in the answer, so the document row is not rewritten.
    const version = async () => (await sql<{ xmin: string }>`select xmin::text from subscriber_documents where subscriber_id = ${subscriber.id}`.execute(t.db)).rows[0]?.xmin
    const unchanged = await version()
    await sql`update members set carrier_member_id = 'C-1' where id = ${subscriber.id}`.execute(t.db)
    expect(await version()).toBe(unchanged)
    expect(await staleDocuments()).toEqual([])
  })

  it('follows qualifying life events and their coverage periods expiring (and coming back)', async () => {
    const subscriber = await createSubscriber()
    const period = await insertCoveragePeriod('production')
    const first = await insertLifeEvent(subscriber.id, period)
    expect(await staleDocuments()).toEqual([])
    expect((await read(subscriber.id)).json().subscriber.current_qualifying_life_events.map((e: { id: string }) => e.id)).toEqual([first])

    const second = await insertLifeEvent(subscriber.id, period, 'marriage')
    expect(await staleDocuments()).toEqual([])
    expect((await read(subscriber.id)).json().subscriber.current_qualifying_life_events.map((e: { id: string }) => e.id)).toEqual([second])

    await sql`update qualifying_life_events set event = 'birth' where id = ${second}`.execute(t.db)
    expect(await staleDocuments()).toEqual([])

    await sql`update coverage_periods set state = 'expired' where id = ${period}`.execute(t.db)
    expect(await staleDocuments()).toEqual([])
    expect((await read(subscriber.id)).json().subscriber.current_qualifying_life_events).toEqual([])

    await sql`update coverage_periods set state = 'production' where id = ${period}`.execute(t.db)
    expect(await staleDocuments()).toEqual([])

    await sql`delete from plan_elections where qualifying_life_event_id = ${second}`.execute(t.db)
    await sql`delete from qualifying_life_events where id = ${second}`.execute(t.db)
    expect(await staleDocuments()).toEqual([])
    expect((await read(subscriber.id)).json().subscriber.current_qualifying_life_events.map((e: { id: string }) => e.id)).toEqual([first])
  })

  it('holds both of two dependents added to one family by concurrent transactions', async () => {
    const subscriber = await createSubscriber({ dependents: [] })
    const addDependent = (label: string) =>
      t.db.transaction().execute(async (tx) => {
        await sql`insert into members (id, account_id, group_id, subscriber_id, kind, external_identifier, first_name, last_name, birth_date, gender, subscriber_relationship)
                  values (${uuidv7()}, ${partner.accountId}, ${fixture.groupId}, ${subscriber.id}, 'dependent', ${label}, ${label}, 'Doe', '2015-01-01', 'male', 'child')`.execute(tx)
        // Both stay open at once (on PostgreSQL; PGlite runs them one after the other).
        await new Promise((resolve) => setTimeout(resolve, 50))
      })
    await Promise.all([addDependent('first'), addDependent('second')])
    expect(await staleDocuments()).toEqual([])
    expect((await read(subscriber.id)).json().subscriber.dependents.map((d: { first_name: string }) => d.first_name).sort()).toEqual(['first', 'second'])
  })

  it('is gone with its subscriber, and a dependent id is not a subscriber document', async () => {
    // Inserted directly: the API records carrier transactions that keep members from being deleted.
    const subscriberId = uuidv7()
    const dependentId = uuidv7()
    await sql`insert into members (id, account_id, group_id, subscriber_id, kind, external_identifier, first_name, last_name, birth_date, gender, subscriber_relationship)
              values (${subscriberId}, ${partner.accountId}, ${fixture.groupId}, null, 'subscriber', ${`emp-${subscriberId}`}, 'Gone', 'Doe', '1980-01-01', 'female', null),
                     (${dependentId}, ${partner.accountId}, ${fixture.groupId}, ${subscriberId}, 'dependent', 'child', 'Kid', 'Doe', '2015-01-01', 'male', 'child')`.execute(t.db)
    expect(await staleDocuments()).toEqual([])
    expect((await read(subscriberId)).json().subscriber.dependents.map((d: { id: string }) => d.id)).toEqual([dependentId])
    expect((await call(t.app, partner, 'GET', `/subscribers/${dependentId}`)).statusCode).toBe(404)
    await sql`delete from members where id = ${dependentId}`.execute(t.db)
    expect((await read(subscriberId)).json().subscriber.dependents).toEqual([])
    await sql`delete from members where id = ${subscriberId}`.execute(t.db)
    expect(await storedBody(subscriberId)).toBeUndefined()
    expect((await call(t.app, partner, 'GET', `/subscribers/${subscriberId}`)).statusCode).toBe(404)
    expect(await staleDocuments()).toEqual([])
  })
})
