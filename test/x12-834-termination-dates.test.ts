import { describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { GOLD, SILVER, hd, loopOf, loopsOf, openScenario, type LoopShape, type Scenario, changeFileMatchingTruth } from './helpers/change-file-scenarios.js'
import { carrierTestBedForFile } from './helpers/carrier-side.js'
import { dtp, medical, type GroupSpec } from './helpers/life-event-scenarios.js'
import { call, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * DTP*303 on a loop that ends a member's coverage (INS03 `024`) when the same change file also
 * tells an earlier change of that member. x12-834-notes.md: "`DTP*303` is the event's effective
 * date"; termination of employment: "349 = last day covered; 357 eligibility end". The loop's 303
 * is when the termination takes effect (the day after the last day covered); the earlier change
 * keeps its own date in its HD loop. Until 2026-11-28 the loop took the earliest change's date: a
 * carrier keying the termination on 303 ended the employee six months early. A review of the first
 * fix (the day after the member's latest end of the plan year) wrote the cases below the first
 * describe: ends told in earlier files, cancellations, COBRA, deaths and re-hires; its four
 * cases of ends told before failed on that fix. A second review found a cancelled line's record
 * carrying an end told before (the cases of cancellations told with an end, after them).
 */
let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

describe('DTP*303 of a termination loop that tells an earlier change too', () => {
  it('when a divorce in March and a termination of employment in September go in one file, then the employee’s 024*08 loop is dated 10-01 and its new level keeps 04-01', async () => {
    const s = await openScenario(t, workers, operator, { families: [{ dependents: [{ label: 'spouse', relationship: 'spouse' }, { label: 'child', relationship: 'child' }] }] })
    const gold = s.group.plans.gold!.id
    await s.event(s.ids.subscriber!, { event: 'divorce', date: '2027-03-15', eligibility_start_date: '2027-04-01', plan_elections: medical(gold, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-03-31' }]) })
    await s.event(s.ids.subscriber!, {
      event: 'termination_of_employment',
      date: '2027-09-15',
      eligibility_start_date: '2027-10-01',
      plan_elections: medical(gold, [s.ids.subscriber!, s.ids.child!].map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2027-09-30' }))),
    })
    const file = await changeFileMatchingTruth(s)

    const employee = loopOf(file.shapes, 'subscriber')
    expect(employee.ins).toBe('INS*Y*18*024*08*A***TE')
    expect(employee.dates).toContain(dtp('303', '2027-10-01'))
    expect(employee.dates).toContain(dtp('357', '2027-09-30'))
    expect(employee.dates).not.toContain(dtp('303', '2027-04-01'))
    // The divorce's new level (family → employee and child) is told in its own HD loop, with its date.
    const level = employee.coverages.find((c) => c.hd.startsWith('HD*001'))
    expect(level?.hd).toBe(`HD*001**HLT*${GOLD}*E1D`)
    expect(level?.dates).toContain(dtp('303', '2027-04-01'))
    const ended = employee.coverages.find((c) => c.hd.startsWith('HD*024'))
    expect(ended?.dates).toContain(dtp('349', '2027-09-30'))

    expect(loopOf(file.shapes, 'spouse').ins).toBe('INS*N*01*024*01*A')
    expect(loopOf(file.shapes, 'spouse').dates).toContain(dtp('303', '2027-04-01'))
    expect(loopOf(file.shapes, 'child').dates).toContain(dtp('303', '2027-10-01'))
  })

  it('when a plan change in July and a termination of employment in September go in one file, then every 024*08 loop is dated 10-01 and the plans keep their 348 and 349', async () => {
    const s = await openScenario(t, workers, operator, { families: [{}] })
    const silver = s.group.plans.silver!.id
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: medical(silver, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-07-01' }))) })
    await s.event(s.ids.subscriber!, {
      event: 'termination_of_employment',
      date: '2027-09-15',
      eligibility_start_date: '2027-10-01',
      plan_elections: medical(silver, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-07-01', end_date: '2027-09-30' }))),
    })
    const file = await changeFileMatchingTruth(s)
    expect(file.shapes.map((l) => l.ins)).toEqual(['INS*Y*18*024*08*A***TE', 'INS*N*01*024*08*A', 'INS*N*19*024*08*A'])
    for (const l of file.shapes) {
      expect(l.dates.filter((d) => d.startsWith('DTP*303'))).toEqual([dtp('303', '2027-10-01')])
      expect(l.coverages.find((c) => c.hd.includes(GOLD))?.dates).toContain(dtp('349', '2027-06-30'))
    }
  })
})

const scenario = (spec: GroupSpec) => openScenario(t, workers, operator, spec)
const DENTAL = 'Dental Basic'
async function addDentalPlan(s: Scenario): Promise<string> {
  const res = await call(t.app, s.partner, 'POST', `/coverage_periods/${s.group.coveragePeriodId}/plans`, {
    plan: { external_identifier: 'dental', description: DENTAL, product_line: 'dental', premium_level: 'base', policy_premium_method: 'list_bill' },
  })
  expect(res.statusCode, res.body).toBe(201)
  const id = res.json().plan.id as string
  s.carrier.knowPlan(id, 'dental')
  return id
}
const dental = (planId: string, coverages: { member_id: string; start_date: string; end_date?: string }[]) => ({
  dental: { type: 'election', plan_id: planId, coverages: coverages.map((c) => ({ status: 'employer_sponsored', ...c })) },
})
const d303 = (l: LoopShape) => l.dates.filter((d) => d.startsWith('DTP*303'))
/** The employee's dental from 04-01, open-ended, told in a change file; answers the dental plan's id. */
async function dentalToldFromApril(s: Scenario): Promise<string> {
  const dentalId = await addDentalPlan(s)
  await s.event(s.ids.subscriber!, { event: 'newly_eligible', date: '2027-03-20', eligibility_start_date: '2027-04-01', plan_elections: dental(dentalId, [{ member_id: s.ids.subscriber!, start_date: '2027-04-01' }]) })
  await s.changeFile()
  return dentalId
}
/** Employment ending in September: gold held from 01-01 ends 09-30 for `members`, the employee's dental (from 04-01) on `dentalEnd`. */
const terminatedInSeptember = (s: Scenario, dentalId: string, { members = [s.ids.subscriber!], dentalEnd = '2027-09-30' }: { members?: string[]; dentalEnd?: string } = {}) =>
  s.event(s.ids.subscriber!, {
    event: 'termination_of_employment',
    date: '2027-09-15',
    eligibility_start_date: '2027-10-01',
    plan_elections: {
      ...medical(s.group.plans.gold!.id, members.map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2027-09-30' }))),
      ...dental(dentalId, [{ member_id: s.ids.subscriber!, start_date: '2027-04-01', end_date: dentalEnd }]),
    },
  })

// Ends the carrier was told in earlier files are not the loop's: it is dated by what it tells.
describe('DTP*303 of a termination loop beside ends told before', () => {
  // The carrier holds the employee terminated on 09-30 (medical and dental). A correction then
  // says dental really ended 06-30: the loop is 024 (nothing open) and tells one change, HD*024
  // DEN 349 = 06-30, which takes effect 07-01: dated by the medical end the carrier already holds
  // (10-01), a carrier keying the loop on 303 would change nothing and keep dental to 09-30.
  it('when a told termination is corrected for one line only (dental 09-30 → 06-30), then the 024 loop is dated when the correction takes effect (07-01), not the day after the medical end already told', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    const dentalId = await dentalToldFromApril(s)
    await terminatedInSeptember(s, dentalId)
    await s.changeFile()
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-06-20',
      eligibility_start_date: '2027-07-01',
      plan_elections: dental(dentalId, [{ member_id: s.ids.subscriber!, start_date: '2027-04-01', end_date: '2027-06-30' }]),
    })
    const file = await changeFileMatchingTruth(s)
    const employee = loopOf(file.shapes, 'subscriber')
    expect(employee.ins).toMatch(/^INS\*Y\*18\*024\*/)
    expect(employee.coverages).toEqual([hd(`HD*024**DEN*${DENTAL}*EMP`, dtp('348', '2027-04-01'), dtp('349', '2027-06-30'))])
    expect(d303(employee)).toEqual([dtp('303', '2027-07-01')])
  })

  // The employee holds medical silver from 10-01 (a plan change told, gold ending 09-30) and dental
  // ending 11-30 (told). The plan change is cancelled before its start: silver never takes effect
  // (HD*024 349 = 348 − 1), and nothing is open any more, so the loop is 024. Its one change takes
  // effect 10-01; dated 12-01 from the dental end already told, a carrier keying the loop on 303
  // would hold silver in force 10-01..11-30.
  it('when a future plan change is cancelled beside a line whose later end was told before, then the 024 loop is dated the cancelled start (10-01), not the day after the other line’s end (12-01)', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    const dentalId = await addDentalPlan(s)
    const me = s.ids.subscriber!
    await s.event(me, { event: 'newly_eligible', date: '2027-03-20', eligibility_start_date: '2027-04-01', plan_elections: dental(dentalId, [{ member_id: me, start_date: '2027-04-01', end_date: '2027-11-30' }]) })
    await s.event(me, { event: 'loss_of_coverage', date: '2027-09-10', eligibility_start_date: '2027-10-01', plan_elections: medical(s.group.plans.silver!.id, [{ member_id: me, start_date: '2027-10-01' }]) })
    await s.changeFile()
    await s.event(me, { event: 'loss_of_coverage', date: '2027-09-20', eligibility_start_date: '2027-10-01', plan_elections: medical(s.group.plans.silver!.id, [{ member_id: me, start_date: '2027-10-01', end_date: '2027-09-30' }]) })
    const file = await changeFileMatchingTruth(s)
    const employee = loopOf(file.shapes, 'subscriber')
    expect(employee.ins).toMatch(/^INS\*Y\*18\*024\*/)
    expect(employee.coverages).toEqual([hd(`HD*024**HLT*${SILVER}*EMP`, dtp('348', '2027-10-01'), dtp('349', '2027-09-30'))])
    expect(d303(employee)).toEqual([dtp('303', '2027-10-01')])
  })

  // A child whose coverage ended 03-31 (told) is enrolled again from 07-01 (told), then the new
  // coverage is cancelled before it starts. truth holds only the old record: lastCovered = 03-31,
  // and the loop must not be dated 04-01, three months before the coverage it cancels and a date
  // the carrier was told in an earlier file, but 07-01, when the cancellation takes effect.
  // Told open-ended or with its end (11-30): a cancellation's record is the one told, and its end
  // must not date the loop either (12-01, five months after what it tells, eight after 357).
  for (const toldEnd of [undefined, '2027-11-30']) {
    it(`when a child re-enrolled from 07-01${toldEnd ? ` to ${toldEnd.slice(5)}` : ''} after an end told on 03-31 is cancelled before the start, then the 024 loop is dated 07-01, not the day after the old end (04-01)${toldEnd ? ' nor after the cancelled end' : ''}`, async () => {
      const s = await scenario({ families: [{}] })
      const gold = s.group.plans.gold!.id
      await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-03-10', eligibility_start_date: '2027-04-01', plan_elections: medical(gold, [{ member_id: s.ids.child!, start_date: '2027-01-01', end_date: '2027-03-31' }]) })
      await s.changeFile()
      await s.event(s.ids.subscriber!, { event: 'newly_eligible', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: medical(gold, [{ member_id: s.ids.child!, start_date: '2027-07-01', ...(toldEnd ? { end_date: toldEnd } : {}) }]) })
      await s.changeFile()
      await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-20', eligibility_start_date: '2027-07-01', plan_elections: medical(gold, [{ member_id: s.ids.child!, start_date: '2027-07-01', end_date: '2027-06-30' }]) })
      const file = await changeFileMatchingTruth(s)
      const child = loopOf(file.shapes, 'child')
      expect(child.ins).toMatch(/^INS\*N\*19\*024\*/)
      expect(child.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-07-01'), dtp('349', '2027-06-30'))])
      expect(d303(child)).toEqual([dtp('303', '2027-07-01')])
    })
  }

  // As the child's: a re-hire told, then cancelled before its start. The loop's one change (HD*024
  // 348 07-01, 349 06-30) takes effect 07-01, not the day after the March termination the carrier
  // already holds (04-01).
  it('when a re-hire told from 07-01 is cancelled before its start, then the 024*08 loop is dated 07-01, not the day after the earlier termination (04-01)', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    const me = s.ids.subscriber!
    const gold = s.group.plans.gold!.id
    // Terminated 03-31 and re-hired from 07-01 (told), the re-hire then cancelled.
    await s.event(me, { event: 'termination_of_employment', date: '2027-03-16', eligibility_start_date: '2027-04-01', plan_elections: medical(gold, [{ member_id: me, start_date: '2027-01-01', end_date: '2027-03-31' }]) })
    await s.changeFile()
    await s.event(me, { event: 're_hire', date: '2027-06-20', eligibility_start_date: '2027-07-01', plan_elections: medical(gold, [{ member_id: me, start_date: '2027-07-01' }]) })
    await s.changeFile()
    await s.event(me, { event: 'termination_of_employment', date: '2027-06-25', eligibility_start_date: '2027-07-01', plan_elections: medical(gold, [{ member_id: me, start_date: '2027-07-01', end_date: '2027-06-30' }]) })
    const file = await changeFileMatchingTruth(s)
    expect(loopOf(file.shapes, 'subscriber').ins).toMatch(/^INS\*Y\*18\*024\*08/)
    expect(d303(loopOf(file.shapes, 'subscriber'))).toEqual([dtp('303', '2027-07-01')])
  })
})

describe('DTP*303 of a termination loop in life events told together', () => {
  it('when one termination of employment ends medical 09-30 and dental 09-15, then the 024*08 loop is dated 10-01 with 357 = 09-30 (dental keeps 349 = 09-15 in its HD loop)', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    const dentalId = await dentalToldFromApril(s)
    await terminatedInSeptember(s, dentalId, { dentalEnd: '2027-09-15' })
    const file = await changeFileMatchingTruth(s)
    const employee = loopOf(file.shapes, 'subscriber')
    expect(employee.ins).toBe('INS*Y*18*024*08*A***TE')
    expect(d303(employee)).toEqual([dtp('303', '2027-10-01')])
    expect(employee.dates).toContain(dtp('357', '2027-09-30'))
  })

  it('when a plan change in April, a termination of employment in September and the COBRA election go in one file, then the termination loops are dated 10-01 and COBRA is a loop of its own', async () => {
    const s = await scenario({ families: [{}] })
    const gold = s.group.plans.gold!.id
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-03-10', eligibility_start_date: '2027-04-01', plan_elections: medical(s.group.plans.silver!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-04-01' }))) })
    await s.event(s.ids.subscriber!, { event: 'termination_of_employment', date: '2027-09-15', eligibility_start_date: '2027-10-01', plan_elections: medical(s.group.plans.silver!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-04-01', end_date: '2027-09-30' }))) })
    await s.event(s.ids.subscriber!, { event: 'cobra', date: '2027-09-20', eligibility_start_date: '2027-10-01', plan_elections: medical(gold, [s.ids.subscriber!, s.ids.spouse!].map((member_id) => ({ member_id, start_date: '2027-10-01', status: 'cobra' as const }))) })
    const file = await changeFileMatchingTruth(s)
    const [ended, continued] = loopsOf(file.shapes, 'subscriber')
    expect(ended!.ins).toMatch(/^INS\*Y\*18\*024\*08\*A/)
    expect(d303(ended!)).toEqual([dtp('303', '2027-10-01')])
    expect(continued!.ins).toMatch(/^INS\*Y\*18\*021\*09\*C/)
    expect(d303(loopOf(file.shapes, 'child'))).toEqual([dtp('303', '2027-10-01')])
  })

  it('when COBRA changes plan in July and ends in September in one file, then the 024 loop is dated 10-01 with 357 = 09-30', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    const me = s.ids.subscriber!
    await s.event(me, { event: 'termination_of_employment', date: '2027-03-15', eligibility_start_date: '2027-04-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: me, start_date: '2027-01-01', end_date: '2027-03-31' }]) })
    await s.event(me, { event: 'cobra', date: '2027-03-20', eligibility_start_date: '2027-04-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: me, start_date: '2027-04-01', status: 'cobra' as const }]) })
    await s.changeFile()
    await s.event(me, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: medical(s.group.plans.silver!.id, [{ member_id: me, start_date: '2027-07-01', status: 'cobra' as const }]) })
    await s.event(me, { event: 'loss_of_coverage', date: '2027-09-10', eligibility_start_date: '2027-10-01', plan_elections: medical(s.group.plans.silver!.id, [{ member_id: me, start_date: '2027-07-01', end_date: '2027-09-30', status: 'cobra' as const }]) })
    const file = await changeFileMatchingTruth(s)
    const employee = loopOf(file.shapes, 'subscriber')
    expect(employee.ins).toMatch(/^INS\*Y\*18\*024\*/)
    expect(d303(employee)).toEqual([dtp('303', '2027-10-01')])
    expect(employee.dates).toContain(dtp('357', '2027-09-30'))
  })

  it('when a plan change in July and the spouse’s death in September go in one file, then the spouse is 024*03 dated 10-01 with 357 = 09-30', async () => {
    const s = await scenario({ families: [{}] })
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: medical(s.group.plans.silver!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-07-01' }))) })
    await s.event(s.ids.subscriber!, { event: 'death', date: '2027-09-12', eligibility_start_date: '2027-10-01', plan_elections: medical(s.group.plans.silver!.id, [{ member_id: s.ids.spouse!, start_date: '2027-07-01', end_date: '2027-09-30' }]) })
    const file = await changeFileMatchingTruth(s)
    const spouse = loopOf(file.shapes, 'spouse')
    expect(spouse.ins).toBe('INS*N*01*024*03*A')
    expect(d303(spouse)).toEqual([dtp('303', '2027-10-01')])
    expect(spouse.dates).toContain(dtp('357', '2027-09-30'))
  })

  it('when a termination in March and a re-hire in July go in one file, then the first loop is 024*08 dated 04-01 and the second 025*41', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    const me = s.ids.subscriber!
    const gold = s.group.plans.gold!.id
    await s.event(me, { event: 'termination_of_employment', date: '2027-03-16', eligibility_start_date: '2027-04-01', plan_elections: medical(gold, [{ member_id: me, start_date: '2027-01-01', end_date: '2027-03-31' }]) })
    await s.event(me, { event: 're_hire', date: '2027-07-01', eligibility_start_date: '2027-07-01', plan_elections: medical(gold, [{ member_id: me, start_date: '2027-07-01' }]) })
    const file = await changeFileMatchingTruth(s)
    const [ended, back] = loopsOf(file.shapes, 'subscriber')
    expect(ended!.ins).toMatch(/^INS\*Y\*18\*024\*08/)
    expect(d303(ended!)).toEqual([dtp('303', '2027-04-01')])
    expect(back!.ins).toMatch(/^INS\*Y\*18\*025\*41/)
  })

})

describe('DTP*303 of a 024 loop cancelling a coverage told with an end', () => {
  // The brief's retroactive termination, with the future-dated termination told first. Told: gold
  // 01-01..06-30, silver 07-01..11-30 (a plan change, then employment ending 11-30). The
  // termination is then moved back to 05-31: gold's end 05-31 (HD*024 349 0531), silver never
  // takes effect (HD*024 348 0701 349 0630). Coverage ends after 05-31: 303 = 06-01, 357 = 05-31.
  // Dated by silver's told end (11-30), it would say 303 = 12-01 beside 357 = 05-31 and 349s of
  // 05-31 and 06-30: a carrier keying the termination on 303 would keep the employee to 11-30.
  it('when a termination told for 11-30 (after a told plan change from 07-01) is moved back to 05-31, then the 024*08 loop is dated 06-01 with 357 = 05-31, not 12-01', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    const me = s.ids.subscriber!
    const gold = s.group.plans.gold!.id
    const silver = s.group.plans.silver!.id
    await s.event(me, { event: 'loss_of_coverage', date: '2027-04-10', eligibility_start_date: '2027-07-01', plan_elections: medical(silver, [{ member_id: me, start_date: '2027-07-01' }]) })
    await s.event(me, { event: 'termination_of_employment', date: '2027-04-20', eligibility_start_date: '2027-12-01', plan_elections: medical(silver, [{ member_id: me, start_date: '2027-07-01', end_date: '2027-11-30' }]) })
    await s.changeFile()
    await s.event(me, { event: 'termination_of_employment', date: '2027-05-20', eligibility_start_date: '2027-06-01', plan_elections: medical(gold, [{ member_id: me, start_date: '2027-01-01', end_date: '2027-05-31' }]) })
    const file = await changeFileMatchingTruth(s)
    const employee = loopOf(file.shapes, 'subscriber')
    expect(employee.ins).toMatch(/^INS\*Y\*18\*024\*08/)
    expect(employee.coverages).toEqual([
      hd(`HD*024**HLT*${SILVER}*EMP`, dtp('348', '2027-07-01'), dtp('349', '2027-06-30')),
      hd(`HD*024**HLT*${GOLD}*EMP`, dtp('348', '2027-01-01'), dtp('349', '2027-05-31')),
    ])
    expect(employee.dates).toContain(dtp('357', '2027-05-31'))
    expect(d303(employee)).toEqual([dtp('303', '2027-06-01')])
  })

  // Same, told plan change open-ended (no told end): the cancellation adds no end, and the loop is
  // dated by the termination of the old plan.
  it('when a retroactive termination (05-31) cancels a told open-ended plan change from 07-01, then the 024*08 loop is dated 06-01 with 357 = 05-31', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    const me = s.ids.subscriber!
    const gold = s.group.plans.gold!.id
    const silver = s.group.plans.silver!.id
    await s.event(me, { event: 'loss_of_coverage', date: '2027-04-10', eligibility_start_date: '2027-07-01', plan_elections: medical(silver, [{ member_id: me, start_date: '2027-07-01' }]) })
    await s.changeFile()
    await s.event(me, { event: 'termination_of_employment', date: '2027-05-20', eligibility_start_date: '2027-06-01', plan_elections: medical(gold, [{ member_id: me, start_date: '2027-01-01', end_date: '2027-05-31' }]) })
    const file = await changeFileMatchingTruth(s)
    const employee = loopOf(file.shapes, 'subscriber')
    expect(employee.ins).toMatch(/^INS\*Y\*18\*024\*08/)
    expect(employee.dates).toContain(dtp('357', '2027-05-31'))
    expect(d303(employee)).toEqual([dtp('303', '2027-06-01')])
  })
})

// A 024 loop telling changes of several lines dated apart has no one right 303: pinned as the rule
// gives it (docs/decisions.md), the day after the latest end it tells.
describe('DTP*303 of a 024 loop that tells a level change after the ends it tells', () => {
  // Told: employee, spouse and child terminated 09-30 (gold), the employee's dental too. One file
  // then says the employee's dental really ended 06-30 and the spouse left 07-31 (divorce): the
  // employee's loop tells HD*024 DEN 349 0630 and HD*001 gold (FAM → E1D) from 08-01. Nothing is
  // open, so 024. It is dated 07-01 (dental's end), a month before the level change the same loop
  // tells, with 357 = 09-30: the rule as recorded (a correction of one line's end is dated by its
  // own change), though a carrier ending the member on 303 would drop medical three months early.
  it('when a 024 loop tells a dental end (06-30) and a medical level change from 08-01 under a medical end told before (09-30), then it is dated 07-01, before its own HD*001 (303 = 08-01), with 357 = 09-30', async () => {
    const s = await scenario({ families: [{}] })
    const dentalId = await dentalToldFromApril(s)
    const gold = s.group.plans.gold!.id
    const me = s.ids.subscriber!
    await terminatedInSeptember(s, dentalId, { members: Object.values(s.ids) })
    await s.changeFile()
    await s.event(me, { event: 'divorce', date: '2027-07-15', eligibility_start_date: '2027-08-01', plan_elections: medical(gold, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-07-31' }]) })
    await s.event(me, { event: 'loss_of_coverage', date: '2027-06-20', eligibility_start_date: '2027-07-01', plan_elections: dental(dentalId, [{ member_id: me, start_date: '2027-04-01', end_date: '2027-06-30' }]) })
    const file = await changeFileMatchingTruth(s)
    const employee = loopOf(file.shapes, 'subscriber')
    expect(employee.ins).toMatch(/^INS\*Y\*18\*024\*/)
    expect(employee.coverages).toEqual([
      hd(`HD*024**DEN*${DENTAL}*EMP`, dtp('348', '2027-04-01'), dtp('349', '2027-06-30')),
      hd(`HD*001**HLT*${GOLD}*E1D`, dtp('303', '2027-08-01'), dtp('348', '2027-01-01')),
    ])
    expect(employee.dates).toContain(dtp('357', '2027-09-30'))
    expect(d303(employee)).toEqual([dtp('303', '2027-07-01')])
  })
})
