import { describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { linesHeldTwice } from '../src/modules/edi-834/edi-834.roster.js'
import { GOLD, shapeOf, SILVER, addDependent, createRenewal, hd, memberIdsOf, openScenario, updateSubscriber, loopOf, changeFileMatchingTruth } from './helpers/change-file-scenarios.js'
import { carrierTestBedForFile } from './helpers/carrier-side.js'
import {
  CarrierFiles,
  addDays,
  completeWorkOrder,
  dependentBody,
  dtp,
  medical,
  memberLoops,
  todayUtc,
  type GroupSpec,
} from './helpers/life-event-scenarios.js'
import { call, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * Audit of what change files tell the carrier in scenarios test/life-events-834.test.ts does not
 * drive: several life events of one family in one change window, corrections of a termination
 * already told, a change undone before the file goes, a dependent ageing out, COBRA after an
 * earlier family event. Each test drives the API (aetna, an edi carrier that does not act on its
 * own), builds the change file, and asserts what /work/shared/spec/x12-834-notes.md says (quoted
 * above each assertion).
 *
 * Plan years are 2027 (the clock says 2026-11 when written), so every change is future-dated.
 */
let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

const scenario = (spec: GroupSpec) => openScenario(t, workers, operator, spec)


describe('several life events of one family in one change window', () => {
  // Notes, "Life events in the 834": Marriage: spouse `INS*N*01*021*32`; subscriber `INS*Y*18*001*32`, `DMG04 M`.
  // Birth / adoption of a child: child `INS*N*19*021*02`.
  // Each member the carrier was never sent is named by the event that brought it, and DMG04 says
  // the latest marriage, divorce or separation of the window (until 2026-11-27 every loop took the
  // latest event: the spouse went out 021*02, the subscriber DMG04 I).
  it('when a marriage and a birth of one family go in one change file, then the spouse is 021*32, the newborn 021*02 and the subscriber DMG04 M', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    const spouse = await addDependent(s, s.ids.subscriber!, dependentBody({ label: 'spouse', relationship: 'spouse' }, 'Doe1'))
    const baby = await addDependent(s, s.ids.subscriber!, { ...dependentBody({ label: 'baby', relationship: 'child', birthDate: '2026-11-20' }, 'Doe1'), first_name: 'Ivy' })
    s.names.set(spouse, 'spouse').set(baby, 'baby')
    await s.event(s.ids.subscriber!, {
      event: 'marriage',
      date: '2027-06-15',
      eligibility_start_date: '2027-07-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: spouse, start_date: '2027-07-01' }]),
    })
    await s.event(s.ids.subscriber!, {
      event: 'birth',
      date: '2026-11-24',
      eligibility_start_date: '2027-01-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: baby, start_date: '2027-01-01' }]),
    })
    const file = await s.changeFile()
    // The roster follows the truth whatever the codes say (asserted first: the codes are the defect).
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    expect(loopOf(file.shapes, 'spouse').ins).toBe('INS*N*01*021*32*A')
    expect(loopOf(file.shapes, 'baby').ins).toBe('INS*N*19*021*02*A')
    expect(file.loops.find((l) => l.memberId === s.ids.subscriber)?.dmg).toBe('DMG*D8*19850615*F*M')
    // New enrollment: "356 eligibility begin" — the spouse's is the marriage's, not the birth's.
    expect(loopOf(file.shapes, 'spouse').dates).toEqual([dtp('303', '2027-07-01'), dtp('356', '2027-07-01')])
  })

  /** A newborn of 2026-11-20 added to the family (not yet covered), named `baby`. */
  async function addBaby(s: Awaited<ReturnType<typeof scenario>>): Promise<string> {
    const baby = await addDependent(s, s.ids.subscriber!, { ...dependentBody({ label: 'baby', relationship: 'child', birthDate: '2026-11-20' }, 'Doe1'), first_name: 'Ivy' })
    s.names.set(baby, 'baby')
    return baby
  }
  /** Its birth: covered on gold from the plan year's start. */
  const birthOf = (s: Awaited<ReturnType<typeof scenario>>, baby: string) =>
    s.event(s.ids.subscriber!, { event: 'birth', date: '2026-11-24', eligibility_start_date: '2027-01-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: baby, start_date: '2027-01-01' }]) })
  /** A divorce: the spouse's gold ends on 2027-03-31. */
  const divorceOfSpouse = (s: Awaited<ReturnType<typeof scenario>>) =>
    s.event(s.ids.subscriber!, { event: 'divorce', date: '2027-03-15', eligibility_start_date: '2027-04-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-03-31' }]) })
  /** A life event ending a member's gold (held from the plan year's start) on `end`; eligible from the day after. */
  const endingGold = (s: Awaited<ReturnType<typeof scenario>>, event: 'death' | 'loss_of_coverage', date: string, memberId: string, end: string) =>
    s.event(s.ids.subscriber!, { event, date, eligibility_start_date: addDays(end, 1), plan_elections: medical(s.group.plans.gold!.id, [{ member_id: memberId, start_date: '2027-01-01', end_date: end }]) })
  const familyWithSpouse = () => scenario({ families: [{ dependents: [{ label: 'spouse', relationship: 'spouse', birthDate: '1984-02-02' }] }] })

  // Same rows of the notes, the other way round: a divorce after a birth in one window.
  // Divorce: ex-spouse `INS*N*01*024*01`; Birth: child `INS*N*19*021*02`.
  // As above (until 2026-11-27 the newborn went out 021*01).
  it('when a birth and then a divorce of one family go in one change file, then the newborn is 021*02 and the ex-spouse 024*01', async () => {
    const s = await scenario({ families: [{}] })
    const baby = await addBaby(s)
    await birthOf(s, baby)
    await divorceOfSpouse(s)
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    expect(loopOf(file.shapes, 'spouse').ins).toBe('INS*N*01*024*01*A')
    expect(loopOf(file.shapes, 'baby').ins).toBe('INS*N*19*021*02*A')
    // The newborn's eligibility begins with its coverage (356), not on the divorce's date.
    expect(loopOf(file.shapes, 'baby').dates).toEqual([dtp('303', '2027-01-01'), dtp('356', '2027-01-01')])
  })

  // A divorce, then a birth told after it (the child's coverage from the plan year's start) in
  // the same window. A member the carrier holds is named by the latest event of the window that
  // set or replaced its active coverage: the ex-spouse's end is the divorce's alone; the
  // subscriber's level from 04-01 (FAM told, E2D now: one child and the newborn) both changed,
  // and the birth came last (until 2026-11-27 every loop took the window's latest event: the
  // ex-spouse went out 024*02).
  it('when a divorce and then a birth of one family go in one change file, then the ex-spouse is 024*01, the newborn 021*02 and the subscriber 001*02', async () => {
    const s = await scenario({ families: [{}] })
    const baby = await addBaby(s)
    await divorceOfSpouse(s)
    await birthOf(s, baby)
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    expect(loopOf(file.shapes, 'spouse').ins).toBe('INS*N*01*024*01*A')
    expect(loopOf(file.shapes, 'baby').ins).toBe('INS*N*19*021*02*A')
    expect(loopOf(file.shapes, 'subscriber').ins).toBe('INS*Y*18*001*02*A***FT')
  })

  // Notes: New enrollment (newly eligible) `INS*…*021*28`, "356 eligibility begin". A child
  // enrolled from 2027-05-01 and ended 2027-06-30 by a later event in the same window is still an
  // enrollment from 2027-05-01 (HD*021 348, with its 349).
  // The child is named by the earliest event of the window that set its coverage, although the
  // later one replaced that coverage (until 2026-11-27: `021*EC`, 356 = the later event's date).
  it('when a newly eligible child is enrolled and then ended by another event before the file goes, then the child is 021*28 with 356 = its coverage start', async () => {
    const s = await scenario({ families: [{ dependents: [{ label: 'spouse', relationship: 'spouse' }, { label: 'child', relationship: 'child' }], enrolled: ['subscriber', 'spouse'] }] })
    await s.event(s.ids.subscriber!, {
      event: 'newly_eligible',
      date: '2027-04-20',
      eligibility_start_date: '2027-05-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-05-01' }]),
    })
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-06-20',
      eligibility_start_date: '2027-07-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-05-01', end_date: '2027-06-30' }]),
    })
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    const child = loopOf(file.shapes, 'child')
    expect(child.coverages).toEqual([hd(`HD*021**HLT*${GOLD}*FAM`, dtp('348', '2027-05-01'), dtp('349', '2027-06-30'))])
    expect(child.ins).toBe('INS*N*19*021*28*A')
    expect(child.dates).toContain(dtp('356', '2027-05-01'))
  })

  // Notes: Divorce: ex-spouse `INS*N*01*024*01`, `HD*024`, 349 = last day covered. COBRA
  // continuation: `INS*…*021*09*C*…*<INS07>` (`5` divorce), `HD*021`, 340, 348 = COBRA start.
  // Sent in two windows, the service says exactly that (the COBRA test of life-events-834); in one
  // window the ex-spouse's active coverage must still be ended as a divorce, benefit status A.
  // The loop that ends the active coverage is read without the COBRA coverage its sibling loop
  // adds (until 2026-11-27 it went out `INS*N*01*001*01*C`).
  it('when a divorce and the ex-spouse’s COBRA go in one change file, then the ex-spouse is 024*01*A (HD*024) and then 021*09*C with INS07 5 (HD*021)', async () => {
    const s = await scenario({ families: [{}] })
    await s.event(s.ids.subscriber!, {
      event: 'divorce',
      date: '2027-03-15',
      eligibility_start_date: '2027-04-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-03-31' }]),
    })
    await s.event(s.ids.subscriber!, {
      event: 'cobra',
      date: '2027-03-20',
      eligibility_start_date: '2027-04-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-04-01', status: 'cobra' }]),
    })
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    const spouse = file.shapes.filter((l) => l.member === 'spouse')
    expect(spouse.map((l) => l.ins)).toEqual(['INS*N*01*024*01*A', 'INS*N*01*021*09*C**5'])
    expect(spouse[0]!.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-03-31'))])
    expect(spouse[1]!.coverages.map((c) => [c.hd.slice(0, 6), c.dates])).toEqual([['HD*021', [dtp('348', '2027-04-01')]]])
    expect(spouse[1]!.dates).toContain(dtp('340', '2027-04-01'))
  })

  // Api contract section 10: "a change file carries exactly the difference to what is now true".
  // Notes: "Open enrollment / benefit selection ... unchanged plans are not sent".
  it('when a plan change is undone before the file goes (gold to silver and back to gold), then the carrier is sent nothing', async () => {
    const s = await scenario({ families: [{}] })
    const all = (planId: string) => medical(planId, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-07-01' })))
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-10', eligibility_start_date: '2027-07-01', plan_elections: all(s.group.plans.silver!.id) })
    await s.event(s.ids.subscriber!, { event: 'loss_of_coverage', date: '2027-06-12', eligibility_start_date: '2027-07-01', plan_elections: all(s.group.plans.gold!.id) })
    const sent = await s.carrier.sync()
    expect(sent.map((f) => f.delivery.kind), 'no file: nothing differs from what the carrier holds').toEqual([])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // Same rule: a dependent added and cancelled before the file goes is nothing to tell, and the
  // subscriber's level (HD05) is as the carrier holds it.
  it('when a newly eligible child is added and cancelled (end = start - 1) before the file goes, then the carrier is sent nothing', async () => {
    const s = await scenario({ families: [{ dependents: [{ label: 'spouse', relationship: 'spouse' }, { label: 'child', relationship: 'child' }], enrolled: ['subscriber', 'spouse'] }] })
    await s.event(s.ids.subscriber!, {
      event: 'newly_eligible',
      date: '2027-04-20',
      eligibility_start_date: '2027-05-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-05-01' }]),
    })
    await s.event(s.ids.subscriber!, {
      event: 'newly_eligible',
      date: '2027-04-22',
      eligibility_start_date: '2027-05-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-05-01', end_date: '2027-04-30' }]),
    })
    const sent = await s.carrier.sync()
    expect(sent.map((f) => f.delivery.kind)).toEqual([])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // Notes: Termination of employment: every loop `INS*…*024*08`, subscriber INS08 `TE`; every
  // `HD*024`; 349 = last day covered; "INS03 is `024` when the member has no coverage left in
  // force after the change". Plan change: old plan `HD*024` (349 = new start − 1).
  it('when a plan change and then a termination of employment go in one change file, then every loop is 024*08 with the old plan ended the day before the new one and the new plan ending on the last day covered', async () => {
    const s = await scenario({ families: [{}] })
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-06-10',
      eligibility_start_date: '2027-07-01',
      plan_elections: medical(s.group.plans.silver!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-07-01' }))),
    })
    await s.event(s.ids.subscriber!, {
      event: 'termination_of_employment',
      date: '2027-09-15',
      eligibility_start_date: '2027-10-01',
      plan_elections: medical(s.group.plans.silver!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-07-01', end_date: '2027-09-30' }))),
    })
    const file = await s.changeFile()
    expect(file.shapes.map((l) => [l.member, l.ins])).toEqual([
      ['subscriber', 'INS*Y*18*024*08*A***TE'],
      ['spouse', 'INS*N*01*024*08*A'],
      ['child', 'INS*N*19*024*08*A'],
    ])
    for (const l of file.shapes) {
      expect(l.dates).toContain(dtp('357', '2027-09-30'))
      const gold = l.coverages.find((c) => c.hd.includes(GOLD))!
      const silver = l.coverages.find((c) => c.hd.includes(SILVER))!
      expect(gold.hd.startsWith('HD*024*')).toBe(true)
      expect(gold.dates).toContain(dtp('349', '2027-06-30'))
      expect(silver.dates).toEqual([dtp('348', '2027-07-01'), dtp('349', '2027-09-30')])
    }
    for (const date of ['2027-06-30', '2027-07-01', '2027-09-30']) expect(linesHeldTwice(s.carrier.roster, date)).toEqual([])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // Notes: Demographic change `INS*…*001*25`, no coverage, 303. Plan change `INS*…*001*22`.
  // A name change travelling with a plan change: the loop carries the new name (NM1) and the plan
  // change's codes; the other members are a plan change only.
  it('when the subscriber changes name and the family changes plan in one window, then the loops are 001*22 with the new name in NM1', async () => {
    const s = await scenario({ families: [{}] })
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, last_name: 'Renamed' }))
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-06-10',
      eligibility_start_date: '2027-07-01',
      plan_elections: medical(s.group.plans.silver!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-07-01' }))),
    })
    const file = await s.changeFile()
    expect(file.shapes.map((l) => l.ins)).toEqual(['INS*Y*18*001*22*A***FT', 'INS*N*01*001*22*A', 'INS*N*19*001*22*A'])
    expect(file.content).toContain('NM1*IL*1*Renamed*Jane')
    for (const l of file.shapes) expect(l.dates).toEqual([dtp('303', '2027-07-01')])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // A later event that re-levels a dependent's remaining days (a birth or a newly eligible child
  // covered from before a divorce or a death took effect) changes nothing the carrier is told of
  // that dependent: levels are told on the subscriber's loop. The loop ending her coverage stays
  // the event that ended it. Cases from a review of 477d93f (2026-11-27), each wrong before.
  describe('an event that re-levels a dependent does not name its loop', () => {
    it('when a divorce and then a birth from the plan year’s start go in one file (a family of two), then the ex-spouse is 024*01', async () => {
      const s = await familyWithSpouse()
      const baby = await addBaby(s)
      await divorceOfSpouse(s)
      await birthOf(s, baby)
      const file = await changeFileMatchingTruth(s)
      expect(loopOf(file.shapes, 'spouse').ins).toBe('INS*N*01*024*01*A')
      expect(loopOf(file.shapes, 'baby').ins).toBe('INS*N*19*021*02*A')
    })

    it('when a divorce and then a child newly eligible before it took effect go in one file, then the ex-spouse is 024*01 and the child 021*28', async () => {
      const s = await familyWithSpouse()
      const kid = await addDependent(s, s.ids.subscriber!, dependentBody({ label: 'kid', relationship: 'child', birthDate: '2012-03-03' }, 'Doe1'))
      s.names.set(kid, 'kid')
      await divorceOfSpouse(s)
      await s.event(s.ids.subscriber!, { event: 'newly_eligible', date: '2027-01-20', eligibility_start_date: '2027-02-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: kid, start_date: '2027-02-01' }]) })
      const file = await changeFileMatchingTruth(s)
      expect(loopOf(file.shapes, 'spouse').ins).toBe('INS*N*01*024*01*A')
      expect(loopOf(file.shapes, 'kid').ins).toBe('INS*N*19*021*28*A')
    })

    it('when the spouse’s death and then a birth go in one file, then the spouse is 024*03', async () => {
      const s = await familyWithSpouse()
      const baby = await addBaby(s)
      await endingGold(s, 'death', '2027-05-20', s.ids.spouse!, '2027-05-31')
      await birthOf(s, baby)
      const file = await changeFileMatchingTruth(s)
      expect(loopOf(file.shapes, 'spouse').ins).toBe('INS*N*01*024*03*A')
    })

    it('when one child’s coverage ends and a later event is the other child’s death, then the living child is 024*EC, not 03', async () => {
      const s = await scenario({ families: [{ dependents: [{ label: 'child1', relationship: 'child', birthDate: '2012-03-03' }, { label: 'child2', relationship: 'child', birthDate: '2014-04-04' }] }] })
      await endingGold(s, 'loss_of_coverage', '2027-06-10', s.ids.child1!, '2027-06-30')
      await endingGold(s, 'death', '2027-03-20', s.ids.child2!, '2027-03-31')
      const file = await changeFileMatchingTruth(s)
      expect(loopOf(file.shapes, 'child1').ins).toBe('INS*N*19*024*EC*A')
      expect(loopOf(file.shapes, 'child2').ins).toBe('INS*N*19*024*03*A')
    })

    it('when a child the carrier holds as ended is newly eligible again and a birth follows in the same file, then the child is 001*28 with DTP*356 at its new start', async () => {
      const s = await scenario({ families: [{ dependents: [{ label: 'child', relationship: 'child', birthDate: '2012-03-03' }] }] })
      await endingGold(s, 'loss_of_coverage', '2027-01-10', s.ids.child!, '2027-01-31')
      await s.changeFile()
      const baby = await addBaby(s)
      await s.event(s.ids.subscriber!, { event: 'newly_eligible', date: '2027-04-20', eligibility_start_date: '2027-05-01', plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-05-01' }]) })
      await birthOf(s, baby)
      const file = await changeFileMatchingTruth(s)
      const child = loopOf(file.shapes, 'child')
      expect(child.ins).toBe('INS*N*19*001*28*A')
      expect(child.dates).toContain(dtp('356', '2027-05-01'))
    })
  })
})

describe('demographic changes', () => {
  // Notes: Demographic change (name, address, marital status): `INS*…*001*25`; Coverage: none; 303.
  it("when only a dependent's name changes, then its loop alone is 001*25 with no HD loop and DTP*303 = the file date", async () => {
    const s = await scenario({ families: [{}] })
    const res = await call(t.app, s.partner, 'GET', `/members/${s.ids.child}`)
    expect(res.statusCode, res.body).toBe(200)
    const child = res.json().member
    const body = { external_identifier: child.external_identifier, first_name: 'Samuel', last_name: child.last_name, birth_date: child.birth_date, gender: child.gender, subscriber_relationship: child.subscriber_relationship }
    const put = await call(t.app, s.partner, 'PUT', `/dependents/${s.ids.child}`, { dependent: body })
    expect(put.statusCode, put.body).toBe(200)
    const file = await s.changeFile()
    expect(file.shapes).toEqual([{ member: 'child', ins: 'INS*N*19*001*25*A', dates: [dtp('303', todayUtc())], coverages: [] }])
    expect(file.content).toContain('NM1*IL*1*Doe1*Samuel')
  })

  // Same row: an address change is 001*25 with no HD loop.
  it("when only the subscriber's address changes, then its loop alone is 001*25 with the new N3 and no HD loop", async () => {
    const s = await scenario({ families: [{}] })
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, residential_address: { address_line_1: '99 Oak Ave', city: 'Springfield', state: 'IL', zip: '62704' } }))
    const file = await s.changeFile()
    expect(file.shapes).toEqual([{ member: 'subscriber', ins: 'INS*Y*18*001*25*A***FT', dates: [dtp('303', todayUtc())], coverages: [] }])
    expect(file.content).toContain('N3*99 Oak Ave')
  })
})

