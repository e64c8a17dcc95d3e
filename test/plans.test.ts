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

describe('POST /coverage_periods/{id}/plans/copy (renewal)', () => {
  /** Two plan years of one group of the partner, through the API. */
  async function twoPlanYears(partner: Credential) {
    const { group } = await insertGroupWithLocation(t.db, partner.accountId)
    const year = async (y: number) => {
      const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, {
        coverage_period: { external_identifier: `plan-year-${y}`, coverage_start_date: `${y}-01-01`, coverage_end_date: `${y}-12-31`, employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' } },
      })
      expect(res.statusCode, res.body).toBe(201)
      return res.json().coverage_period.id as string
    }
    return { groupId: group.id, previous: await year(2027), next: await year(2028) }
  }
  const addPlan = async (partner: Credential, coveragePeriodId: string, overrides: Record<string, unknown> = {}) => {
    const res = await call(t.app, partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, planBody(overrides))
    expect(res.statusCode, res.body).toBe(201)
    return res.json().plan
  }
  const copy = (who: Credential, into: string, from: unknown) => call(t.app, who, 'POST', `/coverage_periods/${into}/plans/copy`, { from_coverage_period_id: from })
  const planCount = async (coveragePeriodId: string) =>
    Number((await t.db.selectFrom('plans').select((eb) => eb.fn.countAll().as('n')).where('coverage_period_id', '=', coveragePeriodId).executeTakeFirstOrThrow()).n)

  it('when the plans of the previous year are copied, then 201 lists each with every field as it was and a new id, in the source order, each audited', async () => {
    const partner = await t.newPartner()
    const { previous, next } = await twoPlanYears(partner)
    const sources = [
      await addPlan(partner, previous, { policy_premium_method: '4_tier_composite', premium_rating_method: 'age_banded', riders: [{ name: 'Infertility treatment', carrier_rider_code: 'INF-01' }, { name: 'Chiropractic' }] }),
      await addPlan(partner, previous, { external_identifier: 'dental', product_line: 'dental', product_type: undefined, premium_level: 'buyup', voluntary: true }),
      await addPlan(partner, previous, { external_identifier: 'ltd', product_line: 'disability', product_type: 'long_term' }),
    ]

    const res = await copy(partner, next, previous)
    expect(res.statusCode, res.body).toBe(201)
    const created = res.json().plans
    const fieldsOf = ({ id: _id, coverage_period_id: _cp, created_at: _c, updated_at: _u, ...fields }: Record<string, unknown>) => fields
    expect(created.map(fieldsOf)).toEqual(sources.map(fieldsOf))
    for (const plan of created) {
      expect(plan.coverage_period_id).toBe(next)
      expect(sources.map((s) => s.id)).not.toContain(plan.id)
    }
    // The target lists exactly these; the source keeps its own.
    expect((await call(t.app, partner, 'GET', `/coverage_periods/${next}/plans`)).json().plans).toEqual(created)
    expect((await call(t.app, partner, 'GET', `/coverage_periods/${previous}/plans`)).json().plans).toEqual(sources)
    const audit = await t.db.selectFrom('audit_events').select(['resource_id', 'action']).where('resource_id', 'in', created.map((p: { id: string }) => p.id)).execute()
    expect(audit).toHaveLength(3)
    expect(new Set(audit.map((a) => a.action))).toEqual(new Set(['plan.created']))
  })

  it('when the source is expired (the renewal after the year ended), then its plans are copied all the same; an empty source copies nothing', async () => {
    const partner = await t.newPartner()
    const { previous, next } = await twoPlanYears(partner)
    const emptyAnswer = await copy(partner, next, previous)
    expect([emptyAnswer.statusCode, emptyAnswer.json()]).toEqual([201, { plans: [] }])
    await addPlan(partner, previous)
    await t.db.updateTable('coverage_periods').set({ state: 'expired' }).where('id', '=', previous).execute()
    const res = await copy(partner, next, previous)
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().plans.map((p: { external_identifier: string }) => p.external_identifier)).toEqual(['gold-ppo'])
  })

  it('when the target already has plans with some of the external_identifiers, then 409 names every one and nothing is copied', async () => {
    const partner = await t.newPartner()
    const { previous, next } = await twoPlanYears(partner)
    await addPlan(partner, previous, { external_identifier: 'gold-ppo' })
    await addPlan(partner, previous, { external_identifier: 'silver-ppo' })
    await addPlan(partner, previous, { external_identifier: 'bronze-ppo' })
    await addPlan(partner, next, { external_identifier: 'silver-ppo' })
    await addPlan(partner, next, { external_identifier: 'bronze-ppo' })

    const res = await copy(partner, next, previous)
    expectProblem(res, 409, 'duplicate_external_identifier', '/from_coverage_period_id', 'duplicate')
    expect(res.json().errors).toHaveLength(2)
    expect(res.json().errors.map((e: { detail: string }) => e.detail).join(' ')).toMatch(/"bronze-ppo".*"silver-ppo"/)
    expect(res.json().detail).toContain('Nothing was copied')
    expect(await planCount(next)).toBe(2)
  })

  it('when the source is the target itself, or a coverage period of another group, then 422 points at from_coverage_period_id', async () => {
    const partner = await t.newPartner()
    const { previous, next } = await twoPlanYears(partner)
    const other = await twoPlanYears(partner)
    await addPlan(partner, previous)
    await addPlan(partner, other.previous)

    expectProblem(await copy(partner, previous, previous), 422, 'validation_failed', '/from_coverage_period_id', 'same_coverage_period')
    expectProblem(await copy(partner, next, other.previous), 422, 'validation_failed', '/from_coverage_period_id', 'other_group')
    expect(await planCount(next)).toBe(0)
    expect(await planCount(previous)).toBe(1)
  })

  it('when the target is expired, then 422 names the path id and nothing is copied', async () => {
    const partner = await t.newPartner()
    const { previous, next } = await twoPlanYears(partner)
    await addPlan(partner, next)
    await t.db.updateTable('coverage_periods').set({ state: 'expired' }).where('id', '=', previous).execute()

    const res = await copy(partner, previous, next)
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ parameter: 'id', code: 'coverage_period_expired' }] })
    expect(await planCount(previous)).toBe(0)
  })

  it('when the body names no coverage period id, then the schema answers 422 pointing at it', async () => {
    const partner = await t.newPartner()
    const { next } = await twoPlanYears(partner)
    expectProblem(await copy(partner, next, 'not-a-uuid'), 422, 'validation_failed', '/from_coverage_period_id')
    const missing = await call(t.app, partner, 'POST', `/coverage_periods/${next}/plans/copy`, {})
    expectProblem(missing, 422, 'validation_failed', '/from_coverage_period_id')
  })

  it("when either coverage period is another account's or unknown, then 404 coverage_period_not_found and nothing is copied; an operator may copy a partner's", async () => {
    const owner = await t.newPartner()
    const stranger = await t.newPartner('Stranger')
    const mine = await twoPlanYears(owner)
    const theirs = await twoPlanYears(stranger)
    await addPlan(owner, mine.previous)
    await addPlan(stranger, theirs.previous)

    const intoTheirs = await copy(owner, theirs.next, mine.previous)
    expect([intoTheirs.statusCode, intoTheirs.json().code]).toEqual([404, 'coverage_period_not_found'])
    const fromTheirs = await copy(owner, mine.next, theirs.previous)
    expectProblem(fromTheirs, 404, 'coverage_period_not_found', '/from_coverage_period_id', 'not_found')
    const unknown = await copy(owner, mine.next, '0193a4b2-0000-7000-8000-00000000dead')
    expect([unknown.statusCode, unknown.json().code]).toEqual([404, 'coverage_period_not_found'])
    expect(await planCount(theirs.next)).toBe(0)
    expect(await planCount(mine.next)).toBe(0)

    const operator = await t.newOperator()
    const byOperator = await copy(operator, mine.next, mine.previous)
    expect(byOperator.statusCode, byOperator.body).toBe(201)
    const stored = await t.db.selectFrom('plans').select('account_id').where('coverage_period_id', '=', mine.next).execute()
    expect(stored).toEqual([{ account_id: owner.accountId }])
  })
})
