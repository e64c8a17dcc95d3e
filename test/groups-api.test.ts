import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { groupBody, producer } from './helpers/group-fixtures.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const createGroup = (who: Credential, group: unknown) => call(t.app, who, 'POST', '/groups', { group })

async function newGroup(who: Credential, overrides: Record<string, unknown> = {}) {
  const res = await createGroup(who, groupBody(overrides))
  expect(res.statusCode, res.body).toBe(201)
  return res.json().group
}

/** Posts a group with these producers and answers the problem it must cause. */
async function refusedProducers(producers: unknown[], status = 422) {
  const res = await createGroup(await t.newPartner(), groupBody({ producers_of_record: producers }))
  expect(res.statusCode, res.body).toBe(status)
  return res.json()
}

const { primary_location: _primary, ...coreOf } = groupBody()
const updateBody = (overrides: Record<string, unknown> = {}) => ({ group: { ...coreOf, ...overrides } })

describe('POST /groups (existing groups)', () => {
  it('when a sold group is posted with its producers, then 201 answers the group object, and GET /groups/{id} and GET /groups show it', async () => {
    const partner = await t.newPartner()
    const body = groupBody({
      producers_of_record: [producer({ commission_split: 50 }), producer({ last_name: 'Indie', agency: null, commission_split: 50, writing_producer: true })],
    })
    const res = await createGroup(partner, body)
    expect(res.statusCode, res.body).toBe(201)
    const { group } = res.json()
    expect(group).toMatchObject({
      account_id: partner.accountId,
      external_identifier: body.external_identifier,
      phase: 'installation',
      employer: body.employer,
      locations: [{ external_identifier: 'hq', primary: true, type: 'physical', employer_address: body.primary_location.employer_address }],
      producers_of_record: [
        { last_name: 'Broker', commission_split: 50, writing_producer: true },
        { last_name: 'Indie', commission_split: 50, agency: null },
      ],
    })
    expect((await call(t.app, partner, 'GET', `/groups/${group.id}`)).json().group).toEqual(group)
    const list = await call(t.app, partner, 'GET', '/groups')
    expect(list.json().groups).toEqual([group])
    expect(await t.db.selectFrom('group_installments').where('group_id', '=', group.id).select('id').execute()).toEqual([])
  })

  it('when writing_producer is omitted, then the producer is not a writing producer', async () => {
    const { writing_producer: _w, ...notWriting } = producer()
    const group = await newGroup(await t.newPartner(), { producers_of_record: [notWriting] })
    expect(group.producers_of_record[0].writing_producer).toBe(false)
  })

  it('when producers are omitted, then the group is created with none', async () => {
    const group = await newGroup(await t.newPartner(), { producers_of_record: undefined })
    expect(group.producers_of_record).toEqual([])
  })

  it('when commission splits of 33.33, 33.33 and 33.34 are sent, then they sum to exactly 100 and are kept with two decimals', async () => {
    const splits = [33.33, 33.33, 33.34]
    const group = await newGroup(await t.newPartner(), {
      producers_of_record: splits.map((split, n) => producer({ commission_split: split, writing_producer: n < 2 })),
    })
    expect(group.producers_of_record.map((p: { commission_split: number }) => p.commission_split)).toEqual(splits)
  })

  it('when the external_identifier is already used in the account, then 409 points at it', async () => {
    const partner = await t.newPartner()
    const body = groupBody()
    expect((await createGroup(partner, body)).statusCode).toBe(201)
    const res = await createGroup(partner, body)
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 'duplicate_external_identifier', errors: [{ pointer: '/group/external_identifier' }] })
  })
})