describe('terminations already told, then corrected', () => {
  // Notes: "INS03 is `024` when the member has no coverage left in force after the change;
  // otherwise `001`". Future-dated termination: `HD*024`, 349 in the future. Reinstatement is
  // `INS*…*025*41` / `HD*025` (348 = the new start), a re-enrollment.
  // A told end moved later, the family still ending, is a termination with the new last day
  // (until 2026-11-27 it went out as a reinstatement, `INS*…*025*08` with `HD*025`).
  it('when a future termination date already told is moved later, then every loop is still 024*08 with HD*024 and the new DTP*349', async () => {
    const s = await scenario({ families: [{}] })
    const terminate = (lastDay: string, date: string) =>
      s.event(s.ids.subscriber!, {
        event: 'termination_of_employment',
        date,
        eligibility_start_date: '2027-10-01',
        plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: lastDay }))),
      })
    await terminate('2027-09-30', '2027-09-15')
    const first = await s.changeFile()
    expect(first.shapes.map((l) => l.ins)).toEqual(['INS*Y*18*024*08*A***TE', 'INS*N*01*024*08*A', 'INS*N*19*024*08*A'])
    await terminate('2027-10-31', '2027-10-15')
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    expect(file.shapes.map((l) => l.ins)).toEqual(['INS*Y*18*024*08*A***TE', 'INS*N*01*024*08*A', 'INS*N*19*024*08*A'])
    for (const l of file.shapes) {
      expect(l.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-10-31'))])
      // Termination: 357 eligibility end = the last day covered; no eligibility begin (356) is told.
      expect(l.dates).toContain(dtp('357', '2027-10-31'))
      expect(l.dates.filter((d) => d.startsWith('DTP*356*'))).toEqual([])
      // "DTP*303 is the event's effective date": the correction changes nothing before 2027-10-01.
      expect(l.dates.find((d) => d.startsWith('DTP*303*'))! >= dtp('303', '2027-10-01')).toBe(true)
    }
  })

  // Notes: Future-dated termination `HD*024`, 349 in the future. A date moved earlier stays a termination.
  it('when a future termination date already told is moved earlier, then every loop is 024*08 with HD*024 and the new DTP*349', async () => {
    const s = await scenario({ families: [{}] })
    const terminate = (lastDay: string, date: string) =>
      s.event(s.ids.subscriber!, {
        event: 'termination_of_employment',
        date,
        eligibility_start_date: '2027-10-01',
        plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: lastDay }))),
      })
    await terminate('2027-09-30', '2027-09-15')
    await s.changeFile()
    await terminate('2027-08-31', '2027-08-15')
    const file = await s.changeFile()
    expect(file.shapes.map((l) => l.ins)).toEqual(['INS*Y*18*024*08*A***TE', 'INS*N*01*024*08*A', 'INS*N*19*024*08*A'])
    for (const l of file.shapes) {
      expect(l.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-08-31'))])
      expect(l.dates).toContain(dtp('357', '2027-08-31'))
    }
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})

