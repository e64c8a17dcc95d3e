import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uuidv7 } from '../src/lib/ids.js'
import { discrepancyMessage } from '../src/modules/errors/discrepancy-messages.js'
import { insertGroupWithLocation } from './helpers/installation-factories.js'
import {
  insertCoveragePeriod,
  insertLifeEvent,
  insertMember,
  insertPlan,
  insertProducer,
  insertProviderSelection,
  insertReadySetup,
} from './helpers/setup-factories.js'
import { call, startTestApp, type Credential, type TestApp } from './helpers/test-app.js'

let t: TestApp
beforeAll(async () => {
  t = await startTestApp()
})
afterAll(async () => t?.close())

const completeSetup = (who: Credential, coveragePeriodId: string) => call(t.app, who, 'POST', `/coverage_periods/${coveragePeriodId}/complete_setup`)
const completeInstallment = (who: Credential, installmentId: string) => call(t.app, who, 'POST', `/group_installments/${installmentId}/complete_setup`)
const getWorkOrder = (who: Credential, coveragePeriodId: string) => call(t.app, who, 'GET', `/coverage_periods/${coveragePeriodId}/work_order`)

const errorsOf = (coveragePeriodId: string) =>
  t.db.selectFrom('errors').selectAll().where('coverage_period_id', '=', coveragePeriodId).orderBy('member_id').execute()
const workOrderCount = async (coveragePeriodId: string) =>
  Number((await t.db.selectFrom('work_orders').select((eb) => eb.fn.countAll().as('n')).where('coverage_period_id', '=', coveragePeriodId).executeTakeFirstOrThrow()).n)

