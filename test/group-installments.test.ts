import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { groupBody, installmentBody, producer, uniqueId } from './helpers/group-fixtures.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const post = (who: Credential, body: unknown, headers: Record<string, string> = {}) => call(t.app, who, 'POST', '/group_installments', body, headers)

/** Posts a body that must fail and answers the problem. */
async function refused(body: unknown, status = 422) {
  const res = await post(await t.newPartner(), body)
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toContain('application/problem+json')
  return res.json()
}

const withEmployer = (employer: Record<string, unknown>) => installmentBody({ employer: { ...groupBody().employer, ...employer } })
const withAddress = (address: Record<string, unknown>) => {
  const primary = groupBody().primary_location
  return installmentBody({ primary_location: { ...primary, employer_address: { ...primary.employer_address, ...address } } })
}

const INITIAL_PROGRESS = [
  { step: 1, name: 'group', status: 'done' },
  { step: 2, name: 'coverage_period', status: 'pending' },
  { step: 3, name: 'plans', status: 'pending' },
  { step: 4, name: 'employment_classifications', status: 'optional' },
  { step: 5, name: 'subscribers', status: 'pending' },
  { step: 6, name: 'qualifying_life_events', status: 'pending' },
  { step: 7, name: 'complete_setup', status: 'pending' },
]

