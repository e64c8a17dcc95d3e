import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, startTestApp, type TestApp } from './helpers/test-app.js'
import { insertGroup } from './helpers/installation-factories.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

function classificationBody(overrides: Record<string, unknown> = {}) {
  return {
    employment_classification: {
      external_identifier: 'hourly',
      description: 'Hourly employees',
      type: 'class',
      start_date: '2027-01-01',
      ...overrides,
    },
  }
}

describe('employment classifications (installation step 4)', () => {
  it('when a classification of each type is added, then 201 answers every field and an audit event is written', async () => {
    const partner = await t.newPartner()
    const group = await insertGroup(t.db, partner.accountId)
    for (const type of ['class', 'division', 'department', 'subgroup', 'region']) {
      const res = await call(t.app, partner, 'POST', `/groups/${group.id}/employment_classifications`, classificationBody({ external_identifier: type, type }))
      expect(res.statusCode).toBe(201)
      expect(res.json().employment_classification).toMatchObject({ type, end_date: null, carrier_identifier: null })
    }
    const res = await call(
      t.app,
      partner,
      'POST',
      `/groups/${group.id}/employment_classifications`,
      classificationBody({ end_date: '2027-12-31', carrier_identifier: 'CLS-2' }),
    )
    expect(res.statusCode).toBe(201)
    const created = res.json().employment_classification
    expect(created).toEqual({
      id: expect.any(String),
      group_id: group.id,
      external_identifier: 'hourly',
      description: 'Hourly employees',
      type: 'class',
      start_date: '2027-01-01',
      end_date: '2027-12-31',
      carrier_identifier: 'CLS-2',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const audit = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', created.id).execute()
    expect(audit).toEqual([{ action: 'employment_classification.created' }])
  })

  it('when classifications are read by id and listed for the group, then both answer them, the list paginated', async () => {
    const partner = await t.newPartner()
    const group = await insertGroup(t.db, partner.accountId)
    const first = (await call(t.app, partner, 'POST', `/groups/${group.id}/employment_classifications`, classificationBody())).json().employment_classification
    const second = (await call(t.app, partner, 'POST', `/groups/${group.id}/employment_classifications`, classificationBody({ external_identifier: 'west', type: 'region' }))).json()
      .employment_classification
    const read = await call(t.app, partner, 'GET', `/employment_classifications/${first.id}`)
    expect(read.statusCode).toBe(200)
    expect(read.json().employment_classification).toEqual(first)
    const list = await call(t.app, partner, 'GET', `/groups/${group.id}/employment_classifications?per_page=1&page=2`)
    expect(list.statusCode).toBe(200)
    expect(list.json().employment_classifications).toEqual([second])
    expect(list.headers).toMatchObject({ total: '2', 'per-page': '1', page: '2' })
  })

  it('when the type is not a known value, then 422 points at type', async () => {
    const partner = await t.newPartner()
    const group = await insertGroup(t.db, partner.accountId)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/employment_classifications`, classificationBody({ type: 'team' }))
    expect(res.statusCode).toBe(422)
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ pointer: '/employment_classification/type', code: 'invalid_value' }] })
  })

  it('when a required field is missing, then 422 points at it', async () => {
    const partner = await t.newPartner()
    const group = await insertGroup(t.db, partner.accountId)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/employment_classifications`, classificationBody({ start_date: undefined }))
    expect(res.statusCode).toBe(422)
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ pointer: '/employment_classification/start_date', code: 'required' }] })
  })

  it('when end_date is before start_date, then 422 points at end_date', async () => {
    const partner = await t.newPartner()
    const group = await insertGroup(t.db, partner.accountId)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/employment_classifications`, classificationBody({ end_date: '2026-12-31' }))
    expect(res.statusCode).toBe(422)
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ pointer: '/employment_classification/end_date', code: 'before_start' }] })
  })

  it('when the external_identifier is already used in the group, then 409 duplicate_external_identifier points at it', async () => {
    const partner = await t.newPartner()
    const group = await insertGroup(t.db, partner.accountId)
    expect((await call(t.app, partner, 'POST', `/groups/${group.id}/employment_classifications`, classificationBody())).statusCode).toBe(201)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/employment_classifications`, classificationBody({ type: 'division' }))
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({
      code: 'duplicate_external_identifier',
      errors: [{ pointer: '/employment_classification/external_identifier', code: 'duplicate' }],
    })
    // The same identifier in another group is fine.
    const other = await insertGroup(t.db, partner.accountId)
    expect((await call(t.app, partner, 'POST', `/groups/${other.id}/employment_classifications`, classificationBody())).statusCode).toBe(201)
  })

  it('when another account adds, lists or reads classifications of a group it does not own, then 404 as for unknown ids', async () => {
    const owner = await t.newPartner()
    const stranger = await t.newPartner()
    const group = await insertGroup(t.db, owner.accountId)
    const created = (await call(t.app, owner, 'POST', `/groups/${group.id}/employment_classifications`, classificationBody())).json().employment_classification
    const add = await call(t.app, stranger, 'POST', `/groups/${group.id}/employment_classifications`, classificationBody({ external_identifier: 'intruder' }))
    expect([add.statusCode, add.json().code]).toEqual([404, 'group_not_found'])
    const list = await call(t.app, stranger, 'GET', `/groups/${group.id}/employment_classifications`)
    expect([list.statusCode, list.json().code]).toEqual([404, 'group_not_found'])
    const read = await call(t.app, stranger, 'GET', `/employment_classifications/${created.id}`)
    expect([read.statusCode, read.json().code]).toEqual([404, 'employment_classification_not_found'])
    const operator = await t.newOperator()
    const operatorList = await call(t.app, operator, 'GET', `/groups/${group.id}/employment_classifications`)
    expect(operatorList.json().employment_classifications).toEqual([created])
  })
})
