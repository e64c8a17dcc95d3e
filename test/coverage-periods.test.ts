import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'
import { insertGroup, insertGroupWithLocation } from './helpers/installation-factories.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const isoDay = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10)

function coveragePeriodBody(overrides: Record<string, unknown> = {}) {
  return {
    coverage_period: {
      external_identifier: 'plan-year-2027',
      coverage_start_date: '2027-01-01',
      coverage_end_date: '2027-12-31',
      open_enrollment_start_date: '2026-11-01',
      open_enrollment_end_date: '2026-11-30',
      employer_sign_off: { name: 'Pat Smith', title: 'Chief Financial Officer', date: isoDay(0) },
      ...overrides,
    },
  }
}

async function installationGroup(partner: Credential, carrierName = 'sandbox_edi') {
  return (await insertGroupWithLocation(t.db, partner.accountId, { carrierName })).group
}

function expectProblem(res: LightMyRequestResponse, status: number, code: string, pointer: string, fieldCode?: string) {
  expect(res.statusCode).toBe(status)
  const body = res.json()
  expect(body.code).toBe(code)
  expect(body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer, ...(fieldCode ? { code: fieldCode } : {}) })]))
}

describe('coverage periods (installation step 2)', () => {
  it('when a coverage period with a sign-off is added to an installment, then it answers every field, takes the carrier of the installment and is linked to it', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner, 'sandbox_api')
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ carrier_group_number: 'G-1', additional_information: 'first year' }))
    expect(res.statusCode).toBe(201)
    const { coverage_period } = res.json()
    expect(coverage_period).toEqual({
      id: expect.any(String),
      group_id: group.id,
      external_identifier: 'plan-year-2027',
      carrier_name: 'sandbox_api',
      coverage_start_date: '2027-01-01',
      coverage_end_date: '2027-12-31',
      open_enrollment_start_date: '2026-11-01',
      open_enrollment_end_date: '2026-11-30',
      carrier_group_number: 'G-1',
      additional_information: 'first year',
      employer_sign_off: { name: 'Pat Smith', title: 'Chief Financial Officer', date: isoDay(0) },
      state: 'initial',
      distribution_format: 'api',
      setup_completed_at: null,
      installed_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const installment = await t.db.selectFrom('group_installments').selectAll().where('group_id', '=', group.id).executeTakeFirstOrThrow()
    expect(installment.coverage_period_id).toBe(coverage_period.id)
    const audit = await t.db.selectFrom('audit_events').select(['action', 'resource_id']).where('account_id', '=', partner.accountId).execute()
    expect(audit).toEqual(
      expect.arrayContaining([
        { action: 'coverage_period.created', resource_id: coverage_period.id },
        { action: 'group_installment.coverage_period_linked', resource_id: installment.id },
      ]),
    )
  })

  it('when the coverage period is read by id and listed for its group, then both answer it, the list with pagination headers', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    const first = (await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody())).json().coverage_period
    const second = (
      await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ external_identifier: 'plan-year-2028', coverage_start_date: '2028-01-01', coverage_end_date: null, open_enrollment_start_date: null, open_enrollment_end_date: null }))
    ).json().coverage_period
    const read = await call(t.app, partner, 'GET', `/coverage_periods/${first.id}`)
    expect(read.statusCode).toBe(200)
    expect(read.json().coverage_period).toEqual(first)
    const page = await call(t.app, partner, 'GET', `/groups/${group.id}/coverage_periods?per_page=1&page=2`)
    expect(page.statusCode).toBe(200)
    expect(page.json().coverage_periods).toEqual([second])
    expect(page.headers).toMatchObject({ total: '2', 'per-page': '1', page: '2' })
    expect(page.headers.link).toContain('rel="prev"')
    // The installment keeps its first coverage period.
    const installment = await t.db.selectFrom('group_installments').select('coverage_period_id').where('group_id', '=', group.id).executeTakeFirstOrThrow()
    expect(installment.coverage_period_id).toBe(first.id)
  })

  it('when the group has no installment, then the sign-off is optional and carrier_name is required', async () => {
    const partner = await t.newPartner()
    const group = await insertGroup(t.db, partner.accountId)
    const missingCarrier = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ employer_sign_off: undefined }))
    expectProblem(missingCarrier, 422, 'validation_failed', '/coverage_period/carrier_name', 'required')
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ employer_sign_off: undefined, carrier_name: 'sandbox_manual' }))
    expect(res.statusCode).toBe(201)
    expect(res.json().coverage_period).toMatchObject({ carrier_name: 'sandbox_manual', distribution_format: 'manual', employer_sign_off: null })
  })

  it('when carrier_name is not a carrier of the deployment, then 422 points at it', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ carrier_name: 'acme_insurance' }))
    expectProblem(res, 422, 'validation_failed', '/coverage_period/carrier_name', 'unknown_carrier')
  })

  it('when coverage_end_date is not after coverage_start_date, then 422 points at coverage_end_date', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ coverage_end_date: '2027-01-01' }))
    expectProblem(res, 422, 'validation_failed', '/coverage_period/coverage_end_date', 'not_after_start')
  })

  it('when open enrollment starts after it ends, then 422 points at open_enrollment_start_date', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ open_enrollment_start_date: '2026-12-01' }))
    expectProblem(res, 422, 'validation_failed', '/coverage_period/open_enrollment_start_date', 'after_open_enrollment_end')
  })

  it('when open enrollment ends after coverage starts, then 422 points at open_enrollment_end_date; ending on the start date is accepted', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    const late = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ open_enrollment_end_date: '2027-01-02' }))
    expectProblem(late, 422, 'validation_failed', '/coverage_period/open_enrollment_end_date', 'after_coverage_start')
    const atStart = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ open_enrollment_end_date: '2027-01-01' }))
    expect(atStart.statusCode).toBe(201)
  })

  it('when the sign-off date is after today (UTC), then 422 points at employer_sign_off/date', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: isoDay(2) } }))
    expectProblem(res, 422, 'validation_failed', '/coverage_period/employer_sign_off/date', 'in_the_future')
  })

  it('when the group has an installment and no sign-off is sent, then 422 points at employer_sign_off', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ employer_sign_off: undefined }))
    expectProblem(res, 422, 'validation_failed', '/coverage_period/employer_sign_off', 'required')
  })

  it('when the sign-off lacks its title, then the schema answers 422 pointing at the missing field', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ employer_sign_off: { name: 'Pat Smith', date: isoDay(0) } }))
    expectProblem(res, 422, 'validation_failed', '/coverage_period/employer_sign_off/title', 'required')
  })

  it('when a date is not a real YYYY-MM-DD date, then the schema answers 422 pointing at it', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ coverage_start_date: '2027-13-01' }))
    expectProblem(res, 422, 'validation_failed', '/coverage_period/coverage_start_date', 'invalid_format')
  })

  it('when several rules are broken at once, then every one is listed', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    const res = await call(
      t.app,
      partner,
      'POST',
      `/groups/${group.id}/coverage_periods`,
      coveragePeriodBody({ carrier_name: 'nobody', coverage_end_date: '2026-06-01', open_enrollment_end_date: '2027-02-01', employer_sign_off: undefined }),
    )
    expect(res.statusCode).toBe(422)
    expect(res.json().errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      '/coverage_period/carrier_name',
      '/coverage_period/coverage_end_date',
      '/coverage_period/employer_sign_off',
      '/coverage_period/open_enrollment_end_date',
    ])
  })

  it('when the external_identifier is already used in the group, then 409 duplicate_external_identifier points at it', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    expect((await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody())).statusCode).toBe(201)
    const res = await call(t.app, partner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody())
    expectProblem(res, 409, 'duplicate_external_identifier', '/coverage_period/external_identifier', 'duplicate')
  })

  it('when another account adds, lists or reads coverage periods of a group it does not own, then 404 as for unknown ids', async () => {
    const owner = await t.newPartner()
    const stranger = await t.newPartner()
    const group = await installationGroup(owner)
    const created = (await call(t.app, owner, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody())).json().coverage_period
    const add = await call(t.app, stranger, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody({ external_identifier: 'intruder' }))
    expect([add.statusCode, add.json().code]).toEqual([404, 'group_not_found'])
    const list = await call(t.app, stranger, 'GET', `/groups/${group.id}/coverage_periods`)
    expect([list.statusCode, list.json().code]).toEqual([404, 'group_not_found'])
    const read = await call(t.app, stranger, 'GET', `/coverage_periods/${created.id}`)
    expect([read.statusCode, read.json().code]).toEqual([404, 'coverage_period_not_found'])
    const unknown = await call(t.app, owner, 'GET', '/coverage_periods/0193a4b2-0000-7000-8000-00000000dead')
    expect([unknown.statusCode, unknown.json().code]).toEqual([404, 'coverage_period_not_found'])
  })

  it('when an operator reads a partner coverage period, then it is found, and one it adds belongs to the partner account', async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const group = await installationGroup(partner)
    const res = await call(t.app, operator, 'POST', `/groups/${group.id}/coverage_periods`, coveragePeriodBody())
    expect(res.statusCode).toBe(201)
    const id = res.json().coverage_period.id
    expect((await call(t.app, operator, 'GET', `/coverage_periods/${id}`)).statusCode).toBe(200)
    expect((await call(t.app, partner, 'GET', `/coverage_periods/${id}`)).statusCode).toBe(200)
  })
})