describe('a termination dated before the coverage start', () => {
  // Notes: Termination never effective (cancel before start): `INS*…*024*<reason>` where nothing
  // else stays in force, `HD*024`, 349 ≤ 348 (end = start − 1). Coverage level change only:
  // `HD*001` with the new HD05; "HD05 coverage level counts the members covered on that plan on
  // the effective date, never members whose coverage has ended."
  it('when a child told as enrolled from 2027-05-01 is cancelled before its start, then the child is 024 with HD*024 349 = 348 - 1 and the subscriber goes back to ESP from 2027-05-01 (HD*001)', async () => {
    const s = await scenario({ families: [{ dependents: [{ label: 'spouse', relationship: 'spouse' }, { label: 'child', relationship: 'child' }], enrolled: ['subscriber', 'spouse'] }] })
    await s.event(s.ids.subscriber!, {
      event: 'newly_eligible',
      date: '2027-04-20',
      eligibility_start_date: '2027-05-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-05-01' }]),
    })
    await s.changeFile()
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-04-25',
      eligibility_start_date: '2027-05-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-05-01', end_date: '2027-04-30' }]),
    })
    const file = await s.changeFile()
    expect(file.shapes.map((l) => l.member)).toEqual(['subscriber', 'child'])
    const subscriber = loopOf(file.shapes, 'subscriber')
    expect(subscriber.ins).toMatch(/^INS\*Y\*18\*001\*/)
    expect(subscriber.coverages).toEqual([hd(`HD*001**HLT*${GOLD}*ESP`, dtp('303', '2027-05-01'), dtp('348', '2027-01-01'))])
    const child = loopOf(file.shapes, 'child')
    expect(child.ins).toMatch(/^INS\*N\*19\*024\*/)
    expect(child.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-05-01'), dtp('349', '2027-04-30'))])
    expect(s.carrier.roster.member(s.ids.child!)?.coverages).toEqual([])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})