describe('POST /coverage_periods/{id}/complete_setup (step 7)', () => {
  it('when everything is in place, then 201 opens the work order, the coverage period moves to configuration and the installment to setup_completed', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const before = Date.now()

    const res = await completeSetup(partner, setup.coveragePeriod.id)
    expect(res.statusCode, res.body).toBe(201)
    const workOrder = res.json().work_order
    expect(workOrder).toEqual({
      id: expect.any(String),
      account_id: partner.accountId,
      account_name: 'Test partner',
      coverage_period_id: setup.coveragePeriod.id,
      group_id: setup.group.id,
      group_name: setup.group.organization_name,
      group_external_identifier: setup.group.external_identifier,
      employer_name: setup.group.organization_name,
      coverage_period_external_identifier: setup.coveragePeriod.external_identifier,
      carrier_name: 'sandbox_edi',
      status: 'open',
      status_changed_at: workOrder.created_at,
      age_seconds: expect.any(Number),
      assigned_user: null,
      allowed_transitions: ['in_progress', 'cancelled'],
      history: [{ status: 'open', at: workOrder.created_at, by: 'Test partner key', message: expect.any(String) }],
      created_at: expect.any(String),
      updated_at: workOrder.created_at,
    })
    // Just opened: it has sat in its status for no time worth counting.
    expect(workOrder.age_seconds).toBeLessThan(5)

    const cp = (await call(t.app, partner, 'GET', `/coverage_periods/${setup.coveragePeriod.id}`)).json().coverage_period
    expect(cp.state).toBe('configuration')
    expect(Date.parse(cp.setup_completed_at)).toBeGreaterThanOrEqual(before - 1000)

    const installment = (await call(t.app, partner, 'GET', `/group_installments/${setup.installment!.id}`)).json().group_installment
    expect(installment.status).toBe('setup_completed')
    expect(installment.work_order_id).toBe(workOrder.id)
    const stored = await t.db.selectFrom('group_installments').select('status').where('id', '=', setup.installment!.id).executeTakeFirstOrThrow()
    expect(stored.status).toBe('setup_completed')

    const read = await getWorkOrder(partner, setup.coveragePeriod.id)
    expect(read.statusCode, read.body).toBe(200)
    // The same work order, older by the time between the two answers.
    const { age_seconds: age, ...rest } = read.json().work_order
    expect({ ...rest, age_seconds: workOrder.age_seconds }).toEqual(workOrder)
    expect(age).toBeGreaterThanOrEqual(workOrder.age_seconds)

    const actions = await t.db.selectFrom('audit_events').select('action').where('account_id', '=', partner.accountId).execute()
    expect(actions.map((a) => a.action)).toEqual(expect.arrayContaining(['work_order.created', 'coverage_period.setup_completed']))
  })

  it('when the setup is completed again, then 200 answers the same work order and nothing changes (no second row, no second set of errors)', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const hmo = await insertPlan(t.db, setup.coveragePeriod, { productType: 'health_maintenance_organization' })
    const member = await insertMember(t.db, setup.group)
    await insertLifeEvent(t.db, member, setup.coveragePeriod, [{ key: 'medical', plan: hmo, members: [member] }])

    const first = await completeSetup(partner, setup.coveragePeriod.id)
    expect(first.statusCode, first.body).toBe(201)
    const cpAfterFirst = await t.db.selectFrom('coverage_periods').selectAll().where('id', '=', setup.coveragePeriod.id).executeTakeFirstOrThrow()
    expect(await errorsOf(setup.coveragePeriod.id)).toHaveLength(1)

    const second = await completeSetup(partner, setup.coveragePeriod.id)
    expect(second.statusCode, second.body).toBe(200)
    // age_seconds alone may have grown between the two answers.
    expect({ ...second.json().work_order, age_seconds: 0 }).toEqual({ ...first.json().work_order, age_seconds: 0 })
    expect(await workOrderCount(setup.coveragePeriod.id)).toBe(1)
    expect(await errorsOf(setup.coveragePeriod.id)).toHaveLength(1)
    const cpAfterSecond = await t.db.selectFrom('coverage_periods').selectAll().where('id', '=', setup.coveragePeriod.id).executeTakeFirstOrThrow()
    expect(cpAfterSecond).toEqual(cpAfterFirst)

    const viaInstallment = await completeInstallment(partner, setup.installment!.id)
    expect(viaInstallment.statusCode, viaInstallment.body).toBe(200)
    expect(viaInstallment.json().work_order.id).toBe(first.json().work_order.id)
  })

  it('when two calls arrive at once, then one work order is opened: one answers 201, the other 200 with the same work order', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const hmo = await insertPlan(t.db, setup.coveragePeriod, { productType: 'health_maintenance_organization' })
    await insertLifeEvent(t.db, setup.subscriber, setup.coveragePeriod, [{ key: 'medical', plan: hmo, members: [setup.subscriber] }])

    const answers = await Promise.all([completeSetup(partner, setup.coveragePeriod.id), completeSetup(partner, setup.coveragePeriod.id)])
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 201])
    expect(answers[0]!.json().work_order.id).toBe(answers[1]!.json().work_order.id)
    expect(await workOrderCount(setup.coveragePeriod.id)).toBe(1)
    expect(await errorsOf(setup.coveragePeriod.id)).toHaveLength(1)
  })

  it('when the coverage period has no plan, no subscriber with a life event and producer splits off 100, then 422 lists every gap at once and nothing is written', async () => {
    const partner = await t.newPartner()
    const { group, installment } = await insertGroupWithLocation(t.db, partner.accountId)
    const coveragePeriod = await insertCoveragePeriod(t.db, group)
    await insertProducer(t.db, group, 60, 0)
    await insertProducer(t.db, group, 30, 1)
    const subscriber = await insertMember(t.db, group)
    const otherPeriod = await insertCoveragePeriod(t.db, group, { link: false })
    await insertLifeEvent(t.db, subscriber, otherPeriod) // an event on another coverage period does not count

    const res = await completeSetup(partner, coveragePeriod.id)
    expect(res.statusCode, res.body).toBe(422)
    expect(res.headers['content-type']).toContain('application/problem+json')
    const body = res.json()
    expect(body.code).toBe('setup_incomplete')
    expect(body.errors.map((e: { code: string }) => e.code)).toEqual(['no_plans', 'no_enrolled_subscribers', 'invalid_commission_splits'])
    for (const gap of body.errors) expect(gap.detail).toEqual(expect.any(String))

    expect(await workOrderCount(coveragePeriod.id)).toBe(0)
    const cp = await t.db.selectFrom('coverage_periods').selectAll().where('id', '=', coveragePeriod.id).executeTakeFirstOrThrow()
    expect(cp.state).toBe('initial')
    expect(cp.setup_completed_at).toBeNull()
    const stored = await t.db.selectFrom('group_installments').select('status').where('id', '=', installment!.id).executeTakeFirstOrThrow()
    expect(stored.status).toBe('in_progress')
    expect((await getWorkOrder(partner, coveragePeriod.id)).json().code).toBe('work_order_not_found')
  })

  it('when only the plan is missing, then 422 lists just that gap; a group without producers passes the split check', async () => {
    const partner = await t.newPartner()
    const { group } = await insertGroupWithLocation(t.db, partner.accountId)
    const coveragePeriod = await insertCoveragePeriod(t.db, group)
    const subscriber = await insertMember(t.db, group)
    await insertLifeEvent(t.db, subscriber, coveragePeriod)

    const res = await completeSetup(partner, coveragePeriod.id)
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json().errors.map((e: { code: string }) => e.code)).toEqual(['no_plans'])

    await insertPlan(t.db, coveragePeriod)
    expect((await completeSetup(partner, coveragePeriod.id)).statusCode).toBe(201)
  })

  it('when members are elected into plans, then a PCP error is raised exactly for HMO medical enrollments without a selection', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId, { carrierName: 'sandbox_edi' }) // requires a PCP for HMOs
    const { coveragePeriod, group } = setup
    const hmo = await insertPlan(t.db, coveragePeriod, { productType: 'health_maintenance_organization' })
    const dental = await insertPlan(t.db, coveragePeriod, { productLine: 'dental', productType: null })

    const withoutPcp = await insertMember(t.db, group, { firstName: 'NoPcp' })
    const child = await insertMember(t.db, group, { subscriberId: withoutPcp.id, firstName: 'Child' })
    await insertLifeEvent(t.db, withoutPcp, coveragePeriod, [
      { key: 'medical', plan: hmo, members: [withoutPcp, child] },
      { key: 'dental', plan: dental, members: [withoutPcp, child] },
    ])
    const selected = await insertMember(t.db, group, { firstName: 'Selected' })
    await insertLifeEvent(t.db, selected, coveragePeriod, [{ key: 'medical', plan: hmo, members: [selected] }])
    await insertProviderSelection(t.db, selected, hmo)
    const waived = await insertMember(t.db, group, { firstName: 'Waived' })
    await insertLifeEvent(t.db, waived, coveragePeriod, [{ key: 'medical' }])
    // setup.subscriber is in the PPO plan: no PCP needed.

    const res = await completeSetup(partner, coveragePeriod.id)
    expect(res.statusCode, res.body).toBe(201)
    const errors = await errorsOf(coveragePeriod.id)
    expect(errors.map((e) => e.member_id).sort()).toEqual([withoutPcp.id, child.id].sort())
    for (const error of errors) {
      expect(error).toMatchObject({
        account_id: partner.accountId,
        coverage_period_id: coveragePeriod.id,
        group_id: group.id,
        plan_id: hmo.id,
        assignee: 'partner',
        severity: 'failure',
        source: 'api',
        status: 'unresolved',
        discrepancy_parameter: 'primary_care_provider',
        discrepancy_carrier: null,
        discrepancy_platform: null,
        message: discrepancyMessage('primary_care_provider', 'platform_missing').message,
        discrepancy_kind: 'platform_missing',
      })
    }
  })

  it('when the carrier does not require a PCP for HMOs, then HMO enrollments without a selection raise no error', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId, { carrierName: 'sandbox_api' })
    const hmo = await insertPlan(t.db, setup.coveragePeriod, { productType: 'health_maintenance_organization' })
    const member = await insertMember(t.db, setup.group)
    await insertLifeEvent(t.db, member, setup.coveragePeriod, [{ key: 'medical', plan: hmo, members: [member] }])

    const res = await completeSetup(partner, setup.coveragePeriod.id)
    expect(res.statusCode, res.body).toBe(201)
    expect(await errorsOf(setup.coveragePeriod.id)).toEqual([])
  })
})

