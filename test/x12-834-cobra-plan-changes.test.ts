import { describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { GOLD, SILVER, createRenewal, hd, loop, loopsOf, memberIdsOf, openScenario, shapeOf, updateSubscriber, type Scenario } from './helpers/change-file-scenarios.js'
import { carrierTestBedForFile } from './helpers/carrier-side.js'
import { CarrierFiles, completeWorkOrder, dtp, medical, memberLoops } from './helpers/life-event-scenarios.js'
import { call, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * COBRA coverage changing plan, ending, starting again and coming back, beside active coverage,
 * across plan years: what a change file tells the carrier. Each case states what
 * /work/shared/spec/x12-834-notes.md ("Life events in the 834") says the file should carry; a
 * review of b320251 (2026-11-27) wrote most of them: the plan changes failed before that commit,
 * and the gap, active dental beside COBRA, COBRA after the renewal's full file and the
 * reinstatement with it, until the fix that followed.
 * Plan change (same line): `INS*…*001*22`, old plan `HD*024` (349 = new start − 1), new plan
 * `HD*021` (348), 303 = new start. COBRA continuation: `INS*…*021*09*C*…*<INS07>`, `HD*021`,
 * 340 COBRA begin, 348 = COBRA coverage start. INS03/INS05 are the loop's.
 */

let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

const cobra = (planId: string, member_id: string, start_date: string, end_date?: string) =>
  medical(planId, [{ member_id, start_date, status: 'cobra' as const, ...(end_date ? { end_date } : {}) }])

/** Divorce: the ex-spouse's active gold ends `lastActive`; she elects COBRA on gold from the day after. */
async function divorcedSpouseOnCobra(s: Scenario, lastActive: string, cobraStart: string) {
  await s.event(s.ids.subscriber!, { event: 'divorce', date: '2027-03-15', eligibility_start_date: cobraStart, plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: lastActive }]) })
  await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-03-20', eligibility_start_date: cobraStart, plan_elections: cobra(s.group.plans.gold!.id, s.ids.spouse!, cobraStart) })
}