describe('a dependent ageing out', () => {
  // Notes: "HD05 coverage level counts the members covered on that plan on the effective date,
  // never members whose coverage has ended." Coverage level change only: `INS*…*001*<event
  // reason>`, `HD*001` with the new HD05, 303. "INS03 is `024` when the member has no coverage
  // left in force after the change".
  it('when a child ages out (its coverage ends 2027-08-31), then the child is 024 with HD*024 349 and 357, and the subscriber 001 with HD*001 ESP dated 303 = 2027-09-01', async () => {
    const s = await scenario({ families: [{}] })
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-08-20',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-01-01', end_date: '2027-08-31' }]),
    })
    const file = await s.changeFile()
    const subscriber = loopOf(file.shapes, 'subscriber')
    expect(subscriber.ins).toMatch(/^INS\*Y\*18\*001\*/)
    expect(subscriber.dates).toEqual([dtp('303', '2027-09-01')])
    expect(subscriber.coverages).toEqual([hd(`HD*001**HLT*${GOLD}*ESP`, dtp('303', '2027-09-01'), dtp('348', '2027-01-01'))])
    const child = loopOf(file.shapes, 'child')
    expect(child.ins).toMatch(/^INS\*N\*19\*024\*/)
    expect(child.dates).toContain(dtp('357', '2027-08-31'))
    expect(child.coverages.map((c) => [c.hd.split('*')[0] + '*' + c.hd.split('*')[1], c.dates])).toEqual([['HD*024', [dtp('348', '2027-01-01'), dtp('349', '2027-08-31')]]])
    expect(file.shapes.some((l) => l.member === 'spouse'), 'the spouse is not changed').toBe(false)
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // Notes: COBRA continuation `INS*…*021*09*C*…*<INS07>` per continuing member, "INS07 `1`
  // termination, `2` reduction of hours, `5` divorce, `7` ineligible child".
  // INS07 comes from the event that ended this member's active coverage, not the family's latest
  // that ended anyone's (until 2026-11-27 the divorce months earlier gave the child `5`).
  it('when a child ages out and continues under COBRA in a family that had a divorce earlier, then its loop is 021*09*C with INS07 7 (ineligible child)', async () => {
    const s = await scenario({ families: [{}] })
    await s.event(s.ids.subscriber!, {
      event: 'divorce',
      date: '2027-03-15',
      eligibility_start_date: '2027-04-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-03-31' }]),
    })
    await s.changeFile()
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-08-20',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-01-01', end_date: '2027-08-31' }]),
    })
    await s.changeFile()
    await s.event(s.ids.subscriber!, {
      event: 'cobra',
      date: '2027-08-25',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-09-01', status: 'cobra' }]),
    })
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    const child = loopOf(file.shapes, 'child')
    expect(child.ins).toBe('INS*N*19*021*09*C**7')
    expect(child.dates).toContain(dtp('340', '2027-09-01'))
  })

  // Control for the test above: without an earlier family event the child's INS07 is 7.
  it('when a child ages out and continues under COBRA in a family with no earlier event, then its loop is 021*09*C with INS07 7', async () => {
    const s = await scenario({ families: [{}] })
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-08-20',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-01-01', end_date: '2027-08-31' }]),
    })
    await s.changeFile()
    await s.event(s.ids.subscriber!, {
      event: 'cobra',
      date: '2027-08-25',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-09-01', status: 'cobra' }]),
    })
    const file = await s.changeFile()
    const child = loopOf(file.shapes, 'child')
    expect(child.ins).toBe('INS*N*19*021*09*C**7')
    expect(child.dates).toContain(dtp('340', '2027-09-01'))
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})

