import { describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { createRenewal, memberIdsOf, openScenario, shapeOf, updateSubscriber, type Scenario } from './helpers/change-file-scenarios.js'
import { carrierTestBedForFile } from './helpers/carrier-side.js'
import { CarrierFiles, completeWorkOrder, dtp, medical, memberLoops } from './helpers/life-event-scenarios.js'
import { call, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * INS07 of COBRA loops across plan years and product lines. The notes
 * (/work/shared/spec/x12-834-notes.md), COBRA continuation: `INS*…*021*09*C*…*<INS07>`, INS07 `1`
 * termination, `2` reduction of hours, `5` divorce, `7` ineligible child. A member's INS07 is the
 * event that ended its own active coverage on the COBRA coverage's line, in whichever plan year,
 * counted from the start of its COBRA run (a renewal's COBRA span continues last year's); a
 * coverage the employee keeps on another line (dental, hospital indemnity) or a span left open on
 * an earlier plan year says nothing about it (docs/decisions.md, "Member loops"). Cases found by
 * a review of 2026-11-27, each wrong before the fix.
 */

let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

const cobraLoops = (shapes: readonly { member: string; ins: string }[]) => shapes.filter((l) => l.ins.split('*')[5] === 'C').map((l) => [l.member, l.ins])

describe('COBRA reasons across plan years and product lines', () => {
  it('when a part-time employee and the family go onto COBRA in the renewal’s year, then its change file says 2 for everyone, the child included', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    const renewal = await createRenewal(s)
    await s.event(s.ids.subscriber!, { coverage_period_id: renewal.id, event: 'open_enrollment', date: '2027-11-05', eligibility_start_date: '2028-01-01', plan_elections: medical(renewal.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2028-01-01' }))) })
    await completeWorkOrder(t, workers, operator, renewal.workOrderId, null)
    const carrier2028 = new CarrierFiles(t, workers, s.partner, operator, renewal.group)
    expect((await carrier2028.sync()).map((f) => f.delivery.kind)).toEqual(['full'])
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, employment_details: { ...(current.employment_details as object), status: 'part_time' } }))
    await s.event(s.ids.subscriber!, {
      coverage_period_id: renewal.id,
      event: 'cobra',
      date: '2028-03-20',
      eligibility_start_date: '2028-04-01',
      plan_elections: medical(renewal.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2028-04-01', status: 'cobra' as const }))),
    })
    const fresh = await carrier2028.sync()
    expect(fresh.map((f) => f.delivery.kind)).toEqual(['change'])
    const shapes = memberLoops(fresh[0]!.content).map(shapeOf(s.names))
    expect(cobraLoops(shapes)).toEqual([
      ['subscriber', 'INS*Y*18*021*09*C**2*PT'],
      ['spouse', 'INS*N*01*021*09*C**2'],
      ['child', 'INS*N*19*021*09*C**2'],
    ])
    await carrier2028.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a terminated employee (no termination event) and the family go onto COBRA in the renewal’s year, then its change file says 1 for everyone', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    const renewal = await createRenewal(s)
    await s.event(s.ids.subscriber!, { coverage_period_id: renewal.id, event: 'open_enrollment', date: '2027-11-05', eligibility_start_date: '2028-01-01', plan_elections: medical(renewal.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2028-01-01' }))) })
    await completeWorkOrder(t, workers, operator, renewal.workOrderId, null)
    const carrier2028 = new CarrierFiles(t, workers, s.partner, operator, renewal.group)
    expect((await carrier2028.sync()).map((f) => f.delivery.kind)).toEqual(['full'])
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, employment_details: { ...(current.employment_details as object), status: 'terminated' } }))
    await s.event(s.ids.subscriber!, {
      coverage_period_id: renewal.id,
      event: 'cobra',
      date: '2028-03-20',
      eligibility_start_date: '2028-04-01',
      plan_elections: medical(renewal.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2028-04-01', status: 'cobra' as const }))),
    })
    const fresh = await carrier2028.sync()
    const shapes = memberLoops(fresh[0]!.content).map(shapeOf(s.names))
    expect(cobraLoops(shapes).map(([m, ins]) => [m, ins!.split('*')[7]])).toEqual([['subscriber', '1'], ['spouse', '1'], ['child', '1']])
  })

  async function addPlan(sc: Scenario, cpId: string, key: string, line: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await call(t.app, sc.partner, 'POST', `/coverage_periods/${cpId}/plans`, { plan: { external_identifier: key, description: key, product_line: line, policy_premium_method: 'list_bill', ...extra } })
    expect(res.statusCode, res.body).toBe(201)
    return res.json().plan.id as string
  }
  const election = (key: string, planId: string, coverages: { member_id: string; start_date: string; end_date?: string; status?: string }[]) => ({
    [key]: { type: 'election', plan_id: planId, coverages: coverages.map((c) => ({ status: 'employer_sponsored', ...c })) },
  })

  /** Family on gold medical + `line` from 2027-04-01; employee goes part time; everyone's medical onto COBRA from 07-01, the other line kept. */
  async function reducedHoursKeepingOtherLine(key: string, line: string, extra: Record<string, unknown>) {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    const otherId = await addPlan(s, s.group.coveragePeriodId, key, line, extra)
    s.carrier.knowPlan(otherId, key)
    await s.event(s.ids.subscriber!, { event: 'newly_eligible', date: '2027-03-20', eligibility_start_date: '2027-04-01', plan_elections: election(key, otherId, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-04-01' }))) })
    await s.carrier.sync()
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, employment_details: { ...(current.employment_details as object), status: 'part_time' } }))
    await s.event(s.ids.subscriber!, {
      event: 'cobra', date: '2027-06-20', eligibility_start_date: '2027-07-01',
      plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-07-01', status: 'cobra' as const }))),
    })
    const file = await s.changeFile()
    return { s, loops: cobraLoops(file.shapes) }
  }

  it('when the family’s medical goes onto COBRA for reduced hours while the employee keeps dental, then the child says 2, not 7', async () => {
    const { loops } = await reducedHoursKeepingOtherLine('dental', 'dental', { premium_level: 'base' })
    expect(loops.map(([m, ins]) => [m, ins!.split('*')[7]])).toEqual([['subscriber', '2'], ['spouse', '2'], ['child', '2']])
  })

  it('when the employee keeps hospital indemnity (a line no 834 carries) while the family’s medical goes onto COBRA, then the child says 2', async () => {
    const { loops } = await reducedHoursKeepingOtherLine('hospital_indemnity', 'hospital_indemnity', {})
    expect(loops.map(([m, ins]) => [m, ins!.split('*')[7]])).toEqual([['subscriber', '2'], ['spouse', '2'], ['child', '2']])
  })

  it('when last year’s dental was not renewed and the part-time employee’s family goes onto COBRA in the new year, then the child says 2: last year’s open span ended with its plan year', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    const dentalId = await addPlan(s, s.group.coveragePeriodId, 'dental', 'dental', { premium_level: 'base' })
    s.carrier.knowPlan(dentalId, 'dental')
    await s.event(s.ids.subscriber!, { event: 'newly_eligible', date: '2027-03-20', eligibility_start_date: '2027-04-01', plan_elections: election('dental', dentalId, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-04-01' }))) })
    await s.carrier.sync()
    const renewal = await createRenewal(s)
    await s.event(s.ids.subscriber!, { coverage_period_id: renewal.id, event: 'open_enrollment', date: '2027-11-05', eligibility_start_date: '2028-01-01', plan_elections: medical(renewal.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2028-01-01' }))) })
    await completeWorkOrder(t, workers, operator, renewal.workOrderId, null)
    const carrier2028 = new CarrierFiles(t, workers, s.partner, operator, renewal.group)
    expect((await carrier2028.sync()).map((f) => f.delivery.kind)).toEqual(['full'])
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, employment_details: { ...(current.employment_details as object), status: 'part_time' } }))
    await s.event(s.ids.subscriber!, {
      coverage_period_id: renewal.id, event: 'cobra', date: '2028-03-20', eligibility_start_date: '2028-04-01',
      plan_elections: medical(renewal.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2028-04-01', status: 'cobra' as const }))),
    })
    const fresh = await carrier2028.sync()
    expect(fresh.map((f) => f.delivery.kind)).toEqual(['change'])
    const shapes = memberLoops(fresh[0]!.content).map(shapeOf(s.names))
    expect(cobraLoops(shapes).map(([m, ins]) => [m, ins!.split('*')[7]])).toEqual([['subscriber', '2'], ['spouse', '2'], ['child', '2']])
    await carrier2028.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when an ex-spouse’s dental ended a month after the divorce that moved her medical onto COBRA, then both the first year’s file and the renewal’s full file say 5', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    const dentalId = await addPlan(s, s.group.coveragePeriodId, 'dental', 'dental', { premium_level: 'base' })
    s.carrier.knowPlan(dentalId, 'dental')
    await s.event(s.ids.subscriber!, { event: 'newly_eligible', date: '2027-03-20', eligibility_start_date: '2027-04-01', plan_elections: election('dental', dentalId, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-04-01' }))) })
    await s.event(s.ids.subscriber!, { event: 'divorce', date: '2027-06-15', eligibility_start_date: '2027-07-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-06-30' }]) })
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-07-20', eligibility_start_date: '2027-08-01', plan_elections: election('dental', dentalId, [{ member_id: s.ids.spouse!, start_date: '2027-04-01', end_date: '2027-07-31' }]) })
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-08-10', eligibility_start_date: '2027-07-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-07-01', status: 'cobra' as const }]) })
    const first = await s.carrier.sync()
    const firstLoops = first.flatMap((f) => memberLoops(f.content).map(shapeOf(s.names)))
    const renewal = await createRenewal(s)
    await s.event(s.ids.subscriber!, { coverage_period_id: renewal.id, event: 'open_enrollment', date: '2027-11-05', eligibility_start_date: '2028-01-01', plan_elections: medical(renewal.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2028-01-01', status: member_id === s.ids.spouse ? 'cobra' as const : 'employer_sponsored' as const }))) })
    await completeWorkOrder(t, workers, operator, renewal.workOrderId, null)
    const carrier2028 = new CarrierFiles(t, workers, s.partner, operator, renewal.group)
    const full = await carrier2028.sync()
    const shapes = memberLoops(full[0]!.content).map(shapeOf(s.names))
    expect({ first: cobraLoops(firstLoops), renewal: cobraLoops(shapes) }).toEqual({ first: [['spouse', 'INS*N*01*021*09*C**5']], renewal: [['spouse', 'INS*N*01*021*EC*C**5']] })
    // DTP*340, COBRA begin, is when her continuation began, which the carrier counts its months
    // from; the coverage's 348 is the plan year's (before 2026-11-27 both said 2028-01-01).
    const spouse = shapes.find((l) => l.member === 'spouse')!
    expect(spouse.dates).toContain(dtp('340', '2027-07-01'))
    expect(spouse.coverages.map((c) => c.dates)).toEqual([[dtp('348', '2028-01-01')]])
  })

  it('when an ex-spouse on COBRA changes plan, then the new plan’s loop keeps DTP*340 at the day her COBRA began', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    await s.event(s.ids.subscriber!, { event: 'divorce', date: '2027-06-15', eligibility_start_date: '2027-07-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-06-30' }]) })
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-06-20', eligibility_start_date: '2027-07-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-07-01', status: 'cobra' as const }]) })
    const first = await s.changeFile()
    expect(first.shapes.find((l) => l.member === 'spouse' && l.ins.includes('*C*'))?.dates).toContain(dtp('340', '2027-07-01'))
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-09-10',
      eligibility_start_date: '2027-10-01',
      plan_elections: medical(s.group.plans.silver!.id, [{ member_id: s.ids.spouse!, start_date: '2027-10-01', status: 'cobra' as const }]),
    })
    const change = await s.changeFile()
    // The notes' plan change (same line), under COBRA: one loop, 001*22, benefit status C; the old
    // plan HD*024 (349 = new start - 1), the new HD*021 (348); no eligibility end, no new enrollment.
    expect(change.shapes.filter((l) => l.member === 'spouse')).toEqual([
      {
        member: 'spouse',
        ins: 'INS*N*01*001*22*C**5',
        dates: [dtp('303', '2027-10-01'), dtp('340', '2027-07-01')],
        coverages: [
          { hd: 'HD*024**HLT*Gold PPO 500*IND', dates: [dtp('348', '2027-07-01'), dtp('349', '2027-09-30')] },
          { hd: 'HD*021**HLT*Silver PPO 1500*IND', dates: [dtp('348', '2027-10-01')] },
        ],
      },
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})
