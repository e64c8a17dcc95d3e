import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { GOLD, loopOf, memberIdsOf, openScenario } from './helpers/change-file-scenarios.js'
import { startCarrierTestBed, type CarrierTestBed } from './helpers/carrier-side.js'
import { dtp, medical } from './helpers/life-event-scenarios.js'
import type { Credential, TestApp } from './helpers/test-app.js'

/**
 * DTP*303 on a loop that ends a member's coverage (INS03 `024`) when the same change file also
 * tells an earlier change of that member. x12-834-notes.md: "`DTP*303` is the event's effective
 * date"; termination of employment: "349 = last day covered; 357 eligibility end". The loop's 303
 * is when the termination takes effect (the day after the last day covered); the earlier change
 * keeps its own date in its HD loop. Until 2026-11-28 the loop took the earliest change's date: a
 * carrier keying the termination on 303 ended the employee six months early.
 */
let bed: CarrierTestBed
let t: TestApp
let workers: Workers
let operator: Credential
beforeAll(async () => {
  bed = await startCarrierTestBed()
  ;({ t, workers } = bed)
  operator = await t.newOperator()
})
afterAll(async () => bed?.close())

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
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))

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
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    expect(file.shapes.map((l) => l.ins)).toEqual(['INS*Y*18*024*08*A***TE', 'INS*N*01*024*08*A', 'INS*N*19*024*08*A'])
    for (const l of file.shapes) {
      expect(l.dates.filter((d) => d.startsWith('DTP*303'))).toEqual([dtp('303', '2027-10-01')])
      expect(l.coverages.find((c) => c.hd.includes(GOLD))?.dates).toContain(dtp('349', '2027-06-30'))
    }
  })
})
