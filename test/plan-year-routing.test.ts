import { beforeAll, describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { expireCoveragePeriods } from '../src/modules/coverage-periods/coverage-period-expiry.js'
import { installThroughApi, settle, type ApiInstallation, carrierTestBedForFile } from './helpers/carrier-side.js'
import { call, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * Routing across plan years (api-contract.md section 10): a change reaches the coverage periods
 * whose dates it falls in and that are in test or production; the old year's carrier is told
 * nothing about the next; an expired period receives nothing. Expiry runs at the dates the test
 * gives it.
 */
let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

const ok = async (res: Promise<{ statusCode: number; body: string }>, status = 201) => {
  const answer = await res
  expect(answer.statusCode, answer.body).toBe(status)
  return JSON.parse(answer.body)
}
const transition = (workOrderId: string, status: string, extra: Record<string, unknown> = {}) =>
  ok(call(t.app, operator, 'POST', `/work_orders/${workOrderId}/transitions`, { status, message: status, ...extra }), 200)

/** Moves a work order to completed (aetna does not act on its own), sending its full file on the way. */
async function install(workOrderId: string) {
  await transition(workOrderId, 'in_progress')
  await transition(workOrderId, 'submitted')
  await settle(workers)
  await transition(workOrderId, 'completed', { carrier_group_number: 'AET-2027' })
}

const transactionsOf = async (coveragePeriodId: string) =>
  (await t.db.selectFrom('member_transactions').select(['kind', 'member_id']).where('coverage_period_id', '=', coveragePeriodId).where('kind', '<>', 'installation').execute()).length

const newestContent = async (partner: Credential, coveragePeriodId: string) => {
  const deliveries = (await ok(call(t.app, partner, 'GET', `/coverage_periods/${coveragePeriodId}/file_deliveries`), 200)).file_deliveries
  return (await call(t.app, operator, 'GET', `/file_deliveries/${deliveries[0].id}/content`)).body
}

describe('routing member changes across plan years', () => {
  let partner: Credential
  let first: ApiInstallation
  let renewalId: string
  let renewalPlanId: string
  let family: ApiInstallation['families'][number]

  beforeAll(async () => {
    partner = await t.newPartner()
    first = await installThroughApi(t, partner, 'aetna', 2)
    await install(first.workOrderId)
    family = first.families[0]!
    const renewal = await ok(
      call(t.app, partner, 'POST', `/groups/${first.groupId}/coverage_periods`, {
        coverage_period: { external_identifier: 'plan-year-2028', coverage_start_date: '2028-01-01', coverage_end_date: '2028-12-31', employer_sign_off: { name: 'Pat Smith', title: 'CFO', date: '2026-10-15' } },
      }),
    )
    renewalId = renewal.coverage_period.id
    renewalPlanId = (await ok(call(t.app, partner, 'POST', `/coverage_periods/${renewalId}/plans/copy`, { from_coverage_period_id: first.coveragePeriodId }))).plans[0].id
    const workOrder = (await ok(call(t.app, partner, 'POST', `/coverage_periods/${renewalId}/complete_setup`))).work_order
    const before = await transactionsOf(first.coveragePeriodId)
    // Open enrollment for 2028: it ends the 2027 coverage on the old year's last day, which tells the 2027 carrier nothing.
    await ok(
      call(t.app, partner, 'POST', `/subscribers/${family.subscriberId}/qualifying_life_events`, {
        qualifying_life_event: {
          coverage_period_id: renewalId,
          event: 'open_enrollment',
          date: '2027-11-15',
          eligibility_start_date: '2028-01-01',
          plan_elections: {
            medical: { type: 'election', plan_id: renewalPlanId, coverages: [family.subscriberId, ...family.dependentIds].map((member_id) => ({ member_id, start_date: '2028-01-01', status: 'employer_sponsored' })) },
          },
        },
      }),
    )
    expect(await transactionsOf(first.coveragePeriodId)).toBe(before)
    await install(workOrder.id)
  })

  it('when a renewal is installed, then its full file holds the new year and the old carrier was sent nothing about it', async () => {
    const full = await newestContent(partner, renewalId)
    expect(full).toMatch(/BGN\*00\*[^~]*\*RX~/)
    expect(full.match(/INS\*/g)).toHaveLength(3)
    expect(await t.db.selectFrom('file_deliveries').select('kind').where('coverage_period_id', '=', first.coveragePeriodId).execute()).toEqual([{ kind: 'full' }])
  })

  it('when a change falls in the old year, then only the old carrier is told, and the new year is left as it is', async () => {
    const child = family.dependentIds[1]!
    const before = await transactionsOf(renewalId)
    await ok(
      call(t.app, partner, 'POST', `/subscribers/${family.subscriberId}/qualifying_life_events`, {
        qualifying_life_event: {
          coverage_period_id: first.coveragePeriodId,
          event: 'loss_of_coverage',
          date: '2027-06-15',
          eligibility_start_date: '2027-07-01',
          plan_elections: { medical: { type: 'election', plan_id: first.planId, coverages: [{ member_id: child, start_date: '2027-01-01', end_date: '2027-06-30', status: 'employer_sponsored' }] } },
        },
      }),
    )
    expect(await transactionsOf(renewalId)).toBe(before)
    await settle(workers)
    const change = await newestContent(partner, first.coveragePeriodId)
    expect(change).toMatch(/INS\*N\*19\*024\*/)
    expect(change).toContain('DTP*349*D8*20270630')
    // The child's 2028 coverage, elected at open enrollment, still stands.
    const in2028 = (await ok(call(t.app, partner, 'GET', `/members/${child}/coverages?as_of=2028-03-01`), 200)).coverages
    expect(in2028).toEqual([expect.objectContaining({ plan_id: renewalPlanId, start_date: '2028-01-01', end_date: null })])
  })

  it('when a change falls in the new year, then only the new carrier is told', async () => {
    const before = await transactionsOf(first.coveragePeriodId)
    const spouse = family.dependentIds[0]!
    await ok(
      call(t.app, partner, 'POST', `/subscribers/${family.subscriberId}/qualifying_life_events`, {
        qualifying_life_event: {
          coverage_period_id: renewalId,
          event: 'divorce',
          date: '2028-05-10',
          eligibility_start_date: '2028-06-01',
          plan_elections: { medical: { type: 'election', plan_id: renewalPlanId, coverages: [{ member_id: spouse, start_date: '2028-01-01', end_date: '2028-05-31', status: 'employer_sponsored' }] } },
        },
      }),
    )
    expect(await transactionsOf(first.coveragePeriodId)).toBe(before)
    await settle(workers)
    const change = await newestContent(partner, renewalId)
    expect(change).toMatch(/INS\*N\*01\*024\*01\*/)
    expect(change).toContain('DTP*349*D8*20280531')
  })

  it('when member data changes, then every period in effect is told; once the old year has expired, only the new one', async () => {
    const read = (await ok(call(t.app, partner, 'GET', `/subscribers/${family.subscriberId}`), 200)).subscriber
    const { id: _id, group_id: _g, status: _s, current_qualifying_life_events: _e, dependents: _d, created_at: _c, updated_at: _u, social_security_number: _ssn, ...fields } = read
    const rename = (lastName: string) => ok(call(t.app, partner, 'PUT', `/subscribers/${family.subscriberId}`, { subscriber: { ...fields, last_name: lastName } }), 200)
    const [oldBefore, newBefore] = [await transactionsOf(first.coveragePeriodId), await transactionsOf(renewalId)]
    await rename('Doe-Smith')
    expect([await transactionsOf(first.coveragePeriodId), await transactionsOf(renewalId)]).toEqual([oldBefore + 1, newBefore + 1])
    await settle(workers)
    for (const coveragePeriodId of [first.coveragePeriodId, renewalId]) {
      expect(await newestContent(partner, coveragePeriodId)).toMatch(/INS\*Y\*18\*001\*25\*A[^~]*~[\s\S]*NM1\*IL\*1\*Doe-Smith\*/)
    }

    expect(await expireCoveragePeriods(t.db, '2027-12-31')).toEqual([])
    expect((await expireCoveragePeriods(t.db, '2028-01-01')).map((cp) => cp.id)).toEqual([first.coveragePeriodId])
    await rename('Smith')
    expect([await transactionsOf(first.coveragePeriodId), await transactionsOf(renewalId)]).toEqual([oldBefore + 1, newBefore + 2])
    // The subscriber's current events no longer list the expired year.
    const events = (await ok(call(t.app, partner, 'GET', `/subscribers/${family.subscriberId}`), 200)).subscriber.current_qualifying_life_events
    expect(events.map((e: { coverage_period_id: string }) => e.coverage_period_id)).toEqual([renewalId])
  })
})