describe('producer rules', () => {
  it('when two producers split 60 + 30, then 422 points at the producers and gives the sum', async () => {
    const problem = await refusedProducers([producer({ commission_split: 60 }), producer({ commission_split: 30 })])
    expect(problem.code).toBe('validation_failed')
    expect(problem.errors).toEqual([{ pointer: '/group/producers_of_record', code: 'commission_split_sum', detail: expect.stringContaining('90') }])
    expect(problem.errors[0].detail).toContain('commission_split')
  })

  it('when a single producer has a split other than 100, then 422 points at its commission_split', async () => {
    const problem = await refusedProducers([producer({ commission_split: 80 })])
    expect(problem.errors).toEqual([expect.objectContaining({ pointer: '/group/producers_of_record/0/commission_split', code: 'commission_split_not_100' })])
  })

  it('when three producers are writing producers, then 422 points at the third', async () => {
    const problem = await refusedProducers([34, 33, 33].map((split) => producer({ commission_split: split, writing_producer: true })))
    expect(problem.errors).toEqual([expect.objectContaining({ pointer: '/group/producers_of_record/2/writing_producer', code: 'too_many_writing_producers' })])
  })

  it('when a split has three decimals, then 422 points at it', async () => {
    const problem = await refusedProducers([producer({ commission_split: 50.005 }), producer({ commission_split: 49.995 })])
    expect(problem.errors).toContainEqual(expect.objectContaining({ pointer: '/group/producers_of_record/0/commission_split', code: 'invalid_multipleof' }))
  })

  it('when an independent producer lacks the fields an agency producer needs, then 422 names each (the same fields are required)', async () => {
    const { email: _e, national_producer_number: _n, signature_date: _s, ...bare } = producer({ agency: null })
    const problem = await refusedProducers([bare])
    expect(problem.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code]).sort()).toEqual([
      ['/group/producers_of_record/0/email', 'required'],
      ['/group/producers_of_record/0/national_producer_number', 'required'],
      ['/group/producers_of_record/0/signature_date', 'required'],
    ])
  })

  it('when an agency producer lacks its signature date, then 422 points at it, as for an independent one', async () => {
    const { signature_date: _s, ...withoutDate } = producer()
    const problem = await refusedProducers([withoutDate])
    expect(problem.errors).toEqual([expect.objectContaining({ pointer: '/group/producers_of_record/0/signature_date', code: 'required' })])
  })

  it('when the agency is missing (neither an agency nor null), then 422 says it is required', async () => {
    const { agency: _a, ...withoutAgency } = producer()
    const problem = await refusedProducers([withoutAgency])
    expect(problem.errors).toContainEqual(expect.objectContaining({ pointer: '/group/producers_of_record/0/agency', code: 'required' }))
  })

  it('when the signature date does not exist or lies in the future, then 422 points at it', async () => {
    const impossible = await refusedProducers([producer({ signature_date: '2023-02-30' })])
    expect(impossible.errors).toContainEqual(expect.objectContaining({ pointer: '/group/producers_of_record/0/signature_date', code: 'invalid_format' }))
    const future = await refusedProducers([producer({ signature_date: '2999-01-01' })])
    expect(future.errors).toContainEqual(expect.objectContaining({ pointer: '/group/producers_of_record/0/signature_date', code: 'date_in_future' }))
  })

  it('when the agency FEIN has a separator, then 422 points at it', async () => {
    const problem = await refusedProducers([producer({ agency: { name: 'Agency', fein: '98-7654321' } })])
    expect(problem.errors).toContainEqual(expect.objectContaining({ pointer: '/group/producers_of_record/0/agency/fein', code: 'invalid_format' }))
  })
})

describe('GET /groups/{id} and tenancy', () => {
  it("when another partner asks for a group, then 404 group_not_found; an operator sees it", async () => {
    const owner = await t.newPartner()
    const group = await newGroup(owner)
    const stranger = await t.newPartner()
    const res = await call(t.app, stranger, 'GET', `/groups/${group.id}`)
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe('group_not_found')
    expect((await call(t.app, stranger, 'PUT', `/groups/${group.id}`, updateBody())).statusCode).toBe(404)
    expect((await call(t.app, stranger, 'POST', `/groups/${group.id}/locations`, { location: { ...groupBody().primary_location, external_identifier: 'x' } })).statusCode).toBe(404)
    const operator = await t.newOperator()
    expect((await call(t.app, operator, 'GET', `/groups/${group.id}`)).json().group).toEqual(group)
  })

  it('when the id is unknown or malformed, then 404', async () => {
    const partner = await t.newPartner()
    expect((await call(t.app, partner, 'GET', `/groups/${uuidv7()}`)).json().code).toBe('group_not_found')
    expect((await call(t.app, partner, 'GET', '/groups/not-a-uuid')).statusCode).toBe(404)
  })
})