async function addPlan(s: Scenario, cpId: string, key: string, line: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call(t.app, s.partner, 'POST', `/coverage_periods/${cpId}/plans`, { plan: { external_identifier: key, description: key, product_line: line, policy_premium_method: 'list_bill', ...extra } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json().plan.id as string
}

describe('COBRA plan changes and DTP*340', () => {
  it('when an ex-spouse on COBRA since last year changes plan in the renewal’s year, then the loop is 001*22*C**5 with DTP*340 at last year’s COBRA start', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    await divorcedSpouseOnCobra(s, '2027-03-31', '2027-04-01')
    await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    const renewal = await createRenewal(s)
    await s.event(s.ids.subscriber!, {
      coverage_period_id: renewal.id, event: 'open_enrollment', date: '2027-11-05', eligibility_start_date: '2028-01-01',
      plan_elections: medical(renewal.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2028-01-01', status: member_id === s.ids.spouse ? 'cobra' as const : 'employer_sponsored' as const }))),
    })
    await completeWorkOrder(t, workers, operator, renewal.workOrderId, null)
    const c28 = new CarrierFiles(t, workers, s.partner, operator, renewal.group)
    const full = await c28.sync()
    expect(loopsOf(memberLoops(full[0]!.content).map(shapeOf(s.names)), 'spouse').map((l) => [l.ins, l.dates.find((d) => d.startsWith('DTP*340'))])).toEqual([['INS*N*01*021*EC*C**5', dtp('340', '2027-04-01')]])
    await s.event(s.ids.subscriber!, { coverage_period_id: renewal.id, event: 'loss_of_coverage', date: '2028-03-10', eligibility_start_date: '2028-04-01', plan_elections: cobra(renewal.plans.silver!.id, s.ids.spouse!, '2028-04-01') })
    const fresh = await c28.sync()
    expect(fresh.map((f) => f.delivery.kind)).toEqual(['change'])
    const shapes = memberLoops(fresh[0]!.content).map(shapeOf(s.names))
    expect(shapes).toEqual([
      loop('spouse', 'INS*N*01*001*22*C**5', [dtp('303', '2028-04-01'), dtp('340', '2027-04-01')],
        hd(`HD*024**HLT*${GOLD}*IND`, dtp('348', '2028-01-01'), dtp('349', '2028-03-31')),
        hd(`HD*021**HLT*${SILVER}*IND`, dtp('348', '2028-04-01'))),
    ])
    await c28.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when COBRA ended and a new COBRA coverage starts after a gap, then it is a new enrollment 021*09*C with its own DTP*340', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    await divorcedSpouseOnCobra(s, '2027-03-31', '2027-04-01')
    await s.changeFile()
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: cobra(s.group.plans.gold!.id, s.ids.spouse!, '2027-04-01', '2027-06-30') })
    const ended = await s.changeFile()
    expect(ended.shapes.map((l) => l.ins)).toEqual(['INS*N*01*024*EC*C'])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-08-20', eligibility_start_date: '2027-09-01', plan_elections: cobra(s.group.plans.silver!.id, s.ids.spouse!, '2027-09-01') })
    const again = await s.changeFile()
    expect(again.shapes).toEqual([
      loop('spouse', 'INS*N*01*021*09*C**5', [dtp('303', '2027-09-01'), dtp('340', '2027-09-01'), dtp('356', '2027-09-01')], hd(`HD*021**HLT*${SILVER}*IND`, dtp('348', '2027-09-01'))),
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a divorce, its COBRA election and a COBRA plan change travel in one file, then the COBRA plans go in one new enrollment after the active coverage’s end', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    await divorcedSpouseOnCobra(s, '2027-03-31', '2027-04-01')
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: cobra(s.group.plans.silver!.id, s.ids.spouse!, '2027-07-01') })
    const file = await s.changeFile()
    const spouse = loopsOf(file.shapes, 'spouse')
    // The COBRA run the carrier was never told goes in one new enrollment carrying both plans. The
    // active coverage's end and the subscriber's new level are the divorce's (01), not the later
    // plan change's (EC): each loop is named by the latest event that set what it changes (until
    // 2026-11-27 every loop took the window's latest event but a COBRA election).
    expect(spouse.map((l) => l.ins)).toEqual(['INS*N*01*024*01*A', 'INS*N*01*021*09*C**5'])
    expect(loopsOf(file.shapes, 'subscriber').map((l) => l.ins)).toEqual(['INS*Y*18*001*01*A***FT'])
    expect(spouse[1]!.dates).toContain(dtp('340', '2027-04-01'))
    expect(spouse[1]!.coverages).toEqual([hd(`HD*021**HLT*${GOLD}*IND`, dtp('348', '2027-04-01'), dtp('349', '2027-06-30')), hd(`HD*021**HLT*${SILVER}*IND`, dtp('348', '2027-07-01'))])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a COBRA election and a COBRA plan change travel in one file after the divorce’s, then one 021*09*C loop carries both plans', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    await s.event(s.ids.subscriber!, { event: 'divorce', date: '2027-03-15', eligibility_start_date: '2027-04-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-03-31' }]) })
    await s.changeFile()
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-03-20', eligibility_start_date: '2027-04-01', plan_elections: cobra(s.group.plans.gold!.id, s.ids.spouse!, '2027-04-01') })
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: cobra(s.group.plans.silver!.id, s.ids.spouse!, '2027-07-01') })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([
      loop('spouse', 'INS*N*01*021*09*C**5', [dtp('303', '2027-04-01'), dtp('340', '2027-04-01'), dtp('356', '2027-04-01')],
        hd(`HD*021**HLT*${GOLD}*IND`, dtp('348', '2027-04-01'), dtp('349', '2027-06-30')),
        hd(`HD*021**HLT*${SILVER}*IND`, dtp('348', '2027-07-01'))),
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a family on COBRA changes plan while the child drops COBRA, then the employee and spouse are 001*22*C and the child 024*EC*C', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, employment_details: { ...(current.employment_details as object), status: 'terminated', end_date: '2027-03-31' } }))
    await s.event(s.ids.subscriber!, { event: 'termination_of_employment', date: '2027-03-15', eligibility_start_date: '2027-04-01', plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2027-03-31' }))) })
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-03-20', eligibility_start_date: '2027-04-01', plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-04-01', status: 'cobra' as const }))) })
    await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: cobra(s.group.plans.gold!.id, s.ids.child!, '2027-04-01', '2027-06-30') })
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-11', eligibility_start_date: '2027-07-01', plan_elections: medical(s.group.plans.silver!.id, [s.ids.subscriber!, s.ids.spouse!].map((member_id) => ({ member_id, start_date: '2027-07-01', status: 'cobra' as const }))) })
    const file = await s.changeFile()
    expect(loopsOf(file.shapes, 'subscriber')).toEqual([
      loop('subscriber', 'INS*Y*18*001*22*C**1*TE', [dtp('303', '2027-07-01'), dtp('337', '2027-03-31'), dtp('340', '2027-04-01')],
        hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-04-01'), dtp('349', '2027-06-30')),
        hd(`HD*021**HLT*${SILVER}*ESP`, dtp('348', '2027-07-01'))),
    ])
    expect(loopsOf(file.shapes, 'spouse').map((l) => [l.ins, l.dates, l.coverages])).toEqual([
      ['INS*N*01*001*22*C**1', [dtp('303', '2027-07-01'), dtp('340', '2027-04-01')], [hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-04-01'), dtp('349', '2027-06-30')), hd(`HD*021**HLT*${SILVER}*ESP`, dtp('348', '2027-07-01'))]],
    ])
    expect(loopsOf(file.shapes, 'child').map((l) => l.ins.split('*').slice(0, 6).join('*'))).toEqual(['INS*N*19*024*EC*C'])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a COBRA plan ends two weeks before the next COBRA plan starts, then the end and a new enrollment are told in two loops', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    await divorcedSpouseOnCobra(s, '2027-03-31', '2027-04-01')
    await s.changeFile()
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-01', eligibility_start_date: '2027-06-16', plan_elections: cobra(s.group.plans.gold!.id, s.ids.spouse!, '2027-04-01', '2027-06-15') })
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: cobra(s.group.plans.silver!.id, s.ids.spouse!, '2027-07-01') })
    const file = await s.changeFile()
    // A gap between two COBRA coverages ends the continuation (docs/decisions.md, "A plan change
    // under COBRA"): the carrier is told the end, then a new continuation, each in its own loop;
    // never one addition loop carrying the old plan's HD*024 (b320251 sent that).
    expect(file.shapes).toEqual([
      loop('spouse', 'INS*N*01*024*EC*C', [dtp('303', '2027-06-16'), dtp('357', '2027-06-15')], hd(`HD*024**HLT*${GOLD}*IND`, dtp('348', '2027-04-01'), dtp('349', '2027-06-15'))),
      loop('spouse', 'INS*N*01*021*09*C**5', [dtp('303', '2027-07-01'), dtp('340', '2027-07-01'), dtp('356', '2027-07-01')], hd(`HD*021**HLT*${SILVER}*IND`, dtp('348', '2027-07-01'))),
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a child on COBRA changes plan while the family stays active, then the child alone is 001*22*C**7 with DTP*340 at its COBRA start', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-03-20', eligibility_start_date: '2027-04-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-01-01', end_date: '2027-03-31' }]) })
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-03-25', eligibility_start_date: '2027-04-01', plan_elections: cobra(s.group.plans.gold!.id, s.ids.child!, '2027-04-01') })
    await s.changeFile()
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: cobra(s.group.plans.silver!.id, s.ids.child!, '2027-07-01') })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([
      loop('child', 'INS*N*19*001*22*C**7', [dtp('303', '2027-07-01'), dtp('340', '2027-04-01')],
        hd(`HD*024**HLT*${GOLD}*IND`, dtp('348', '2027-04-01'), dtp('349', '2027-06-30')),
        hd(`HD*021**HLT*${SILVER}*IND`, dtp('348', '2027-07-01'))),
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when an active family and its COBRA child all move to silver, then the parents are 001*22*A and the child 001*22*C**7', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-03-20', eligibility_start_date: '2027-04-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-01-01', end_date: '2027-03-31' }]) })
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-03-25', eligibility_start_date: '2027-04-01', plan_elections: cobra(s.group.plans.gold!.id, s.ids.child!, '2027-04-01') })
    await s.changeFile()
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01',
      plan_elections: medical(s.group.plans.silver!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-07-01', status: member_id === s.ids.child ? 'cobra' as const : 'employer_sponsored' as const }))),
    })
    const file = await s.changeFile()
    expect(file.shapes.map((l) => [l.member, l.ins])).toEqual([
      ['subscriber', 'INS*Y*18*001*22*A***FT'],
      ['spouse', 'INS*N*01*001*22*A'],
      ['child', 'INS*N*19*001*22*C**7'],
    ])
    expect(loopsOf(file.shapes, 'child')[0]!.dates).toContain(dtp('340', '2027-04-01'))
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when an employee on COBRA medical with active dental changes both plans, then the dental goes in an active loop and the medical in a COBRA loop', async () => {
    const s = await openScenario(t, workers, operator, { families: [{ dependents: [] }] })
    const dentalA = await addPlan(s, s.group.coveragePeriodId, 'dental-a', 'dental', { premium_level: 'base' })
    const dentalB = await addPlan(s, s.group.coveragePeriodId, 'dental-b', 'dental', { premium_level: 'base' })
    s.carrier.knowPlan(dentalA, 'dental-a')
    s.carrier.knowPlan(dentalB, 'dental-b')
    const dental = (planId: string, start: string) => ({ dental: { type: 'election', plan_id: planId, coverages: [{ member_id: s.ids.subscriber!, start_date: start, status: 'employer_sponsored' }] } })
    await s.event(s.ids.subscriber!, { event: 'newly_eligible', date: '2027-03-20', eligibility_start_date: '2027-04-01', plan_elections: dental(dentalA, '2027-04-01') })
    await s.changeFile()
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, employment_details: { ...(current.employment_details as object), status: 'part_time' } }))
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-04-20', eligibility_start_date: '2027-05-01', plan_elections: cobra(s.group.plans.gold!.id, s.ids.subscriber!, '2027-05-01') })
    await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: { ...cobra(s.group.plans.silver!.id, s.ids.subscriber!, '2027-07-01'), ...dental(dentalB, '2027-07-01') } })
    const file = await s.changeFile()
    // INS05 is the loop's: the dental plan change is active (A), the medical one COBRA (C). One
    // loop cannot say both; the new dental must not reach the carrier as COBRA (b320251 sent one
    // loop INS*Y*18*001*22*C**2*PT with both lines).
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*001*22*A***PT', [dtp('303', '2027-07-01')],
        hd('HD*024**DEN*dental-a*EMP', dtp('348', '2027-04-01'), dtp('349', '2027-06-30')),
        hd('HD*021**DEN*dental-b*EMP', dtp('348', '2027-07-01'))),
      loop('subscriber', 'INS*Y*18*001*22*C**2*PT', [dtp('303', '2027-07-01'), dtp('340', '2027-05-01')],
        hd(`HD*024**HLT*${GOLD}*EMP`, dtp('348', '2027-05-01'), dtp('349', '2027-06-30')),
        hd(`HD*021**HLT*${SILVER}*EMP`, dtp('348', '2027-07-01'))),
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})

