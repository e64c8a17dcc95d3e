import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertGroupFixture, ssnFor, subscriberBody, dependentBody, type GroupFixture } from './helpers/member-factories.js'
import { call, startTestApp, testSsnProtection, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp({ bodyLimitBytes: 8 * 1024 * 1024 })
})
afterAll(async () => t?.close())

async function partnerWithGroup(): Promise<{ partner: Credential; fixture: GroupFixture }> {
  const partner = await t.newPartner()
  return { partner, fixture: await insertGroupFixture(t.db, partner.accountId) }
}

const MASK = /^\*\*\*-\*\*-\d{4}$/

function everySsnMasked(value: unknown): void {
  const text = JSON.stringify(value)
  for (const match of text.matchAll(/"social_security_number":"([^"]*)"/g)) expect(match[1]).toMatch(MASK)
}

describe('subscribers and dependents', () => {
  it('when a subscriber is sent with dependents, then 201 answers them with ids, pending status and masked SSNs, and GETs agree', async () => {
    const { partner, fixture } = await partnerWithGroup()
    const body = subscriberBody(fixture, 1)
    const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: body })
    expect(res.statusCode).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    const { subscriber } = res.json()
    expect(subscriber).toMatchObject({
      id: expect.any(String),
      group_id: fixture.groupId,
      external_identifier: 'emp-1',
      location_id: fixture.locationId,
      status: 'pending',
      social_security_number: `***-**-${body.social_security_number.slice(-4)}`,
      class: body.class,
      employment_details: body.employment_details,
      residential_address: body.residential_address,
    })
    expect(subscriber.dependents).toHaveLength(2)
    expect(subscriber.dependents[0]).toMatchObject({ subscriber_id: subscriber.id, group_id: fixture.groupId, subscriber_relationship: 'child', status: 'pending' })
    expect(res.body).not.toContain(body.social_security_number)
    everySsnMasked(res.json())

    const read = await call(t.app, partner, 'GET', `/subscribers/${subscriber.id}`)
    expect(read.statusCode).toBe(200)
    expect(read.headers['cache-control']).toBe('no-store')
    expect(read.json().subscriber).toEqual(subscriber)

    const list = await call(t.app, partner, 'GET', `/groups/${fixture.groupId}/subscribers`)
    expect(list.statusCode).toBe(200)
    expect(list.headers.total).toBe('1')
    expect(list.json().subscribers).toEqual([subscriber])
  })

  it('when the member rows are read, then the SSN is sealed (not in clear), opens back, and equal SSNs share the keyed hash', async () => {
    const { partner, fixture } = await partnerWithGroup()
    const shared = ssnFor(4242)
    const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, {
      subscribers: [
        subscriberBody(fixture, 1, { social_security_number: shared, dependents: [] }),
        subscriberBody(fixture, 2, { social_security_number: shared, dependents: [] }),
        subscriberBody(fixture, 3, { dependents: [] }),
      ],
    })
    expect(res.statusCode).toBe(201)
    const ids = res.json().subscribers.map((s: { id: string }) => s.id)
    const rows = await t.db.selectFrom('members').selectAll().where('id', 'in', ids).execute()
    const byId = new Map(rows.map((row) => [row.id, row]))
    const [a, b, c] = ids.map((id: string) => byId.get(id)!)
    const ssn = testSsnProtection()
    expect(a.ssn_ciphertext).not.toContain(shared)
    expect(a.ssn_key_id).toBe('test-k1')
    expect(ssn.open(a.ssn_ciphertext!, a.ssn_key_id!)).toBe(shared)
    expect(a.ssn_ciphertext).not.toBe(b.ssn_ciphertext)
    expect(a.ssn_hash).toBe(b.ssn_hash)
    expect(a.ssn_hash).toBe(ssn.hash(shared))
    expect(c.ssn_hash).not.toBe(a.ssn_hash)
    expect(a.ssn_last_four).toBe(shared.slice(-4))
    for (const row of rows) expect(JSON.stringify(row)).not.toContain(shared)
  })

  it('when a few hundred subscribers are sent at once, then all are written in the order sent with their dependents and audit events', async () => {
    const { partner, fixture } = await partnerWithGroup()
    const subscribers = Array.from({ length: 300 }, (_, n) => subscriberBody(fixture, n))
    const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscribers })
    expect(res.statusCode).toBe(201)
    const answered = res.json().subscribers
    expect(answered.map((s: { external_identifier: string }) => s.external_identifier)).toEqual(subscribers.map((s) => s.external_identifier))
    everySsnMasked(res.json())
    const counts = await t.db
      .selectFrom('members')
      .select(['kind', t.db.fn.countAll<number>().as('n')])
      .where('group_id', '=', fixture.groupId)
      .groupBy('kind')
      .execute()
    expect(Object.fromEntries(counts.map((row) => [row.kind, Number(row.n)]))).toEqual({ subscriber: 300, dependent: 600 })
    const audit = await t.db
      .selectFrom('audit_events')
      .select(['action', t.db.fn.countAll<number>().as('n')])
      .where('account_id', '=', partner.accountId)
      .where('resource_type', 'in', ['subscriber', 'dependent'])
      .groupBy('action')
      .execute()
    expect(Object.fromEntries(audit.map((row) => [row.action, Number(row.n)]))).toEqual({ 'subscriber.created': 300, 'dependent.created': 600 })
    const page = await call(t.app, partner, 'GET', `/groups/${fixture.groupId}/subscribers?per_page=100&page=3`)
    expect(page.headers.total).toBe('300')
    expect(page.json().subscribers[0].external_identifier).toBe('emp-200')
    expect(page.json().subscribers[0].dependents).toHaveLength(2)
  })

  it('when one item of a bulk request is invalid, then nothing is written and the error points at that item', async () => {
    const { partner, fixture } = await partnerWithGroup()
    const subscribers = Array.from({ length: 20 }, (_, n) => subscriberBody(fixture, n))
    subscribers[13] = subscriberBody(fixture, 13, { social_security_number: '666123456' })
    const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscribers })
    expect(res.statusCode).toBe(422)
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ pointer: '/subscribers/13/social_security_number', code: 'invalid_ssn' }] })
    expect(res.body).not.toContain('666123456')
    const written = await t.db.selectFrom('members').select('id').where('group_id', '=', fixture.groupId).execute()
    expect(written).toEqual([])
  })

  it('when several items break several rules, then every problem is listed with its pointer and no rejected value is echoed', async () => {
    const { partner, fixture } = await partnerWithGroup()
    const other = await insertGroupFixture(t.db, partner.accountId, 'other')
    const future = `${new Date().getUTCFullYear() + 1}-01-01`
    const subscribers = [
      subscriberBody(fixture, 0, { social_security_number: '000123456', birth_date: future, dependents: [] }),
      subscriberBody(fixture, 1, { location_id: other.locationId, class: { employment_classification_id: other.classificationId, effective_date: '2026-01-01' } }),
      subscriberBody(fixture, 2, {
        employment_details: { start_date: '2020-02-01', end_date: '2019-01-01', status: 'terminated' },
        dependents: [dependentBody(1, { birth_date: '1980-01-01' }), dependentBody(1, { social_security_number: '123004567' })],
      }),
      subscriberBody(fixture, 3, { external_identifier: 'emp-1', residential_address: { address_line_1: '1 Elm', city: 'X', state: 'IL', zip: '62701', fips_county_code: '06001' } }),
      subscriberBody(fixture, 4, { dependents: [dependentBody(7, { social_security_number: '123450000', birth_date: future })] }),
    ]
    const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscribers })
    expect(res.statusCode).toBe(422)
    const problems = res.json().errors.map((e: { pointer: string; code: string }) => `${e.pointer} ${e.code}`)
    expect(problems.sort()).toEqual(
      [
        '/subscribers/0/social_security_number invalid_ssn',
        '/subscribers/0/birth_date date_in_future',
        '/subscribers/0/employment_details/start_date before_birth_date',
        '/subscribers/0/class/effective_date before_birth_date',
        '/subscribers/1/location_id not_in_group',
        '/subscribers/1/class/employment_classification_id not_in_group',
        '/subscribers/2/employment_details/end_date end_before_start',
        '/subscribers/2/dependents/0/birth_date born_before_subscriber',
        '/subscribers/2/dependents/1/external_identifier duplicate_in_request',
        '/subscribers/2/dependents/1/social_security_number invalid_ssn',
        '/subscribers/3/external_identifier duplicate_in_request',
        '/subscribers/3/residential_address/fips_county_code county_not_in_state',
        '/subscribers/4/dependents/0/social_security_number invalid_ssn',
        '/subscribers/4/dependents/0/birth_date date_in_future',
      ].sort(),
    )
    for (const value of ['000123456', '123004567', '123450000', future, '1980-01-01']) expect(res.body).not.toContain(value)
  })

  it.each([
    ['social_security_number', '12345678', 'invalid_format'],
    ['social_security_number', '123-45-6789', 'invalid_format'],
    ['social_security_number', '912345678', 'invalid_ssn'],
    ['social_security_number', '123006789', 'invalid_ssn'],
    ['gender', 'other', 'invalid_value'],
    ['birth_date', '1985-02-30', 'invalid_format'],
    ['marital_status', 'engaged', 'invalid_value'],
  ])('when %s is %j, then 422 points at it without echoing the value', async (field, value, code) => {
    const { partner, fixture } = await partnerWithGroup()
    const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 1, { [field]: value }) })
    expect(res.statusCode).toBe(422)
    expect(res.json().errors).toContainEqual({ pointer: `/subscriber/${field}`, code, detail: expect.any(String) })
    expect(res.body).not.toContain(value)
  })

  it('when a text holds a NUL character or an unpaired surrogate, then 422 points at it instead of failing in the database', async () => {
    const { partner, fixture } = await partnerWithGroup()
    const body = subscriberBody(fixture, 1, { first_name: 'Ja\u0000ne', dependents: [dependentBody(1, { last_name: 'Doe\ud800' })] })
    const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscribers: [subscriberBody(fixture, 0), body] })
    expect(res.statusCode).toBe(422)
    expect(res.json().errors.map((e: { pointer: string; code: string }) => `${e.pointer} ${e.code}`)).toEqual([
      '/subscribers/1/first_name invalid_character',
      '/subscribers/1/dependents/0/last_name invalid_character',
    ])
  })

  it('when a required field is missing or an unknown one sent, then 422 names each', async () => {
    const { partner, fixture } = await partnerWithGroup()
    const { employment_details: _omit, ...body } = subscriberBody(fixture, 1)
    const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: { ...body, nickname: 'J' } })
    expect(res.statusCode).toBe(422)
    const pointers = res.json().errors.map((e: { pointer: string }) => e.pointer)
    expect(pointers).toEqual(expect.arrayContaining(['/subscriber/employment_details', '/subscriber/nickname']))
  })

  it('when neither or both of subscriber and subscribers are sent, then 422', async () => {
    const { partner, fixture } = await partnerWithGroup()
    const none = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, {})
    expect(none.statusCode).toBe(422)
    const both = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 1), subscribers: [subscriberBody(fixture, 2)] })
    expect(both.statusCode).toBe(422)
  })

  it('when an external_identifier is already used by a subscriber of the group, then 409 points at the item', async () => {
    const { partner, fixture } = await partnerWithGroup()
    await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 1) })
    const res = await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscribers: [subscriberBody(fixture, 2), subscriberBody(fixture, 1)] })
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 'duplicate_external_identifier', errors: [{ pointer: '/subscribers/1/external_identifier' }] })
    const other = await insertGroupFixture(t.db, partner.accountId, 'second')
    const elsewhere = await call(t.app, partner, 'POST', `/groups/${other.groupId}/subscribers`, { subscriber: subscriberBody(other, 1) })
    expect(elsewhere.statusCode).toBe(201)
  })

  it("when another account's group, subscriber, dependent or member is named, then 404 as for an unknown id; an operator sees it", async () => {
    const { partner, fixture } = await partnerWithGroup()
    const stranger = await t.newPartner()
    const created = (await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 1) })).json().subscriber
    const dependentId = created.dependents[0].id
    const checks: Array<[string, string, unknown, string]> = [
      ['POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 2) }, 'group_not_found'],
      ['GET', `/groups/${fixture.groupId}/subscribers`, undefined, 'group_not_found'],
      ['GET', `/subscribers/${created.id}`, undefined, 'subscriber_not_found'],
      ['PUT', `/subscribers/${created.id}`, { subscriber: { ...subscriberBody(fixture, 1), dependents: undefined } }, 'subscriber_not_found'],
      ['POST', `/subscribers/${created.id}/dependents`, { dependent: dependentBody(99) }, 'subscriber_not_found'],
      ['PUT', `/dependents/${dependentId}`, { dependent: dependentBody(99) }, 'dependent_not_found'],
      ['GET', `/members/${dependentId}`, undefined, 'member_not_found'],
    ]
    for (const [method, url, body, code] of checks) {
      const res = await call(t.app, stranger, method as 'GET', url, body)
      expect([url, res.statusCode, res.json().code]).toEqual([url, 404, code])
    }
    const operator = await t.newOperator()
    expect((await call(t.app, operator, 'GET', `/subscribers/${created.id}`)).statusCode).toBe(200)
    expect((await call(t.app, operator, 'GET', `/members/${dependentId}`)).statusCode).toBe(200)
  })

  it('when a subscriber is replaced with PUT, then its fields change, an omitted SSN is kept, a new one is sealed, and an audit event is written', async () => {
    const { partner, fixture } = await partnerWithGroup()
    const { dependents: _d, ...body } = subscriberBody(fixture, 1)
    const created = (await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 1) })).json().subscriber
    const { social_security_number: _s, ...withoutSsn } = body
    const renamed = await call(t.app, partner, 'PUT', `/subscribers/${created.id}`, { subscriber: { ...withoutSsn, last_name: 'Smith', marital_status: undefined } })
    expect(renamed.statusCode).toBe(200)
    expect(renamed.headers['cache-control']).toBe('no-store')
    expect(renamed.json().subscriber).toMatchObject({ id: created.id, last_name: 'Smith', social_security_number: created.social_security_number })
    expect(renamed.json().subscriber).not.toHaveProperty('marital_status')
    expect(renamed.json().subscriber.dependents).toHaveLength(2)

    const newSsn = ssnFor(777)
    const reSsn = await call(t.app, partner, 'PUT', `/subscribers/${created.id}`, { subscriber: { ...body, social_security_number: newSsn } })
    expect(reSsn.json().subscriber.social_security_number).toBe(`***-**-${newSsn.slice(-4)}`)
    const row = await t.db.selectFrom('members').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow()
    expect(testSsnProtection().open(row.ssn_ciphertext!, row.ssn_key_id!)).toBe(newSsn)

    const bad = await call(t.app, partner, 'PUT', `/subscribers/${created.id}`, { subscriber: { ...body, social_security_number: '666000000', birth_date: '2016-01-01' } })
    expect(bad.statusCode).toBe(422)
    const pointers = bad.json().errors.map((e: { pointer: string }) => e.pointer)
    expect(pointers).toEqual(expect.arrayContaining(['/subscriber/social_security_number', '/subscriber/birth_date']))
    expect(bad.body).not.toContain('666000000')

    const second = (await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 2) })).json().subscriber
    const clash = await call(t.app, partner, 'PUT', `/subscribers/${second.id}`, { subscriber: { ...body, external_identifier: 'emp-1' } })
    expect(clash.statusCode).toBe(409)
    const audit = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', created.id).execute()
    expect(audit.map((e) => e.action).sort()).toEqual(['subscriber.created', 'subscriber.updated', 'subscriber.updated'])
  })

  it('when dependents are added and replaced, then they answer masked, duplicates per subscriber are 409 and rules apply', async () => {
    const { partner, fixture } = await partnerWithGroup()
    const created = (await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 1, { dependents: [] }) })).json().subscriber
    const added = await call(t.app, partner, 'POST', `/subscribers/${created.id}/dependents`, { dependent: dependentBody(5) })
    expect(added.statusCode).toBe(201)
    expect(added.headers['cache-control']).toBe('no-store')
    const dependent = added.json().dependent
    expect(dependent).toMatchObject({ subscriber_id: created.id, group_id: fixture.groupId, external_identifier: 'dep-5', social_security_number: expect.stringMatching(MASK) })

    const again = await call(t.app, partner, 'POST', `/subscribers/${created.id}/dependents`, { dependent: dependentBody(5) })
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ code: 'duplicate_external_identifier', errors: [{ pointer: '/dependent/external_identifier' }] })

    const { social_security_number: _s, ...noSsn } = dependentBody(5)
    const replaced = await call(t.app, partner, 'PUT', `/dependents/${dependent.id}`, { dependent: { ...noSsn, first_name: 'Samuel', handicapped: true } })
    expect(replaced.statusCode).toBe(200)
    expect(replaced.json().dependent).toMatchObject({ id: dependent.id, first_name: 'Samuel', handicapped: true, social_security_number: dependent.social_security_number })

    const older = await call(t.app, partner, 'PUT', `/dependents/${dependent.id}`, { dependent: { ...noSsn, birth_date: '1970-01-01' } })
    expect(older.statusCode).toBe(422)
    expect(older.json().errors).toEqual([{ pointer: '/dependent/birth_date', code: 'born_before_subscriber', detail: expect.any(String) }])
    expect(older.body).not.toContain('1970-01-01')

    const noSsnDependent = await call(t.app, partner, 'POST', `/subscribers/${created.id}/dependents`, { dependent: { ...noSsn, external_identifier: 'dep-6', subscriber_relationship: 'spouse', birth_date: '1986-01-01' } })
    expect(noSsnDependent.statusCode).toBe(201)
    expect(noSsnDependent.json().dependent).not.toHaveProperty('social_security_number')
  })

  it('when a member is read, then it says whether it is a subscriber or a dependent', async () => {
    const { partner, fixture } = await partnerWithGroup()
    const created = (await call(t.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: subscriberBody(fixture, 1) })).json().subscriber
    const asSubscriber = await call(t.app, partner, 'GET', `/members/${created.id}`)
    expect(asSubscriber.statusCode).toBe(200)
    expect(asSubscriber.headers['cache-control']).toBe('no-store')
    expect(asSubscriber.json().member).toEqual({ ...created, kind: 'subscriber', subscriber_id: null })
    const asDependent = await call(t.app, partner, 'GET', `/members/${created.dependents[0].id}`)
    expect(asDependent.json().member).toEqual({ ...created.dependents[0], kind: 'dependent' })
    expect((await call(t.app, partner, 'GET', '/members/0193a4b2-0000-7000-8000-00000000dead')).statusCode).toBe(404)
  })

  it('when subscribers are accepted or refused with logging at trace level, then no SSN or birth date reaches the log', async () => {
    const lines: string[] = []
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk))
        done()
      },
    })
    const logged = await startTestApp({ database: t.database, logger: { level: 'trace', stream: sink } })
    try {
      const partner = await logged.newPartner()
      const fixture = await insertGroupFixture(logged.db, partner.accountId)
      const good = subscriberBody(fixture, 1, { birth_date: '1977-07-17' })
      expect((await call(logged.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: good })).statusCode).toBe(201)
      const bad = subscriberBody(fixture, 2, { social_security_number: '666112222', birth_date: '2999-01-01' })
      expect((await call(logged.app, partner, 'POST', `/groups/${fixture.groupId}/subscribers`, { subscriber: bad })).statusCode).toBe(422)
      const log = lines.join('')
      expect(log).toContain('request completed')
      for (const value of [good.social_security_number, '666112222', '1977-07-17', '2999-01-01']) expect(log).not.toContain(value)
    } finally {
      await logged.close()
    }
  })
})
