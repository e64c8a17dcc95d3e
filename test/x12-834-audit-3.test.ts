import { describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { GOLD, SILVER, createRenewal, hd, loop, loopOf, memberIdsOf, openScenario, shapeOf, updateSubscriber, addDependent, type Scenario } from './helpers/change-file-scenarios.js'
import { carrierTestBedForFile } from './helpers/carrier-side.js'
import { CarrierFiles, addDays, completeWorkOrder, dependentBody, dtp, medical, memberLoops, todayUtc, type GroupSpec } from './helpers/life-event-scenarios.js'
import { call, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * Third audit of what the carrier is told against /work/shared/spec/x12-834-notes.md ("Life events
 * in the 834"): the rows and bullets no earlier test asserted (test/life-events-834.test.ts,
 * test/x12-834-audit.test.ts, test/x12-834-audit-2.test.ts, test/x12-834-cobra-levels.test.ts hold
 * the others): the installation's full file as a new enrollment, retroactive changes (DTP*303 is the
 * event's date, not the file's), a marital status change alone, a line ended while another stays in
 * force (INS03 `001`, not `024`), and open enrollment at renewal when a member is dropped or only
 * one of two lines changes. Same harness: aetna, an edi carrier that does not act on its own.
 */
let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

const scenario = (spec: GroupSpec) => openScenario(t, workers, operator, spec)

const DENTAL = 'Dental Basic'

/** A dental plan added to a coverage period through the API; answers its id (the carrier learns its code). */
async function addDentalPlan(s: Scenario, coveragePeriodId: string, carrier: CarrierFiles = s.carrier): Promise<string> {
  const res = await call(t.app, s.partner, 'POST', `/coverage_periods/${coveragePeriodId}/plans`, {
    plan: { external_identifier: 'dental', description: DENTAL, product_line: 'dental', premium_level: 'base', policy_premium_method: 'list_bill' },
  })
  expect(res.statusCode, res.body).toBe(201)
  const id = res.json().plan.id as string
  carrier.knowPlan(id, 'dental')
  return id
}

const dental = (planId: string, coverages: { member_id: string; start_date: string; end_date?: string }[]) => ({
  dental: { type: 'election', plan_id: planId, coverages: coverages.map((c) => ({ status: 'employer_sponsored', ...c })) },
})

/** A plan year around today (it started about 200 days ago), so changes can be retroactive. */
function yearAroundToday() {
  const start = `${addDays(todayUtc(), -200).slice(0, 7)}-01`
  const end = addDays(`${Number(start.slice(0, 4)) + 1}${start.slice(4)}`, -1)
  return { start, end }
}

describe('new enrollment at installation', () => {
  // Notes, "Life events in the 834": New enrollment (installation, new hire, newly eligible):
  // `INS*…*021*28`; `HD*021`; 348 start; 336 hire date (subscriber); 356 eligibility begin.
  it('when a group is installed, then its full file enrolls every member 021*28 with HD*021 348 = the period start and 356 = eligibility begin, the subscriber with 336 = its hire date', async () => {
    const s = await scenario({ families: [{}] })
    const [full] = s.carrier.files
    expect(full!.delivery.kind).toBe('full')
    const shapes = memberLoops(full!.content).map(shapeOf(s.names))
    const coverage = hd(`HD*021**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'))
    expect(shapes.map((l) => [l.member, l.ins])).toEqual([
      ['subscriber', 'INS*Y*18*021*28*A***FT'],
      ['spouse', 'INS*N*01*021*28*A'],
      ['child', 'INS*N*19*021*28*A'],
    ])
    for (const l of shapes) {
      expect(l.coverages, l.member).toEqual([coverage])
      expect(l.dates, l.member).toContain(dtp('356', '2027-01-01'))
    }
    expect(memberLoops(full!.content)[0]!.dates).toContain(dtp('336', '2019-03-01'))
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})

describe('retroactive changes carry their own dates', () => {
  // Notes: "A change dated in the past (retroactive) or the future carries its own dates:
  // `DTP*303` is the event's effective date, not the file date." Birth: child
  // `INS*N*19*021*02`, subscriber `INS*Y*18*001*02` where its level changes (HD*001 new HD05,
  // E1D → ECH), "child 348 = coverage start; 303 = event date on the changed loops".
  it('when a birth 20 days ago is reported, then the newborn is 021*02 with 348 and 303 = the birth date and the subscriber 001*02 with HD*001 ECH dated 303 = the birth date, not today', async () => {
    const period = yearAroundToday()
    const s = await scenario({ period, families: [{ dependents: [{ label: 'child', relationship: 'child' }] }] })
    const born = addDays(todayUtc(), -20)
    const baby = await addDependent(s, s.ids.subscriber!, { ...dependentBody({ label: 'baby', relationship: 'child', birthDate: born }, 'Doe1'), first_name: 'Ivy' })
    s.names.set(baby, 'baby')
    await s.event(s.ids.subscriber!, {
      event: 'birth',
      date: born,
      eligibility_start_date: born,
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: baby, start_date: born }]),
    })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*001*02*A***FT', [dtp('303', born)], hd(`HD*001**HLT*${GOLD}*ECH`, dtp('303', born), dtp('348', period.start))),
      loop('baby', 'INS*N*19*021*02*A', [dtp('303', born), dtp('356', born)], hd(`HD*021**HLT*${GOLD}*ECH`, dtp('348', born))),
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // Notes: Divorce: ex-spouse `INS*N*01*024*01`, subscriber `INS*Y*18*001*01`, `DMG04 D`;
  // ex-spouse `HD*024`, subscriber `HD*001` new HD05 (FAM → E1D); 349 = last day covered; 303.
  // Same bullet: a divorce effective a month ago is dated a month ago (303 = the day after the
  // last day covered), not the file date.
  it('when a divorce effective a month ago is reported, then 303 is the day after the last day covered on both loops, the ex-spouse 024*01 with HD*024 349 and 357, the subscriber 001*01 HD*001 E1D and DMG04 D', async () => {
    const period = yearAroundToday()
    const s = await scenario({ period, families: [{}] })
    const lastDay = addDays(todayUtc(), -31)
    const effective = addDays(lastDay, 1)
    await s.event(s.ids.subscriber!, {
      event: 'divorce',
      date: lastDay,
      eligibility_start_date: effective,
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: period.start, end_date: lastDay }]),
    })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*001*01*A***FT', [dtp('303', effective)], hd(`HD*001**HLT*${GOLD}*E1D`, dtp('303', effective), dtp('348', period.start))),
      loop('spouse', 'INS*N*01*024*01*A', [dtp('303', effective), dtp('357', lastDay)], hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', period.start), dtp('349', lastDay))),
    ])
    expect(file.loops[0]!.dmg).toBe('DMG*D8*19850615*F*D')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})

describe('a marital status change alone', () => {
  // Notes: Demographic change (name, address, marital status): `INS*…*001*25`; Coverage: none;
  // 303. DMG04 `M` married. A marital status changed on the record without a life event is
  // identifying data: the subscriber's loop alone, no HD loop, DMG04 as the record now says.
  // (No event date exists for a PUT: 303 is the file date, as for a name or address change.)
  it("when only the subscriber's marital status changes (single to married), then its loop alone is 001*25 with DMG04 M, no HD loop and DTP*303", async () => {
    const s = await scenario({ families: [{ dependents: [{ label: 'child', relationship: 'child' }] }] })
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, marital_status: 'married' }))
    const file = await s.changeFile()
    expect(file.shapes).toEqual([loop('subscriber', 'INS*Y*18*001*25*A***FT', [dtp('303', todayUtc())])])
    expect(file.loops[0]!.dmg).toBe('DMG*D8*19850615*F*M')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // Same row, reached by a life event that changes no coverage: the carrier still has to hear the
  // new marital status, on the event's own date ("A change dated in the past or the future carries
  // its own dates: DTP*303 is the event's effective date, not the file date"). Until 2026-11-28
  // such an event recorded no transaction, and the carrier heard DMG04 only with the family's next
  // change, if any.
  it('when a divorce changes no coverage (the separation sent before it ended the spouse’s), then the next change file holds the subscriber’s loop alone: 001*25, DMG04 D, no HD loop, DTP*303 = the divorce’s date', async () => {
    const s = await scenario({ families: [{}] })
    const spouseEnds = medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-03-31' }])
    await s.event(s.ids.subscriber!, { event: 'legal_separation', date: '2027-03-15', eligibility_start_date: '2027-04-01', plan_elections: spouseEnds })
    const separation = await s.changeFile()
    expect(separation.loops[0]!.dmg).toBe('DMG*D8*19850615*F*X')
    await s.event(s.ids.subscriber!, { event: 'divorce', date: '2027-05-15', eligibility_start_date: '2027-06-01', plan_elections: spouseEnds })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([loop('subscriber', 'INS*Y*18*001*25*A***FT', [dtp('303', '2027-05-15')])])
    expect(file.loops[0]!.dmg).toBe('DMG*D8*19850615*F*D')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a marriage enrols no one (the spouse stays uncovered), then the change file holds the subscriber’s loop alone: 001*25, DMG04 M, no HD loop, DTP*303 = the marriage’s date', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    const spouse = await addDependent(s, s.ids.subscriber!, dependentBody({ label: 'spouse', relationship: 'spouse' }, 'Doe1'))
    s.names.set(spouse, 'spouse')
    await s.event(s.ids.subscriber!, {
      event: 'marriage',
      date: '2027-06-15',
      eligibility_start_date: '2027-07-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.subscriber!, start_date: '2027-01-01' }]),
    })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([loop('subscriber', 'INS*Y*18*001*25*A***FT', [dtp('303', '2027-06-15')])])
    expect(file.loops[0]!.dmg).toBe('DMG*D8*19850615*F*M')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // A life event that changes neither coverage nor marital status is nothing for the carrier.
  it('when a loss-of-coverage event changes no coverage, then no change file is due', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-02-10',
      eligibility_start_date: '2027-02-10',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.subscriber!, start_date: '2027-01-01' }]),
    })
    expect(await s.carrier.sync()).toEqual([])
  })
})

describe('a line added or ended while another stays in force', () => {
  // Notes, worked shapes: "Add dental for an existing subscriber: `INS*Y*18*001*…` … `HD*021**DEN`
  // `DTP*348`. Removing it: HD01 `024` and `DTP*349`." Bullets: "INS03 is `024` when the member
  // has no coverage left in force after the change; otherwise `001` (or `021` for a member the
  // carrier has never been sent)." Coverage level change only: `HD*001` with the new HD05 (the
  // subscriber's dental FAM → E1D); "HD05 … never members whose coverage has ended".
  // Medical, unchanged, is not sent ("unchanged plans are not sent").
  it('when a family adds dental and the spouse later drops it, then the members are 001 with HD*021 DEN, and then the spouse 001 (medical stays) with HD*024 DEN 349 and no medical HD', async () => {
    const s = await scenario({ families: [{}] })
    const dentalId = await addDentalPlan(s, s.group.coveragePeriodId)
    await s.event(s.ids.subscriber!, {
      event: 'newly_eligible',
      date: '2027-03-20',
      eligibility_start_date: '2027-04-01',
      plan_elections: dental(dentalId, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-04-01' }))),
    })
    const added = await s.changeFile()
    expect(added.shapes.map((l) => [l.member, l.ins.split('*').slice(0, 4).join('*')])).toEqual([
      ['subscriber', 'INS*Y*18*001'],
      ['spouse', 'INS*N*01*001'],
      ['child', 'INS*N*19*001'],
    ])
    for (const l of added.shapes) expect(l.coverages, l.member).toEqual([hd(`HD*021**DEN*${DENTAL}*FAM`, dtp('348', '2027-04-01'))])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))

    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-06-20',
      eligibility_start_date: '2027-07-01',
      plan_elections: dental(dentalId, [{ member_id: s.ids.spouse!, start_date: '2027-04-01', end_date: '2027-06-30' }]),
    })
    const file = await s.changeFile()
    expect(file.shapes.map((l) => l.member)).toEqual(['subscriber', 'spouse'])
    const subscriber = loopOf(file.shapes, 'subscriber')
    expect(subscriber.ins).toBe('INS*Y*18*001*EC*A***FT')
    expect(subscriber.coverages).toEqual([hd(`HD*001**DEN*${DENTAL}*E1D`, dtp('303', '2027-07-01'), dtp('348', '2027-04-01'))])
    const spouse = loopOf(file.shapes, 'spouse')
    expect(spouse.ins).toBe('INS*N*01*001*EC*A')
    expect(spouse.coverages).toEqual([hd(`HD*024**DEN*${DENTAL}*FAM`, dtp('348', '2027-04-01'), dtp('349', '2027-06-30'))])
    // The spouse stays eligible and covered (medical): no eligibility end.
    expect(spouse.dates).toEqual([dtp('303', '2027-07-01')])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})

describe('a termination after the family on the plan changed', () => {
  // Notes: Termination of employment: every loop `INS*…*024*08`, subscriber INS08 `TE`, every
  // `HD*024`, 349 = last day covered, 357. "HD05 coverage level counts the members covered on that
  // plan on the effective date, never members whose coverage has ended." The child left the plan
  // on 2027-03-31 (told: the subscriber went FAM → ESP); on the last day covered, 2027-06-30, the
  // plan covers the employee and the spouse: every HD*024 says ESP, the spouse's too (until
  // 2026-11-27 the spouse's said FAM, the level it was added with, counting the child).
  it('when a child left the plan earlier and the employment then ends, then the subscriber and the spouse are 024*08 with HD*024 ESP (349 = last day) and the child is not sent', async () => {
    const s = await scenario({ families: [{}] })
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-03-20',
      eligibility_start_date: '2027-04-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-01-01', end_date: '2027-03-31' }]),
    })
    await s.changeFile()
    await s.event(s.ids.subscriber!, {
      event: 'termination_of_employment',
      date: '2027-06-16',
      eligibility_start_date: '2027-07-01',
      plan_elections: medical(s.group.plans.gold!.id, [s.ids.subscriber!, s.ids.spouse!].map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2027-06-30' }))),
    })
    const file = await s.changeFile()
    const ended = [dtp('303', '2027-07-01'), dtp('357', '2027-06-30')]
    const coverage = hd(`HD*024**HLT*${GOLD}*ESP`, dtp('348', '2027-01-01'), dtp('349', '2027-06-30'))
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*024*08*A***TE', [...ended, dtp('337', '2027-06-16')], coverage),
      loop('spouse', 'INS*N*01*024*08*A', ended, coverage),
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})

describe('a member enrolled again after its coverage ended', () => {
  // Notes: New enrollment (newly eligible): `INS*…*021*28`, `HD*021`, 348 start, "356 eligibility
  // begin". "INS03 is … `001` (or `021` for a member the carrier has never been sent)": the child
  // was sent (and told its eligibility end, 357), so its loop is `001*28`; its eligibility begins
  // again and the carrier must be told so (356), or it holds the child ineligible since 2027-08-31.
  // Coverage level change: the subscriber's `HD*001` ESP → FAM, 303.
  it('when a child whose coverage ended (told) is newly eligible again, then the child is 001*28 with HD*021 348 and DTP*356 = the new eligibility start, and the subscriber 001*28 with HD*001 FAM', async () => {
    const s = await scenario({ families: [{}] })
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-08-20',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-01-01', end_date: '2027-08-31' }]),
    })
    const ended = await s.changeFile()
    expect(loopOf(ended.shapes, 'child').dates).toContain(dtp('357', '2027-08-31'))
    await s.event(s.ids.subscriber!, {
      event: 'newly_eligible',
      date: '2027-10-20',
      eligibility_start_date: '2027-11-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-11-01' }]),
    })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*001*28*A***FT', [dtp('303', '2027-11-01')], hd(`HD*001**HLT*${GOLD}*FAM`, dtp('303', '2027-11-01'), dtp('348', '2027-01-01'))),
      loop('child', 'INS*N*19*001*28*A', [dtp('303', '2027-11-01'), dtp('356', '2027-11-01')], hd(`HD*021**HLT*${GOLD}*FAM`, dtp('348', '2027-11-01'))),
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})

describe('open enrollment at renewal', () => {
  // Notes: Open enrollment / benefit selection: `INS*…*001*EC` (new members `021*EC`); changed
  // plans as plan change; unchanged plans are not sent; 348 = plan-year start. Termination never
  // effective: `INS*…*024*<reason>` where nothing else stays in force, `HD*024`, 349 ≤ 348 (end =
  // start − 1). HD05 counts the members covered on the effective date (FAM → ECH... here E1D).
  it('when the spouse is dropped in open enrollment after the renewal’s full file, then the spouse is 024*EC with HD*024 349 = 348 - 1, the subscriber 001*EC with HD*001 E1D from the plan-year start, and the child is not sent', async () => {
    const s = await scenario({ families: [{}] })
    const renewal = await createRenewal(s)
    const elect = (coverages: { member_id: string; start_date: string; end_date?: string }[], date: string) =>
      s.event(s.ids.subscriber!, { coverage_period_id: renewal.id, event: 'open_enrollment', date, eligibility_start_date: '2028-01-01', plan_elections: medical(renewal.plans.gold!.id, coverages) })
    await elect(Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2028-01-01' })), '2027-11-05')
    await completeWorkOrder(t, workers, operator, renewal.workOrderId, null)
    const carrier2028 = new CarrierFiles(t, workers, s.partner, operator, renewal.group)
    expect((await carrier2028.sync()).map((f) => f.delivery.kind)).toEqual(['full'])
    await elect([{ member_id: s.ids.spouse!, start_date: '2028-01-01', end_date: '2027-12-31' }], '2027-11-20')
    const fresh = await carrier2028.sync()
    expect(fresh.map((f) => f.delivery.kind)).toEqual(['change'])
    const shapes = memberLoops(fresh[0]!.content).map(shapeOf(s.names))
    expect(shapes.map((l) => l.member)).toEqual(['subscriber', 'spouse'])
    expect(loopOf(shapes, 'subscriber')).toEqual(
      loop('subscriber', 'INS*Y*18*001*EC*A***FT', [dtp('303', '2028-01-01')], hd(`HD*001**HLT*${GOLD}*E1D`, dtp('303', '2028-01-01'), dtp('348', '2028-01-01'))),
    )
    const spouse = loopOf(shapes, 'spouse')
    expect(spouse.ins).toBe('INS*N*01*024*EC*A')
    expect(spouse.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2028-01-01'), dtp('349', '2027-12-31'))])
    expect(spouse.dates).toContain(dtp('303', '2028-01-01'))
    expect(await s.carrier.sync(), "the old year's carrier is told nothing").toEqual([])
    expect(carrier2028.roster.member(s.ids.spouse!)?.coverages).toEqual([])
    await carrier2028.expectRosterMatchesTruth(memberIdsOf(s))
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // Same row: "changed plans as plan change; unchanged plans are not sent". A family holding
  // medical and dental changes medical only: its loops carry gold `HD*024` (349 = 2027-12-31) and
  // silver `HD*021` (348 = 2028-01-01), and no dental HD.
  it('when a family with medical and dental changes only its medical plan in open enrollment, then each loop is 001*EC with gold HD*024 and silver HD*021 and no dental HD loop', async () => {
    const s = await scenario({ families: [{}] })
    await addDentalPlan(s, s.group.coveragePeriodId)
    const renewal = await createRenewal(s)
    const carrier2028 = new CarrierFiles(t, workers, s.partner, operator, renewal.group)
    const everyone = (start: string) => Object.values(s.ids).map((member_id) => ({ member_id, start_date: start }))
    const elect = (medicalPlan: string, date: string) =>
      s.event(s.ids.subscriber!, {
        coverage_period_id: renewal.id,
        event: 'open_enrollment',
        date,
        eligibility_start_date: '2028-01-01',
        plan_elections: { ...medical(medicalPlan, everyone('2028-01-01')), ...dental(renewal.plans.dental!.id, everyone('2028-01-01')) },
      })
    await elect(renewal.plans.gold!.id, '2027-11-05')
    await completeWorkOrder(t, workers, operator, renewal.workOrderId, null)
    const full = await carrier2028.sync()
    expect(full.map((f) => f.delivery.kind)).toEqual(['full'])
    expect(memberLoops(full[0]!.content).map((l) => l.coverages.length)).toEqual([2, 2, 2])
    await elect(renewal.plans.silver!.id, '2027-11-20')
    const fresh = await carrier2028.sync()
    expect(fresh.map((f) => f.delivery.kind)).toEqual(['change'])
    const coverages = [hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2028-01-01'), dtp('349', '2027-12-31')), hd(`HD*021**HLT*${SILVER}*FAM`, dtp('348', '2028-01-01'))]
    expect(memberLoops(fresh[0]!.content).map(shapeOf(s.names))).toEqual([
      loop('subscriber', 'INS*Y*18*001*EC*A***FT', [dtp('303', '2028-01-01')], ...coverages),
      loop('spouse', 'INS*N*01*001*EC*A', [dtp('303', '2028-01-01')], ...coverages),
      loop('child', 'INS*N*19*001*EC*A', [dtp('303', '2028-01-01')], ...coverages),
    ])
    await carrier2028.expectRosterMatchesTruth(memberIdsOf(s))
  })
})