describe('COBRA across the renewal, a COBRA end undone, and active coverage beside it', () => {
  it('when COBRA is elected after the renewal’s full file told the employee active, then the renewal’s carrier gets the active coverage cancelled and a COBRA enrollment with last year’s DTP*340', async () => {
    const s = await openScenario(t, workers, operator, { families: [{ dependents: [] }] })
    const renewal = await createRenewal(s)
    await s.event(s.ids.subscriber!, { coverage_period_id: renewal.id, event: 'open_enrollment', date: '2027-11-05', eligibility_start_date: '2028-01-01', plan_elections: medical(renewal.plans.gold!.id, [{ member_id: s.ids.subscriber!, start_date: '2028-01-01' }]) })
    await completeWorkOrder(t, workers, operator, renewal.workOrderId, null)
    const c28 = new CarrierFiles(t, workers, s.partner, operator, renewal.group)
    expect(memberLoops((await c28.sync())[0]!.content).map((l) => l.ins)).toEqual(['INS*Y*18*021*EC*A***FT'])
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, employment_details: { ...(current.employment_details as object), status: 'terminated', end_date: '2027-11-30' } }))
    await s.event(s.ids.subscriber!, { event: 'termination_of_employment', date: '2027-11-20', eligibility_start_date: '2027-12-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.subscriber!, start_date: '2027-01-01', end_date: '2027-11-30' }]) })
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-11-25', eligibility_start_date: '2027-12-01', plan_elections: cobra(s.group.plans.gold!.id, s.ids.subscriber!, '2027-12-01') })
    await s.event(s.ids.subscriber!, { coverage_period_id: renewal.id, event: 'cobra', date: '2027-11-25', eligibility_start_date: '2028-01-01', plan_elections: cobra(renewal.plans.gold!.id, s.ids.subscriber!, '2028-01-01') })
    // The 2027 carrier: the termination, then COBRA from 2027-12-01.
    const f27 = await s.carrier.sync()
    expect(f27.flatMap((f) => memberLoops(f.content).map((l) => l.ins))).toEqual(['INS*Y*18*024*08*A***TE', 'INS*Y*18*021*09*C**1*TE'])
    const f28 = await c28.sync()
    const shapes = f28.flatMap((f) => memberLoops(f.content).map(shapeOf(s.names)))
    // The 2028 carrier holds the employee active from the plan year's start: it is told that
    // coverage never took effect, then a COBRA enrollment whose DTP*340 is the day COBRA began.
    expect(shapes).toEqual([
      loop('subscriber', 'INS*Y*18*024*09*A***TE', [dtp('303', '2028-01-01'), dtp('337', '2027-11-30')], hd(`HD*024**HLT*${GOLD}*EMP`, dtp('348', '2028-01-01'), dtp('349', '2027-12-31'))),
      loop('subscriber', 'INS*Y*18*021*09*C**1*TE', [dtp('303', '2028-01-01'), dtp('337', '2027-11-30'), dtp('340', '2027-12-01'), dtp('356', '2028-01-01')], hd(`HD*021**HLT*${GOLD}*EMP`, dtp('348', '2028-01-01'))),
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    await c28.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a COBRA end already told is taken back, then the member is reinstated 025*41*C with HD*025', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    await divorcedSpouseOnCobra(s, '2027-03-31', '2027-04-01')
    await s.changeFile()
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: cobra(s.group.plans.gold!.id, s.ids.spouse!, '2027-04-01', '2027-06-30') })
    await s.changeFile()
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-07-10', eligibility_start_date: '2027-07-01', plan_elections: cobra(s.group.plans.gold!.id, s.ids.spouse!, '2027-04-01') })
    const file = await s.changeFile()
    // The notes' reinstatement row: 025*41, HD*025 (348), COBRA going on from its first day.
    expect(file.shapes).toEqual([
      loop('spouse', 'INS*N*01*025*41*C**5', [dtp('303', '2027-07-01'), dtp('340', '2027-04-01'), dtp('356', '2027-07-01')], hd(`HD*025**HLT*${GOLD}*IND`, dtp('348', '2027-04-01'))),
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when an employee on COBRA medical changes plan and adds active dental, then the dental goes in an active loop and the medical in a COBRA loop', async () => {
    const s = await openScenario(t, workers, operator, { families: [{ dependents: [] }] })
    const dentalA = await addPlan(s, s.group.coveragePeriodId, 'dental-a', 'dental', { premium_level: 'base' })
    s.carrier.knowPlan(dentalA, 'dental-a')
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, employment_details: { ...(current.employment_details as object), status: 'part_time' } }))
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-04-20', eligibility_start_date: '2027-05-01', plan_elections: cobra(s.group.plans.gold!.id, s.ids.subscriber!, '2027-05-01') })
    await s.changeFile()
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: { ...cobra(s.group.plans.silver!.id, s.ids.subscriber!, '2027-07-01'), dental: { type: 'election', plan_id: dentalA, coverages: [{ member_id: s.ids.subscriber!, start_date: '2027-07-01', status: 'employer_sponsored' }] } } })
    const file = await s.changeFile()
    // b320251 sent one loop INS*Y*18*001*EC*C**2*PT with the new dental in it: an active enrolment told as COBRA.
    expect(file.shapes.map((l) => [l.ins, l.coverages.map((c) => c.hd)])).toEqual([
      ['INS*Y*18*001*EC*A***PT', ['HD*021**DEN*dental-a*EMP']],
      ['INS*Y*18*001*22*C**2*PT', [`HD*024**HLT*${GOLD}*EMP`, `HD*021**HLT*${SILVER}*EMP`]],
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})