describe('PUT /groups/{id}', () => {
  it('when the group data is replaced, then employer, market and producers change, locations stay, and an audit event is written', async () => {
    const partner = await t.newPartner()
    const group = await newGroup(partner)
    const employer = { organization_name: 'Acme Renamed', fein: '555666777', employer_type: 'llc', census: { employees: 60, full_time_equivalent_employees: 50, eligible_employees: 55 } }
    const producers = [producer({ last_name: 'New', commission_split: 75 }), producer({ last_name: 'Other', commission_split: 25, writing_producer: false, agency: null })]
    const res = await call(t.app, partner, 'PUT', `/groups/${group.id}`, updateBody({ external_identifier: 'renamed', insurance_market: 'large_group', employer, producers_of_record: producers, producer_agency: { name: 'Agency', fein: '111111111' } }))
    expect(res.statusCode, res.body).toBe(200)
    const updated = res.json().group
    expect(updated).toMatchObject({ id: group.id, external_identifier: 'renamed', insurance_market: 'large_group', employer: { ...employer, established_date: null }, producer_agency: { name: 'Agency', fein: '111111111' } })
    expect(updated.producers_of_record.map((p: { last_name: string }) => p.last_name)).toEqual(['New', 'Other'])
    expect(updated.locations).toEqual(group.locations)
    expect(updated.created_at).toBe(group.created_at)
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(group.updated_at))
    expect((await call(t.app, partner, 'GET', `/groups/${group.id}`)).json().group).toEqual(updated)
    const events = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', group.id).execute()
    expect(events.map((e) => e.action).sort()).toEqual(['group.created', 'group.updated'])
  })

  it('when the new external_identifier belongs to another group of the account, then 409', async () => {
    const partner = await t.newPartner()
    const first = await newGroup(partner)
    const second = await newGroup(partner)
    const res = await call(t.app, partner, 'PUT', `/groups/${second.id}`, updateBody({ external_identifier: first.external_identifier }))
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 'duplicate_external_identifier', errors: [{ pointer: '/group/external_identifier' }] })
  })

  it('when the update breaks a rule, then 422 lists every problem and nothing changes', async () => {
    const partner = await t.newPartner()
    const group = await newGroup(partner)
    const res = await call(t.app, partner, 'PUT', `/groups/${group.id}`, updateBody({
      employer: { ...coreOf.employer, census: { employees: 1, full_time_equivalent_employees: 1, eligible_employees: 2 } },
      producers_of_record: [producer({ commission_split: 60 }), producer({ commission_split: 30 })],
    }))
    expect(res.statusCode).toBe(422)
    expect(res.json().errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/group/employer/census/eligible_employees', '/group/producers_of_record'])
    expect((await call(t.app, partner, 'GET', `/groups/${group.id}`)).json().group).toEqual(group)
  })

  it('when the body carries locations, then 422 unknown_field: locations are added through their own endpoint', async () => {
    const partner = await t.newPartner()
    const group = await newGroup(partner)
    const res = await call(t.app, partner, 'PUT', `/groups/${group.id}`, { group: groupBody() })
    expect(res.statusCode).toBe(422)
    expect(res.json().errors).toContainEqual(expect.objectContaining({ pointer: '/group/primary_location', code: 'unknown_field' }))
  })
})

