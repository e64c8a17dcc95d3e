import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertGroupWithLocation } from './helpers/installation-factories.js'
import { dependentBody, subscriberBody } from './helpers/member-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

/** The CMS example NPI (valid check digit), and the same digits with a wrong one. */
const VALID_NPI = '1234567893'
const BAD_CHECK_DIGIT_NPI = '1234567890'

interface Enrollment {
  partner: Credential
  hmoPlanId: string
  ppoPlanId: string
  subscriberId: string
  dependentId: string
}

function expectCreated(res: LightMyRequestResponse, key: string) {
  expect(res.statusCode, res.body).toBe(201)
  return res.json()[key]
}

/**
 * Steps 1 to 6 through the API: a coverage period with an HMO and a PPO plan, a subscriber with a
 * child, and an initial_enrollment electing the HMO for the child only.
 */
async function enrollment(): Promise<Enrollment> {
  const partner = await t.newPartner()
  const { group, location } = await insertGroupWithLocation(t.db, partner.accountId)
  const period = expectCreated(
    await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, {
      coverage_period: { external_identifier: 'py-2027', coverage_start_date: '2027-01-01', employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' } },
    }),
    'coverage_period',
  )
  const planOf = async (externalIdentifier: string, productType: string) =>
    expectCreated(
      await call(t.app, partner, 'POST', `/coverage_periods/${period.id}/plans`, {
        plan: { external_identifier: externalIdentifier, description: externalIdentifier, product_line: 'medical', product_type: productType, policy_premium_method: 'list_bill' },
      }),
      'plan',
    ).id as string
  const hmoPlanId = await planOf('hmo', 'health_maintenance_organization')
  const ppoPlanId = await planOf('ppo', 'preferred_provider_organization')
  const subscriber = expectCreated(
    await call(t.app, partner, 'POST', `/groups/${group.id}/subscribers`, {
      subscriber: subscriberBody({ groupId: group.id, locationId: location.id, classificationId: '' }, 1, { class: undefined, dependents: [dependentBody(10)] }),
    }),
    'subscriber',
  )
  const dependentId = subscriber.dependents[0].id as string
  const cover = [{ member_id: dependentId, start_date: '2027-01-01', status: 'employer_sponsored' }]
  expectCreated(
    await call(t.app, partner, 'POST', `/subscribers/${subscriber.id}/qualifying_life_events`, {
      qualifying_life_event: {
        coverage_period_id: period.id,
        event: 'initial_enrollment',
        date: '2027-01-01',
        eligibility_start_date: '2027-01-01',
        plan_elections: { medical: { type: 'election', plan_id: hmoPlanId, coverages: cover } },
      },
    }),
    'qualifying_life_event',
  )
  return { partner, hmoPlanId, ppoPlanId, subscriberId: subscriber.id, dependentId }
}

function selectionBody(planId: string, overrides: Record<string, unknown> = {}) {
  return {
    provider_selection: { plan_id: planId, npi: VALID_NPI, first_name: 'Alex', last_name: 'Rivera', effective_date: '2027-01-01', existing_patient: true, ...overrides },
  }
}

const post = (e: Enrollment, memberId: string, body: unknown) => call(t.app, e.partner, 'POST', `/members/${memberId}/provider_selections`, body)

function expectProblem(res: LightMyRequestResponse, status: number, code: string, pointer: string, fieldCode?: string) {
  expect(res.statusCode, res.body).toBe(status)
  const body = res.json()
  expect(body.code).toBe(code)
  expect(body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer, ...(fieldCode ? { code: fieldCode } : {}) })]))
}

describe('primary care provider selections', () => {
  it('when a member elected into an HMO plan selects a provider, then 201 answers it, the list shows it and an audit event is written', async () => {
    const e = await enrollment()
    const res = await post(e, e.dependentId, selectionBody(e.hmoPlanId))
    expect(res.statusCode, res.body).toBe(201)
    expect(res.headers['cache-control']).toBe('no-store')
    const selection = res.json().provider_selection
    expect(selection).toEqual({
      id: expect.any(String),
      member_id: e.dependentId,
      plan_id: e.hmoPlanId,
      npi: VALID_NPI,
      first_name: 'Alex',
      last_name: 'Rivera',
      organization_name: null,
      effective_date: '2027-01-01',
      existing_patient: true,
      created_at: expect.any(String),
    })
    const list = await call(t.app, e.partner, 'GET', `/members/${e.dependentId}/provider_selections`)
    expect(list.statusCode).toBe(200)
    expect(list.headers['cache-control']).toBe('no-store')
    expect(list.headers.total).toBe('1')
    expect(list.json().provider_selections).toEqual([selection])
    const audit = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', selection.id).execute()
    expect(audit).toEqual([{ action: 'provider_selection.created' }])
  })

  it('when the NPI has a wrong check digit, then 422 invalid_npi at /provider_selection/npi', async () => {
    const e = await enrollment()
    expectProblem(await post(e, e.dependentId, selectionBody(e.hmoPlanId, { npi: BAD_CHECK_DIGIT_NPI })), 422, 'validation_failed', '/provider_selection/npi', 'invalid_npi')
  })

  it('when the NPI is not 10 digits, then the schema refuses it with 422 at /provider_selection/npi', async () => {
    const e = await enrollment()
    expectProblem(await post(e, e.dependentId, selectionBody(e.hmoPlanId, { npi: '123456789' })), 422, 'validation_failed', '/provider_selection/npi')
  })

  it('when the plan is not an HMO medical plan, then 422 not_hmo_medical_plan at /provider_selection/plan_id', async () => {
    const e = await enrollment()
    expectProblem(await post(e, e.dependentId, selectionBody(e.ppoPlanId)), 422, 'validation_failed', '/provider_selection/plan_id', 'not_hmo_medical_plan')
  })

  it('when the member is not elected into the HMO plan, then 422 member_not_elected at /provider_selection/plan_id', async () => {
    const e = await enrollment()
    expectProblem(await post(e, e.subscriberId, selectionBody(e.hmoPlanId)), 422, 'validation_failed', '/provider_selection/plan_id', 'member_not_elected')
  })

  it("when the plan belongs to another account, then 422 unknown_plan at /provider_selection/plan_id", async () => {
    const e = await enrollment()
    const stranger = await enrollment()
    expectProblem(await post(e, e.dependentId, selectionBody(stranger.hmoPlanId)), 422, 'validation_failed', '/provider_selection/plan_id', 'unknown_plan')
  })

  it('when the same member, plan and effective_date is selected twice, then 409 duplicate_provider_selection', async () => {
    const e = await enrollment()
    expect((await post(e, e.dependentId, selectionBody(e.hmoPlanId))).statusCode).toBe(201)
    expectProblem(await post(e, e.dependentId, selectionBody(e.hmoPlanId, { npi: '1245319599' })), 409, 'duplicate_provider_selection', '/provider_selection/effective_date')
    expect((await post(e, e.dependentId, selectionBody(e.hmoPlanId, { effective_date: '2027-07-01' }))).statusCode).toBe(201)
  })

  it("when another account's member is addressed, then 404 member_not_found for create and list", async () => {
    const owner = await enrollment()
    const other = await t.newPartner('Other partner')
    const create = await call(t.app, other, 'POST', `/members/${owner.dependentId}/provider_selections`, selectionBody(owner.hmoPlanId))
    expect(create.statusCode).toBe(404)
    expect(create.json().code).toBe('member_not_found')
    const list = await call(t.app, other, 'GET', `/members/${owner.dependentId}/provider_selections`)
    expect(list.statusCode).toBe(404)
    expect(list.json().code).toBe('member_not_found')
  })
})