describe('who completes the setup', () => {
  it('when the group has no installment, then the setup completes for the coverage period alone', async () => {
    const partner = await t.newPartner()
    const { group } = await insertGroupWithLocation(t.db, partner.accountId, { installment: false })
    const coveragePeriod = await insertCoveragePeriod(t.db, group)
    await insertPlan(t.db, coveragePeriod)
    const subscriber = await insertMember(t.db, group)
    await insertLifeEvent(t.db, subscriber, coveragePeriod)

    const res = await completeSetup(partner, coveragePeriod.id)
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().work_order.group_id).toBe(group.id)
  })

  it("when the operator completes a partner's setup, then the history names the operator's key and the events stay in the partner's account", async () => {
    const partner = await t.newPartner()
    const operator = await t.newOperator()
    const setup = await insertReadySetup(t.db, partner.accountId)

    const res = await completeSetup(operator, setup.coveragePeriod.id)
    expect(res.statusCode, res.body).toBe(201)
    const workOrder = res.json().work_order
    expect(workOrder.history[0].by).toBe('Test operator key')
    const stored = await t.db.selectFrom('work_orders').select('account_id').where('id', '=', workOrder.id).executeTakeFirstOrThrow()
    expect(stored.account_id).toBe(partner.accountId)
    const event = await t.db.selectFrom('audit_events').selectAll().where('resource_id', '=', workOrder.id).executeTakeFirstOrThrow()
    expect(event).toMatchObject({ account_id: partner.accountId, actor_account_id: operator.accountId, action: 'work_order.created' })
    expect((await getWorkOrder(partner, setup.coveragePeriod.id)).json().work_order).toEqual(workOrder)
  })
})

