import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'
import { insertGroupWithLocation } from './helpers/installation-factories.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

/** A coverage period of a fresh installment group of the partner, created through the API. */
async function coveragePeriodOf(partner: Credential): Promise<string> {
  const { group } = await insertGroupWithLocation(t.db, partner.accountId)
  const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, {
    coverage_period: {
      external_identifier: 'plan-year-2027',
      coverage_start_date: '2027-01-01',
      employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' },
    },
  })
  expect(res.statusCode).toBe(201)
  return res.json().coverage_period.id
}

function planBody(overrides: Record<string, unknown> = {}) {
  return {
    plan: {
      external_identifier: 'gold-ppo',
      description: 'Gold PPO 500',
      product_line: 'medical',
      product_type: 'preferred_provider_organization',
      policy_premium_method: 'list_bill',
      ...overrides,
    },
  }
}

function expectProblem(res: LightMyRequestResponse, status: number, code: string, pointer: string, fieldCode?: string) {
  expect(res.statusCode).toBe(status)
  const body = res.json()
  expect(body.code).toBe(code)
  expect(body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer, ...(fieldCode ? { code: fieldCode } : {}) })]))
}

describe('plans (installation step 3)', () => {
  it('when a medical plan with 4_tier_composite and age_banded and riders is added, then 201 answers every field and an audit event is written', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    const res = await call(
      t.app,
      partner,
      'POST',
      `/coverage_periods/${coveragePeriodId}/plans`,
      planBody({
        policy_premium_method: '4_tier_composite',
        premium_rating_method: 'age_banded',
        riders: [{ name: 'Infertility treatment', carrier_rider_code: 'INF-01' }, { name: 'Chiropractic' }],
      }),
    )
    expect(res.statusCode).toBe(201)
    const { plan } = res.json()
    expect(plan).toEqual({
      id: expect.any(String),
      coverage_period_id: coveragePeriodId,
      external_identifier: 'gold-ppo',
      description: 'Gold PPO 500',
      product_line: 'medical',
      product_type: 'preferred_provider_organization',
      premium_level: null,
      voluntary: false,
      policy_premium_method: '4_tier_composite',
      premium_rating_method: 'age_banded',
      riders: [
        { name: 'Infertility treatment', carrier_rider_code: 'INF-01' },
        { name: 'Chiropractic', carrier_rider_code: null },
      ],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const audit = await t.db.selectFrom('audit_events').select('action').where('resource_id', '=', plan.id).execute()
    expect(audit).toEqual([{ action: 'plan.created' }])
  })

  it('when plans are read by id and listed for the coverage period, then both answer them, the list paginated', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    const medical = (await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody())).json().plan
    const dental = (
      await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ external_identifier: 'dental', product_line: 'dental', product_type: undefined, premium_level: 'buyup', voluntary: true }))
    ).json().plan
    expect(dental).toMatchObject({ product_type: null, premium_level: 'buyup', voluntary: true, riders: [] })
    const read = await call(t.app, partner, 'GET', `/plans/${medical.id}`)
    expect(read.statusCode).toBe(200)
    expect(read.json().plan).toEqual(medical)
    const list = await call(t.app, partner, 'GET', `/coverage_periods/${coveragePeriodId}/plans?per_page=1`)
    expect(list.statusCode).toBe(200)
    expect(list.json().plans).toEqual([medical])
    expect(list.headers).toMatchObject({ total: '2', 'per-page': '1', page: '1' })
    expect(list.headers.link).toContain('rel="next"')
  })

  it('when a medical plan has no product_type, then 422 points at product_type', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    const res = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ product_type: undefined }))
    expectProblem(res, 422, 'validation_failed', '/plan/product_type', 'required')
  })

  it('when a disability plan has no product_type, then 422 points at product_type; short_term is accepted', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    const missing = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ product_line: 'disability', product_type: undefined }))
    expectProblem(missing, 422, 'validation_failed', '/plan/product_type', 'required')
    const ok = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ product_line: 'disability', product_type: 'short_term' }))
    expect(ok.statusCode).toBe(201)
  })

  it('when the product_type does not fit the product line, then 422 points at product_type', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    const medicalWithDisabilityType = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ product_type: 'long_term' }))
    expectProblem(medicalWithDisabilityType, 422, 'validation_failed', '/plan/product_type', 'invalid_for_product_line')
    const lifeWithType = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ product_line: 'life' }))
    expectProblem(lifeWithType, 422, 'validation_failed', '/plan/product_type', 'invalid_for_product_line')
  })

  it('when the product_type is not a known value, then the schema answers 422 pointing at it', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    const res = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ product_type: 'ppo' }))
    expectProblem(res, 422, 'validation_failed', '/plan/product_type', 'invalid_value')
  })

  it('when a dental or vision plan has no premium_level, then 422 points at premium_level', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    for (const line of ['dental', 'vision']) {
      const res = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ product_line: line, product_type: undefined }))
      expectProblem(res, 422, 'validation_failed', '/plan/premium_level', 'required')
    }
  })

  it('when a medical plan has a premium_level, then 422 points at premium_level', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    const res = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ premium_level: 'base' }))
    expectProblem(res, 422, 'validation_failed', '/plan/premium_level', 'invalid_for_product_line')
  })

  it('when a composite policy_premium_method has no premium_rating_method, then 422 points at premium_rating_method', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    for (const method of ['2_tier_composite', '3_tier_composite', '4_tier_composite', '5_tier_composite']) {
      const res = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ policy_premium_method: method }))
      expectProblem(res, 422, 'validation_failed', '/plan/premium_rating_method', 'required')
    }
  })

  it('when several rules are broken at once, then every one is listed', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    const res = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ product_line: 'vision', product_type: 'indemnity', policy_premium_method: '3_tier_composite' }))
    expect(res.statusCode).toBe(422)
    expect(res.json().errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/plan/premium_level', '/plan/premium_rating_method', '/plan/product_type'])
  })

  it('when a rider has no name, then the schema answers 422 pointing at it', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    const res = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ riders: [{ carrier_rider_code: 'X' }] }))
    expectProblem(res, 422, 'validation_failed', '/plan/riders/0/name', 'required')
  })

  it('when the external_identifier is already used in the coverage period, then 409 duplicate_external_identifier points at it', async () => {
    const partner = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(partner)
    expect((await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody())).statusCode).toBe(201)
    const res = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody())
    expectProblem(res, 409, 'duplicate_external_identifier', '/plan/external_identifier', 'duplicate')
  })

  it('when another account adds, lists or reads plans of a coverage period it does not own, then 404 as for unknown ids', async () => {
    const owner = await t.newPartner()
    const stranger = await t.newPartner()
    const coveragePeriodId = await coveragePeriodOf(owner)
    const plan = (await call(t.app, owner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody())).json().plan
    const add = await call(t.app, stranger, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody({ external_identifier: 'intruder' }))
    expect([add.statusCode, add.json().code]).toEqual([404, 'coverage_period_not_found'])
    const list = await call(t.app, stranger, 'GET', `/coverage_periods/${coveragePeriodId}/plans`)
    expect([list.statusCode, list.json().code]).toEqual([404, 'coverage_period_not_found'])
    const read = await call(t.app, stranger, 'GET', `/plans/${plan.id}`)
    expect([read.statusCode, read.json().code]).toEqual([404, 'plan_not_found'])
    const operator = await t.newOperator()
    expect((await call(t.app, operator, 'GET', `/plans/${plan.id}`)).statusCode).toBe(200)
  })
})