describe('POST /groups/{id}/locations', () => {
  const location = (overrides: Record<string, unknown> = {}) => ({ ...groupBody().primary_location, external_identifier: 'warehouse', ...overrides })

  it('when a location is added, then 201 answers it as secondary and the group lists it after the primary', async () => {
    const partner = await t.newPartner()
    const group = await newGroup(partner)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/locations`, { location: location({ type: 'billing' }) })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().location).toMatchObject({ group_id: group.id, external_identifier: 'warehouse', type: 'billing', primary: false })
    const read = (await call(t.app, partner, 'GET', `/groups/${group.id}`)).json().group
    expect(read.locations.map((l: { external_identifier: string }) => l.external_identifier)).toEqual(['hq', 'warehouse'])
    const events = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', res.json().location.id).execute()
    expect(events).toEqual([{ action: 'location.created' }])
  })

  it('when a location is added as primary, then it becomes the only primary and comes first', async () => {
    const partner = await t.newPartner()
    const group = await newGroup(partner)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/locations`, { location: location({ primary: true }) })
    expect(res.json().location.primary).toBe(true)
    const read = (await call(t.app, partner, 'GET', `/groups/${group.id}`)).json().group
    expect(read.locations.map((l: { external_identifier: string; primary: boolean }) => [l.external_identifier, l.primary])).toEqual([
      ['warehouse', true],
      ['hq', false],
    ])
  })

  it('when the external_identifier is already used by a location of the group, then 409 points at it', async () => {
    const partner = await t.newPartner()
    const group = await newGroup(partner)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/locations`, { location: location({ external_identifier: 'hq' }) })
    expect(res.statusCode).toBe(409)
    expect(res.json()).toMatchObject({ code: 'duplicate_external_identifier', errors: [{ pointer: '/location/external_identifier' }] })
    // Another group may use the same location identifier.
    const other = await newGroup(partner)
    expect((await call(t.app, partner, 'POST', `/groups/${other.id}/locations`, { location: location({ external_identifier: 'warehouse' }) })).statusCode).toBe(201)
  })

  it('when the county is outside the state or a primary location is not physical, then 422 lists both', async () => {
    const partner = await t.newPartner()
    const group = await newGroup(partner)
    const address = { ...groupBody().primary_location.employer_address, fips_county_code: '48201' }
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/locations`, { location: location({ type: 'mailing', primary: true, employer_address: address }) })
    expect(res.statusCode).toBe(422)
    expect(res.json().errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code]).sort()).toEqual([
      ['/location/employer_address/fips_county_code', 'county_not_in_state'],
      ['/location/type', 'primary_location_not_physical'],
    ])
  })

  it('when the location type is unknown, then 422 points at it', async () => {
    const partner = await t.newPartner()
    const group = await newGroup(partner)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/locations`, { location: location({ type: 'branch' }) })
    expect(res.statusCode).toBe(422)
    expect(res.json().errors).toContainEqual(expect.objectContaining({ pointer: '/location/type', code: 'invalid_value' }))
  })
})

describe('GET /groups?search=', () => {
  it('when a partner searches by part of a name or external identifier in any case, then only the matching groups of its account answer', async () => {
    const partner = await t.newPartner()
    const other = await t.newPartner()
    const pine = await newGroup(partner, { external_identifier: 'PINE-001', employer: { ...groupBody().employer as object, organization_name: 'Pinewood Dental LLC' } })
    const birch = await newGroup(partner, { external_identifier: 'birch-77', employer: { ...groupBody().employer as object, organization_name: 'Birch & Co' } })
    await newGroup(other, { external_identifier: 'pine-other', employer: { ...groupBody().employer as object, organization_name: 'Pinewood Elsewhere' } })

    const search = async (text: string) => {
      const res = await call(t.app, partner, 'GET', `/groups?search=${encodeURIComponent(text)}`)
      expect(res.statusCode, res.body).toBe(200)
      return { ids: res.json().groups.map((g: { id: string }) => g.id), total: res.headers.total }
    }
    expect(await search('pinewood')).toEqual({ ids: [pine.id], total: '1' })
    expect(await search('BIRCH-7')).toEqual({ ids: [birch.id], total: '1' })
    expect(await search('pine')).toEqual({ ids: [pine.id], total: '1' })
    // Pattern characters are literal: "%" matches only a "%", which no name holds.
    expect(await search('%')).toEqual({ ids: [], total: '0' })
    expect((await search('&')).ids).toEqual([birch.id])
  })

  it('when the search text is empty, then 422 names the parameter', async () => {
    const res = await call(t.app, await t.newPartner(), 'GET', '/groups?search=')
    expect(res.statusCode).toBe(422)
    expect(JSON.stringify(res.json())).toContain('search')
  })
})