describe("renewal: the carrier's group number", () => {
  /** A plan year of the group through the API; `year` sets its dates and external_identifier. */
  async function planYear(partner: Credential, groupId: string, year: number, overrides: Record<string, unknown> = {}) {
    const res = await call(
      t.app,
      partner,
      'POST',
      `/groups/${groupId}/coverage_periods`,
      coveragePeriodBody({
        external_identifier: `plan-year-${year}`,
        coverage_start_date: `${year}-01-01`,
        coverage_end_date: `${year}-12-31`,
        open_enrollment_start_date: `${year - 1}-11-01`,
        open_enrollment_end_date: `${year - 1}-11-30`,
        ...overrides,
      }),
    )
    expect(res.statusCode, res.body).toBe(201)
    return res.json().coverage_period
  }

  it("when a renewal with the same carrier gives no carrier_group_number, then it keeps the latest-starting period's; null counts as none given; a given number wins", async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner)
    await planYear(partner, group.id, 2027, { carrier_group_number: 'G-2027' })
    await planYear(partner, group.id, 2028, { carrier_group_number: 'G-2028' })
    // Created later but starting earlier: not the one a renewal takes its number from.
    await planYear(partner, group.id, 2026, { carrier_group_number: 'G-2026' })

    expect((await planYear(partner, group.id, 2029)).carrier_group_number).toBe('G-2028')
    expect((await planYear(partner, group.id, 2030, { carrier_group_number: null })).carrier_group_number).toBe('G-2028')
    expect((await planYear(partner, group.id, 2031, { carrier_group_number: 'G-NEW' })).carrier_group_number).toBe('G-NEW')
    expect((await planYear(partner, group.id, 2032)).carrier_group_number).toBe('G-NEW')
  })

  it('when the renewal moves to another carrier, or the group never had a number, then nothing is copied', async () => {
    const partner = await t.newPartner()
    const group = await installationGroup(partner, 'sandbox_edi')
    await planYear(partner, group.id, 2027, { carrier_group_number: 'EDI-1' })
    const moved = await planYear(partner, group.id, 2028, { carrier_name: 'sandbox_api' })
    expect(moved).toMatchObject({ carrier_name: 'sandbox_api', carrier_group_number: null })

    const other = await installationGroup(partner, 'sandbox_edi')
    await planYear(partner, other.id, 2027)
    expect((await planYear(partner, other.id, 2028)).carrier_group_number).toBeNull()
  })

  it("when another group of the account has a number with that carrier, then it is not this group's", async () => {
    const partner = await t.newPartner()
    const first = await installationGroup(partner)
    await planYear(partner, first.id, 2027, { carrier_group_number: 'FIRST-GROUP' })
    const second = await installationGroup(partner)
    expect((await planYear(partner, second.id, 2027)).carrier_group_number).toBeNull()
  })
})