describe('renewal: the next plan year of an installed group', () => {
  /** A group whose first coverage period (enrolled, set up) the carrier installed, as a completed work order leaves it. */
  async function installedGroup(partner: Credential) {
    const setup = await insertReadySetup(t.db, partner.accountId)
    await t.db.updateTable('coverage_periods').set({ state: 'production', installed_at: new Date() }).where('id', '=', setup.coveragePeriod.id).execute()
    return setup
  }

  it('when the group already has an installed coverage period, then a renewal with plans completes its setup before any life event', async () => {
    const partner = await t.newPartner()
    const setup = await installedGroup(partner)
    const renewal = await insertCoveragePeriod(t.db, setup.group, { link: false })
    await insertPlan(t.db, renewal)

    const res = await completeSetup(partner, renewal.id)
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().work_order).toMatchObject({ coverage_period_id: renewal.id, status: 'open' })
    const cp = await t.db.selectFrom('coverage_periods').selectAll().where('id', '=', renewal.id).executeTakeFirstOrThrow()
    expect(cp.state).toBe('configuration')
    expect(cp.setup_completed_at).not.toBeNull()
    // The installment belongs to the first coverage period: the renewal leaves it as it was.
    const installment = await t.db.selectFrom('group_installments').select(['status', 'coverage_period_id']).where('id', '=', setup.installment!.id).executeTakeFirstOrThrow()
    expect(installment).toEqual({ status: 'in_progress', coverage_period_id: setup.coveragePeriod.id })
  })

  it('when the renewal has no plan yet, then 422 lists only no_plans: a renewal needs plans but no enrolled subscriber', async () => {
    const partner = await t.newPartner()
    const setup = await installedGroup(partner)
    const renewal = await insertCoveragePeriod(t.db, setup.group, { link: false })

    const res = await completeSetup(partner, renewal.id)
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json().errors.map((e: { code: string }) => e.code)).toEqual(['no_plans'])
  })

  it("when the group's other coverage period is not installed yet, then the first installation's rule holds: no_enrolled_subscribers", async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    await t.db.updateTable('coverage_periods').set({ state: 'test' }).where('id', '=', setup.coveragePeriod.id).execute()
    const second = await insertCoveragePeriod(t.db, setup.group, { link: false })
    await insertPlan(t.db, second)

    const res = await completeSetup(partner, second.id)
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json().errors.map((e: { code: string }) => e.code)).toEqual(['no_enrolled_subscribers'])
  })

  it('when the coverage period is expired, then 422 names coverage_period_expired and no work order is opened', async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    await t.db.updateTable('coverage_periods').set({ state: 'expired' }).where('id', '=', setup.coveragePeriod.id).execute()

    const res = await completeSetup(partner, setup.coveragePeriod.id)
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json()).toMatchObject({ code: 'setup_incomplete', errors: [{ code: 'coverage_period_expired' }] })
    expect(await workOrderCount(setup.coveragePeriod.id)).toBe(0)
  })
})