describe('dates of changes in the past and in a renewal', () => {
  // Notes: "A change dated in the past (retroactive) or the future carries its own dates: `DTP*303`
  // is the event's effective date, not the file date." Plan change: `INS*…*001*22`, old plan
  // `HD*024` (349 = new start − 1) and new plan `HD*021` (348), 303 = new start.
  it('when a plan change is retroactive (effective the first of this month), then 303 and 348 are that date and the old plan ends the day before, not the file date', async () => {
    const today = todayUtc()
    const start = `${addDays(today, -200).slice(0, 7)}-01`
    const end = addDays(`${Number(start.slice(0, 4)) + 1}${start.slice(4)}`, -1)
    const effective = `${today.slice(0, 7)}-01` === today ? addDays(today, -1) : `${today.slice(0, 7)}-01`
    const s = await scenario({ period: { start, end }, families: [{}] })
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: effective,
      eligibility_start_date: effective,
      plan_elections: medical(s.group.plans.silver!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: effective }))),
    })
    const file = await s.changeFile()
    const coverages = [hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', start), dtp('349', addDays(effective, -1))), hd(`HD*021**HLT*${SILVER}*FAM`, dtp('348', effective))]
    expect(file.shapes).toEqual([
      { member: 'subscriber', ins: 'INS*Y*18*001*22*A***FT', dates: [dtp('303', effective)], coverages },
      { member: 'spouse', ins: 'INS*N*01*001*22*A', dates: [dtp('303', effective)], coverages },
      { member: 'child', ins: 'INS*N*19*001*22*A', dates: [dtp('303', effective)], coverages },
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // Notes: Open enrollment / benefit selection: `INS*…*001*EC` (new members `021*EC`); changed
  // plans as plan change; unchanged plans are not sent; 348 = plan-year start. Coverage level
  // change only: `HD*001` with the new HD05.
  it('when a child joins in the renewal’s open enrollment and the family keeps its plan, then the child is 021*EC (348 = plan-year start), the subscriber 001*EC with HD*001 FAM, and the spouse is not sent', async () => {
    const s = await scenario({ families: [{ dependents: [{ label: 'spouse', relationship: 'spouse' }, { label: 'child', relationship: 'child' }], enrolled: ['subscriber', 'spouse'] }] })
    const renewal = await createRenewal(s)
    const elect = (members: string[], date: string) =>
      s.event(s.ids.subscriber!, {
        coverage_period_id: renewal.id,
        event: 'open_enrollment',
        date,
        eligibility_start_date: '2028-01-01',
        plan_elections: medical(renewal.plans.gold!.id, members.map((member_id) => ({ member_id, start_date: '2028-01-01' }))),
      })
    await elect([s.ids.subscriber!, s.ids.spouse!], '2027-11-05')
    await completeWorkOrder(t, workers, operator, renewal.workOrderId, null)
    const carrier2028 = new CarrierFiles(t, workers, s.partner, operator, renewal.group)
    expect((await carrier2028.sync()).map((f) => f.delivery.kind)).toEqual(['full'])
    await elect([s.ids.child!], '2027-11-20')
    const fresh = await carrier2028.sync()
    expect(fresh.map((f) => f.delivery.kind)).toEqual(['change'])
    const shapes = memberLoops(fresh[0]!.content).map(shapeOf(s.names))
    expect(shapes).toEqual([
      { member: 'subscriber', ins: 'INS*Y*18*001*EC*A***FT', dates: [dtp('303', '2028-01-01')], coverages: [hd(`HD*001**HLT*${GOLD}*FAM`, dtp('303', '2028-01-01'), dtp('348', '2028-01-01'))] },
      { member: 'child', ins: 'INS*N*19*021*EC*A', dates: [dtp('303', '2028-01-01'), dtp('356', '2028-01-01')], coverages: [hd(`HD*021**HLT*${GOLD}*FAM`, dtp('348', '2028-01-01'))] },
    ])
    expect(await s.carrier.sync(), "the old year's carrier is told nothing").toEqual([])
    await carrier2028.expectRosterMatchesTruth(memberIdsOf(s))
  })
})