describe('POST /group_installments (step 1)', () => {
  it('when the body of the interface is posted, then 201 answers the installment with the group, its ids and the progress of every step', async () => {
    const partner = await t.newPartner()
    const body = installmentBody()
    const res = await post(partner, body)
    expect(res.statusCode, res.body).toBe(201)
    const installment = res.json().group_installment
    expect(installment).toEqual({
      id: expect.any(String),
      status: 'in_progress',
      carrier_name: 'sandbox_edi',
      group: {
        id: expect.any(String),
        account_id: partner.accountId,
        external_identifier: body.group.external_identifier,
        insurance_market: 'small_group',
        phase: 'installation',
        employer: body.group.employer,
        producer_agency: null,
        locations: [
          {
            id: expect.any(String),
            group_id: expect.any(String),
            external_identifier: 'hq',
            type: 'physical',
            primary: true,
            employer_address: body.group.primary_location.employer_address,
            created_at: expect.any(String),
            updated_at: expect.any(String),
          },
        ],
        producers_of_record: [{ id: expect.any(String), ...producer() }],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
      coverage_period_id: null,
      work_order_id: null,
      progress: INITIAL_PROGRESS,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    expect(installment.group.locations[0].group_id).toBe(installment.group.id)

    const read = await call(t.app, partner, 'GET', `/group_installments/${installment.id}`)
    expect(read.statusCode).toBe(200)
    expect(read.json().group_installment).toEqual(installment)
    const group = await call(t.app, partner, 'GET', `/groups/${installment.group.id}`)
    expect(group.json().group).toEqual(installment.group)
  })

  it('when secondary locations, several producers and a producer agency are sent, then all are stored and answered', async () => {
    const partner = await t.newPartner()
    const secondary = { external_identifier: 'mail', type: 'mailing', employer_address: { address_line_1: 'PO Box 7', address_line_2: 'Suite 2', city: 'Chicago', state: 'IL', zip: '60601' } }
    const agency = { name: 'Group Agency', fein: '111222333' }
    const producers = [producer({ commission_split: 70 }), producer({ last_name: 'Solo', first_name: undefined, agency: null, commission_split: 30, writing_producer: false })]
    const res = await post(partner, installmentBody({ secondary_locations: [secondary], producers_of_record: producers, producer_agency: agency }))
    expect(res.statusCode, res.body).toBe(201)
    const { group } = res.json().group_installment
    expect(group.locations.map((l: { external_identifier: string; primary: boolean }) => [l.external_identifier, l.primary])).toEqual([
      ['hq', true],
      ['mail', false],
    ])
    expect(group.locations[1].employer_address).toEqual(secondary.employer_address)
    expect(group.producer_agency).toEqual(agency)
    expect(group.producers_of_record.map((p: { commission_split: number; agency: unknown; first_name: unknown }) => [p.commission_split, p.agency, p.first_name])).toEqual([
      [70, producers[0]!.agency, 'Pat'],
      [30, null, null],
    ])
  })

  it('when an installment is created, then audit events record the group, its location and the installment', async () => {
    const partner = await t.newPartner()
    const { group_installment: gi } = (await post(partner, installmentBody())).json()
    const events = await t.db.selectFrom('audit_events').select(['action', 'resource_id']).where('account_id', '=', partner.accountId).orderBy('created_at').execute()
    expect(events).toEqual(
      expect.arrayContaining([
        { action: 'group.created', resource_id: gi.group.id },
        { action: 'location.created', resource_id: gi.group.locations[0].id },
        { action: 'group_installment.created', resource_id: gi.id },
      ]),
    )
  })

  it('when the same Idempotency-Key and body are sent again, then the first answer is replayed and nothing is created twice', async () => {
    const partner = await t.newPartner()
    const body = installmentBody()
    const key = uuidv7()
    const first = await post(partner, body, { 'idempotency-key': key })
    expect(first.statusCode).toBe(201)
    const replay = await post(partner, body, { 'idempotency-key': key })
    expect(replay.statusCode).toBe(201)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect(replay.json()).toEqual(first.json())
    const list = await call(t.app, partner, 'GET', '/group_installments')
    expect(list.headers.total).toBe('1')
  })

  it('when the group external_identifier is already used in the account, then 409 duplicate_external_identifier points at it', async () => {
    const partner = await t.newPartner()
    const body = installmentBody()
    expect((await post(partner, body)).statusCode).toBe(201)
    const again = await post(partner, body)
    expect(again.statusCode).toBe(409)
    expect(again.json()).toMatchObject({ code: 'duplicate_external_identifier', errors: [{ pointer: '/group/external_identifier', code: 'duplicate' }] })
    // Another account may use the same identifier.
    expect((await post(await t.newPartner(), body)).statusCode).toBe(201)
  })

  it('when two locations of the body share an external_identifier, then 409 points at the repeat', async () => {
    const primary = groupBody().primary_location
    const problem = await refused(installmentBody({ secondary_locations: [{ ...primary, type: 'billing' }] }), 409)
    expect(problem).toMatchObject({ code: 'duplicate_external_identifier', errors: [{ pointer: '/group/secondary_locations/0/external_identifier' }] })
  })
})

describe('POST /group_installments validation', () => {
  const cases: Array<[string, unknown, string, string]> = [
    ['the FEIN has a separator', withEmployer({ fein: '12-3456789' }), '/group/employer/fein', 'invalid_format'],
    ['the FEIN has 8 digits', withEmployer({ fein: '12345678' }), '/group/employer/fein', 'invalid_format'],
    ['the ZIP has 4 digits', withAddress({ zip: '6270' }), '/group/primary_location/employer_address/zip', 'invalid_format'],
    ['the state is not a US code', withAddress({ state: 'XX' }), '/group/primary_location/employer_address/state', 'invalid_value'],
    ['the FIPS county code has 4 digits', withAddress({ fips_county_code: '1716' }), '/group/primary_location/employer_address/fips_county_code', 'invalid_format'],
    ['the FIPS county lies in another state', withAddress({ fips_county_code: '06037' }), '/group/primary_location/employer_address/fips_county_code', 'county_not_in_state'],
    ['the established date does not exist', withEmployer({ established_date: '2023-02-30' }), '/group/employer/established_date', 'invalid_format'],
    ['a census count is negative', withEmployer({ census: { employees: -1, full_time_equivalent_employees: 0, eligible_employees: 0 } }), '/group/employer/census/employees', 'invalid_minimum'],
    ['more employees are eligible than employed', withEmployer({ census: { employees: 10, full_time_equivalent_employees: 10, eligible_employees: 11 } }), '/group/employer/census/eligible_employees', 'exceeds_employees'],
    ['the carrier is unknown', installmentBody({ group_setup: { carrier_name: 'acme_insurance' } }), '/group/group_setup/carrier_name', 'unknown_carrier'],
    ['the insurance market is unknown', installmentBody({ insurance_market: 'medium_group' }), '/group/insurance_market', 'invalid_value'],
    ['the employer type is unknown', withEmployer({ employer_type: 'guild' }), '/group/employer/employer_type', 'invalid_value'],
    ['the primary location is not physical', installmentBody({ primary_location: { ...groupBody().primary_location, type: 'mailing' } }), '/group/primary_location/type', 'primary_location_not_physical'],
    ['a field is unknown', installmentBody({ nickname: 'acme' }), '/group/nickname', 'unknown_field'],
    ['group_setup is missing', { group: groupBody() }, '/group/group_setup', 'required'],
  ]
  for (const [situation, body, pointer, code] of cases) {
    it(`when ${situation}, then 422 validation_failed points at ${pointer}`, async () => {
      const problem = await refused(body)
      expect(problem.code).toBe('validation_failed')
      expect(problem.errors).toContainEqual(expect.objectContaining({ pointer, code }))
    })
  }

  it('when the carrier is unknown, then the message sends the client to GET /carriers', async () => {
    const problem = await refused(installmentBody({ group_setup: { carrier_name: 'acme_insurance' } }))
    expect(problem.errors[0].detail).toContain('GET /carriers')
  })

  it('when several business rules are broken, then every problem is listed at once', async () => {
    const primary = groupBody().primary_location
    const problem = await refused(
      installmentBody({
        employer: { ...groupBody().employer, census: { employees: 5, full_time_equivalent_employees: 5, eligible_employees: 6 } },
        group_setup: { carrier_name: 'nobody' },
        primary_location: { ...primary, employer_address: { ...primary.employer_address, fips_county_code: '06037' } },
        producers_of_record: [producer({ commission_split: 60 }), producer({ commission_split: 30 })],
      }),
    )
    expect(problem.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(
      [
        '/group/employer/census/eligible_employees',
        '/group/group_setup/carrier_name',
        '/group/primary_location/employer_address/fips_county_code',
        '/group/producers_of_record',
      ].sort(),
    )
  })

  it('when nothing was created because of a validation failure, then the external_identifier is still free', async () => {
    const partner = await t.newPartner()
    const body = installmentBody({ group_setup: { carrier_name: 'nobody' } })
    expect((await post(partner, body)).statusCode).toBe(422)
    const fixed = { group: { ...body.group, group_setup: { carrier_name: 'sandbox_api' } } }
    expect((await post(partner, fixed)).statusCode).toBe(201)
  })
})

describe('GET /group_installments', () => {
  it('when a partner lists installments, then its own come back oldest first with pagination headers', async () => {
    const partner = await t.newPartner()
    const ids: string[] = []
    for (let n = 0; n < 3; n++) ids.push((await post(partner, installmentBody())).json().group_installment.id)
    await post(await t.newPartner(), installmentBody())
    const page = await call(t.app, partner, 'GET', '/group_installments?per_page=2&page=2')
    expect(page.statusCode).toBe(200)
    expect(page.headers).toMatchObject({ total: '3', 'per-page': '2', page: '2' })
    expect(page.json().group_installments.map((gi: { id: string }) => gi.id)).toEqual([ids[2]])
    expect(page.json().group_installments[0].progress).toEqual(INITIAL_PROGRESS)
  })

  it("when another partner asks for an installment, then 404 as for an unknown id, and its list stays empty; an operator sees it", async () => {
    const owner = await t.newPartner()
    const { id } = (await post(owner, installmentBody())).json().group_installment
    const stranger = await t.newPartner()
    const res = await call(t.app, stranger, 'GET', `/group_installments/${id}`)
    expect(res.statusCode).toBe(404)
    expect(res.json().code).toBe('group_installment_not_found')
    expect((await call(t.app, stranger, 'GET', '/group_installments')).json().group_installments).toEqual([])
    expect((await call(t.app, stranger, 'GET', `/group_installments/${uuidv7()}`)).json().code).toBe('group_installment_not_found')
    const operator = await t.newOperator()
    expect((await call(t.app, operator, 'GET', `/group_installments/${id}`)).statusCode).toBe(200)
  })

  it('when the later steps leave data in the tables, then progress marks each step done and the work order appears', async () => {
    const partner = await t.newPartner()
    const gi = (await post(partner, installmentBody())).json().group_installment
    const accountId = partner.accountId
    const groupId: string = gi.group.id
    const progressOf = async () => (await call(t.app, partner, 'GET', `/group_installments/${gi.id}`)).json().group_installment
    const statuses = async () => (await progressOf()).progress.map((s: { status: string }) => s.status)

    // Step 2: a coverage period of the group (linked to the installment as the coverage-periods module does).
    const cpId = uuidv7()
    await t.db
      .insertInto('coverage_periods')
      .values({ id: cpId, account_id: accountId, group_id: groupId, external_identifier: uniqueId('cp'), carrier_name: 'sandbox_edi', coverage_start_date: '2027-01-01', distribution_format: 'edi' })
      .execute()
    expect((await progressOf()).coverage_period_id).toBe(cpId)
    await t.db.updateTable('group_installments').set({ coverage_period_id: cpId }).where('id', '=', gi.id).execute()
    expect(await statuses()).toEqual(['done', 'done', 'pending', 'optional', 'pending', 'pending', 'pending'])

    // Step 3: a plan of the coverage period.
    await t.db
      .insertInto('plans')
      .values({ id: uuidv7(), account_id: accountId, coverage_period_id: cpId, external_identifier: 'plan-1', description: 'Gold PPO', product_line: 'medical', voluntary: false, policy_premium_method: 'list_bill', riders: '[]' })
      .execute()
    // Step 4: an employment classification of the group.
    await t.db
      .insertInto('employment_classifications')
      .values({ id: uuidv7(), account_id: accountId, group_id: groupId, external_identifier: 'class-1', description: 'Salaried', type: 'class', start_date: '2027-01-01' })
      .execute()
    expect(await statuses()).toEqual(['done', 'done', 'done', 'done', 'pending', 'pending', 'pending'])

    // Step 5 and 6: a subscriber with a qualifying life event on the coverage period.
    const subscriberId = uuidv7()
    await t.db
      .insertInto('members')
      .values({ id: subscriberId, account_id: accountId, group_id: groupId, kind: 'subscriber', external_identifier: 'emp-1', first_name: 'Ada', last_name: 'Lovelace', birth_date: '1990-01-01', gender: 'female', emails: '[]', phone_numbers: '[]' })
      .execute()
    expect(await statuses()).toEqual(['done', 'done', 'done', 'done', 'done', 'pending', 'pending'])
    await t.db
      .insertInto('qualifying_life_events')
      .values({ id: uuidv7(), account_id: accountId, subscriber_id: subscriberId, coverage_period_id: cpId, event: 'initial_enrollment', date: '2027-01-01', eligibility_start_date: '2027-01-01' })
      .execute()

    // Step 7: setup completed, with its work order.
    await t.db.updateTable('coverage_periods').set({ setup_completed_at: new Date() }).where('id', '=', cpId).execute()
    const workOrderId = uuidv7()
    await t.db.insertInto('work_orders').values({ id: workOrderId, account_id: accountId, coverage_period_id: cpId, history: '[]' }).execute()
    const done = await progressOf()
    expect(done.progress.every((s: { status: string }) => s.status === 'done')).toBe(true)
    expect(done).toMatchObject({ coverage_period_id: cpId, work_order_id: workOrderId, status: 'setup_completed' })
  })
})