describe('POST /group_installments/{id}/complete_setup', () => {
  it("when the installment's coverage period is ready, then 201 opens its work order", async () => {
    const partner = await t.newPartner()
    const setup = await insertReadySetup(t.db, partner.accountId)
    const res = await completeInstallment(partner, setup.installment!.id)
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().work_order.coverage_period_id).toBe(setup.coveragePeriod.id)
    expect((await getWorkOrder(partner, setup.coveragePeriod.id)).json().work_order.id).toBe(res.json().work_order.id)
  })

  it('when the installment has no coverage period yet, then 422 says so', async () => {
    const partner = await t.newPartner()
    const { installment } = await insertGroupWithLocation(t.db, partner.accountId)
    const res = await completeInstallment(partner, installment!.id)
    expect(res.statusCode, res.body).toBe(422)
    expect(res.json()).toMatchObject({ code: 'setup_incomplete', errors: [{ code: 'no_coverage_period' }] })
  })
})

describe('tenancy', () => {
  it("when another account names a coverage period or installment, then 404 and nothing is written", async () => {
    const owner = await t.newPartner()
    const stranger = await t.newPartner('Stranger')
    const setup = await insertReadySetup(t.db, owner.accountId)

    const viaPeriod = await completeSetup(stranger, setup.coveragePeriod.id)
    expect(viaPeriod.statusCode, viaPeriod.body).toBe(404)
    expect(viaPeriod.json().code).toBe('coverage_period_not_found')
    const viaInstallment = await completeInstallment(stranger, setup.installment!.id)
    expect(viaInstallment.statusCode).toBe(404)
    expect(viaInstallment.json().code).toBe('group_installment_not_found')
    expect(await workOrderCount(setup.coveragePeriod.id)).toBe(0)

    expect((await completeSetup(owner, setup.coveragePeriod.id)).statusCode).toBe(201)
    const read = await getWorkOrder(stranger, setup.coveragePeriod.id)
    expect(read.statusCode).toBe(404)
    expect(read.json().code).toBe('coverage_period_not_found')
  })

  it('when the ids are unknown, then 404', async () => {
    const partner = await t.newPartner()
    expect((await completeSetup(partner, uuidv7())).json().code).toBe('coverage_period_not_found')
    expect((await completeInstallment(partner, uuidv7())).json().code).toBe('group_installment_not_found')
    expect((await getWorkOrder(partner, uuidv7())).statusCode).toBe(404)
  })
})
