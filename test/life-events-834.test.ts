import { describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { linesHeldTwice } from '../src/modules/edi-834/edi-834.roster.js'
import { GOLD, shapeOf, SILVER, addDependent, createRenewal, hd, loop, memberIdsOf, openScenario, updateSubscriber } from './helpers/change-file-scenarios.js'
import { carrierTestBedForFile } from './helpers/carrier-side.js'
import {
  CarrierFiles,
  addDays,
  completeWorkOrder,
  dependentBody,
  dtp,
  installGroup,
  medical,
  memberLoops,
  postLifeEvent,
  subscriberBody,
  todayUtc,
  type GroupSpec,
  type InstalledGroup,
} from './helpers/life-event-scenarios.js'
import { call, expectProblem, type Credential, type TestApp } from './helpers/test-app.js'

/**
 * Every life event of x12-834-notes.md ("Life events in the 834") against a real edi carrier that
 * does not act on its own (aetna; the operator moves the work order): the event through the API,
 * the change file's member loops (INS exactly, member DTPs, each HD with its DTPs), the member's
 * coverage before and after (GET /members/{id}/coverages), the family's status after delivery, and
 * what the carrier holds after applying the full file and every change file in order
 * (Edi834Roster) against GET /members/{id}/coverages on every date that matters.
 *
 * Dates: today is the real clock (2026-11-25 when written); plan years are 2027, so changes are
 * future-dated, except in the retroactive-limit test, whose plan year is around today.
 */
let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

const scenario = (spec: GroupSpec) => openScenario(t, workers, operator, spec)

/** A coverage as the API answers it (plan by external identifier). */
const cov = (plan: string, start: string, end: string | null, level: string, status = 'employer_sponsored') => ({ plan, start, end, level, status })

describe('life events in the 834 change file', () => {
  it('when a new hire enrolls with a spouse, then both are additions (021*28) with 348, 303 = start, 336 hire date and 356 eligibility begin, and no other family is sent', async () => {
    const s = await scenario({ families: [{}] })
    const created = await call(t.app, s.partner, 'POST', `/groups/${s.group.groupId}/subscribers`, {
      subscriber: {
        ...subscriberBody(s.group.locationId, 'emp-new-hire', 'Newhire', { employment_details: { start_date: '2027-02-01', status: 'full_time' } }),
        dependents: [dependentBody({ label: 'spouse', relationship: 'spouse' }, 'Newhire')],
      },
    })
    expect(created.statusCode, created.body).toBe(201)
    const hire = created.json().subscriber as { id: string; dependents: { id: string }[] }
    const spouseId = hire.dependents[0]!.id
    s.names.set(hire.id, 'hire').set(spouseId, 'hire.spouse')
    expect(await s.carrier.coverages(hire.id, '2027-02-01')).toEqual([])

    await s.event(hire.id, {
      event: 'new_hire',
      date: '2027-02-01',
      eligibility_start_date: '2027-02-01',
      plan_elections: medical(s.group.plans.gold!.id, [hire.id, spouseId].map((member_id) => ({ member_id, start_date: '2027-02-01' }))),
    })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([
      loop('hire', 'INS*Y*18*021*28*A***FT', [dtp('303', '2027-02-01'), dtp('356', '2027-02-01')], hd(`HD*021**HLT*${GOLD}*ESP`, dtp('348', '2027-02-01'))),
      loop('hire.spouse', 'INS*N*01*021*28*A', [dtp('303', '2027-02-01'), dtp('356', '2027-02-01')], hd(`HD*021**HLT*${GOLD}*ESP`, dtp('348', '2027-02-01'))),
    ])
    expect(file.loops[0]!.dates).toContain(dtp('336', '2027-02-01'))

    expect(await s.carrier.coverages(hire.id, '2027-01-31')).toEqual([])
    expect(await s.carrier.coverages(hire.id, '2027-02-01')).toEqual([cov('gold', '2027-02-01', null, 'employee_and_spouse')])
    expect(await s.carrier.coverages(spouseId, '2027-02-01')).toEqual([cov('gold', '2027-02-01', null, 'employee_and_spouse')])
    expect(await s.carrier.familyStatus(hire.id)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a family becomes newly eligible after installation, then each member is an addition (021*28) with 348, 303 and 356 = the eligibility start', async () => {
    const s = await scenario({ families: [{}, { enrolled: [] }] })
    const family = s.group.families[1]!
    expect(await s.carrier.coverages(family.subscriberId, '2027-03-01')).toEqual([])
    await s.event(family.subscriberId, {
      event: 'newly_eligible',
      date: '2027-02-20',
      eligibility_start_date: '2027-03-01',
      plan_elections: medical(s.group.plans.gold!.id, Object.values(family.ids).map((member_id) => ({ member_id, start_date: '2027-03-01' }))),
    })
    const file = await s.changeFile()
    const added = [dtp('303', '2027-03-01'), dtp('356', '2027-03-01')]
    const coverage = hd(`HD*021**HLT*${GOLD}*FAM`, dtp('348', '2027-03-01'))
    expect(file.shapes).toEqual([
      loop('f2.subscriber', 'INS*Y*18*021*28*A***FT', added, coverage),
      loop('f2.spouse', 'INS*N*01*021*28*A', added, coverage),
      loop('f2.child', 'INS*N*19*021*28*A', added, coverage),
    ])
    expect(await s.carrier.coverages(family.subscriberId, '2027-02-28')).toEqual([])
    expect(await s.carrier.coverages(family.subscriberId, '2027-03-01')).toEqual([cov('gold', '2027-03-01', null, 'family')])
    expect(await s.carrier.familyStatus(family.subscriberId)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it("when a child is born, then the newborn is an addition (021*02) and the subscriber gets 001*02 with HD*001 and the new HD05 only where the level changes: a FAM family's newborn is sent alone", async () => {
    // Family 1: subscriber and one child (E1D), so a second child makes it ECH. Family 2: FAM stays FAM.
    const s = await scenario({ families: [{ dependents: [{ label: 'child', relationship: 'child' }] }, {}] })
    const small = s.group.families[0]!
    const full = s.group.families[1]!
    const baby = await addDependent(s, small.subscriberId, { ...dependentBody({ label: 'baby', relationship: 'child', birthDate: '2026-11-20' }, 'Doe1'), first_name: 'Ivy' })
    const baby2 = await addDependent(s, full.subscriberId, { ...dependentBody({ label: 'baby', relationship: 'child', birthDate: '2026-11-18' }, 'Doe2'), first_name: 'Ada' })
    s.names.set(baby, 'baby').set(baby2, 'f2.baby')
    expect(await s.carrier.coverages(small.subscriberId, '2027-01-01')).toEqual([cov('gold', '2027-01-01', null, 'employee_and_one_dependent')])
    for (const [family, child] of [[small, baby], [full, baby2]] as const) {
      await s.event(family.subscriberId, {
        event: 'birth',
        date: '2026-11-24',
        eligibility_start_date: '2027-01-01',
        plan_elections: medical(s.group.plans.gold!.id, [{ member_id: child, start_date: '2027-01-01' }]),
      })
    }
    const file = await s.changeFile()
    const born = [dtp('303', '2027-01-01'), dtp('356', '2027-01-01')]
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*001*02*A***FT', [dtp('303', '2027-01-01')], hd(`HD*001**HLT*${GOLD}*ECH`, dtp('303', '2027-01-01'), dtp('348', '2027-01-01'))),
      loop('baby', 'INS*N*19*021*02*A', born, hd(`HD*021**HLT*${GOLD}*ECH`, dtp('348', '2027-01-01'))),
      loop('f2.baby', 'INS*N*19*021*02*A', born, hd(`HD*021**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'))),
    ])
    expect(await s.carrier.coverages(small.subscriberId, '2027-01-01')).toEqual([cov('gold', '2027-01-01', null, 'employee_and_children')])
    expect(await s.carrier.coverages(baby, '2027-01-01')).toEqual([cov('gold', '2027-01-01', null, 'employee_and_children')])
    expect(await s.carrier.coverages(full.subscriberId, '2027-01-01')).toEqual([cov('gold', '2027-01-01', null, 'family')])
    expect(await s.carrier.familyStatus(small.subscriberId)).toBe('submitted')
    expect(await s.carrier.familyStatus(full.subscriberId)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a child is adopted, then it is an addition (021*05), the subscriber goes from ESP to FAM (001*05, HD*001 dated by 303) and the spouse is not sent', async () => {
    const s = await scenario({ families: [{ dependents: [{ label: 'spouse', relationship: 'spouse' }] }] })
    const child = await addDependent(s, s.ids.subscriber!, dependentBody({ label: 'adopted', relationship: 'child', birthDate: '2020-05-05' }, 'Doe1'))
    s.names.set(child, 'adopted')
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-03-10')).toEqual([cov('gold', '2027-01-01', null, 'employee_and_spouse')])
    await s.event(s.ids.subscriber!, {
      event: 'adoption',
      date: '2027-03-10',
      eligibility_start_date: '2027-03-10',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: child, start_date: '2027-03-10' }]),
    })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*001*05*A***FT', [dtp('303', '2027-03-10')], hd(`HD*001**HLT*${GOLD}*FAM`, dtp('303', '2027-03-10'), dtp('348', '2027-01-01'))),
      loop('adopted', 'INS*N*19*021*05*A', [dtp('303', '2027-03-10'), dtp('356', '2027-03-10')], hd(`HD*021**HLT*${GOLD}*FAM`, dtp('348', '2027-03-10'))),
    ])
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-03-09')).toEqual([cov('gold', '2027-01-01', '2027-03-09', 'employee_and_spouse')])
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-03-10')).toEqual([cov('gold', '2027-03-10', null, 'family')])
    expect(await s.carrier.coverages(child, '2027-03-09')).toEqual([])
    expect(await s.carrier.coverages(child, '2027-03-10')).toEqual([cov('gold', '2027-03-10', null, 'family')])
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when the subscriber marries, then the spouse is an addition (021*32), the subscriber goes from EMP to ESP (001*32, HD*001) and its DMG04 says M although the record still says single', async () => {
    const s = await scenario({ families: [{ dependents: [] }] })
    const spouse = await addDependent(s, s.ids.subscriber!, dependentBody({ label: 'spouse', relationship: 'spouse' }, 'Doe1'))
    s.names.set(spouse, 'spouse')
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-07-01')).toEqual([cov('gold', '2027-01-01', null, 'employee_only')])
    await s.event(s.ids.subscriber!, {
      event: 'marriage',
      date: '2027-06-15',
      eligibility_start_date: '2027-07-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: spouse, start_date: '2027-07-01' }]),
    })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*001*32*A***FT', [dtp('303', '2027-07-01')], hd(`HD*001**HLT*${GOLD}*ESP`, dtp('303', '2027-07-01'), dtp('348', '2027-01-01'))),
      loop('spouse', 'INS*N*01*021*32*A', [dtp('303', '2027-07-01'), dtp('356', '2027-07-01')], hd(`HD*021**HLT*${GOLD}*ESP`, dtp('348', '2027-07-01'))),
    ])
    expect(file.loops[0]!.dmg).toBe('DMG*D8*19850615*F*M')
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-06-30')).toEqual([cov('gold', '2027-01-01', '2027-06-30', 'employee_only')])
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-07-01')).toEqual([cov('gold', '2027-07-01', null, 'employee_and_spouse')])
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  for (const [event, reason, marital] of [
    ['divorce', '01', 'D'],
    ['legal_separation', '31', 'X'],
  ] as const) {
    it(`when a ${event.replace('_', ' ')} ends the spouse's coverage, then the spouse is 024*${reason} (HD*024 349 = last day, 357, 303 = end + 1), the subscriber goes from FAM to E1D (001*${reason}, HD*001) with DMG04 ${marital}, and the child is not sent`, async () => {
      const s = await scenario({ families: [{}] })
      expect(await s.carrier.coverages(s.ids.spouse!, '2027-04-01')).toEqual([cov('gold', '2027-01-01', null, 'family')])
      await s.event(s.ids.subscriber!, {
        event,
        date: '2027-03-15',
        eligibility_start_date: '2027-04-01',
        plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-03-31' }]),
      })
      const file = await s.changeFile()
      expect(file.shapes).toEqual([
        loop('subscriber', `INS*Y*18*001*${reason}*A***FT`, [dtp('303', '2027-04-01')], hd(`HD*001**HLT*${GOLD}*E1D`, dtp('303', '2027-04-01'), dtp('348', '2027-01-01'))),
        loop('spouse', `INS*N*01*024*${reason}*A`, [dtp('303', '2027-04-01'), dtp('357', '2027-03-31')], hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-03-31'))),
      ])
      expect(file.loops[0]!.dmg).toBe(`DMG*D8*19850615*F*${marital}`)
      expect(await s.carrier.coverages(s.ids.spouse!, '2027-03-31')).toEqual([cov('gold', '2027-01-01', '2027-03-31', 'family')])
      expect(await s.carrier.coverages(s.ids.spouse!, '2027-04-01')).toEqual([])
      expect(await s.carrier.coverages(s.ids.subscriber!, '2027-04-01')).toEqual([cov('gold', '2027-04-01', null, 'employee_and_one_dependent')])
      expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
      await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    })
  }

  // DMG04 is the subscriber's latest marital status among the file's window: a divorce that changed
  // no coverage (the separation before it had already ended the spouse's) still makes the employee
  // divorced. Until 2026-11-28 the loop said X. (Sent in a file of its own, such a divorce is the
  // subscriber's demographic change alone: test/x12-834-audit-3.test.ts.)
  it('when a legal separation ends the spouse’s coverage and a divorce that changes no coverage follows in the same window, then the subscriber’s DMG04 is D and the loops keep the separation’s code', async () => {
    const s = await scenario({ families: [{}] })
    const gold = s.group.plans.gold!.id
    const spouseEnds = medical(gold, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-03-31' }])
    await s.event(s.ids.subscriber!, { event: 'legal_separation', date: '2027-03-15', eligibility_start_date: '2027-04-01', plan_elections: spouseEnds })
    await s.event(s.ids.subscriber!, { event: 'divorce', date: '2027-05-15', eligibility_start_date: '2027-06-01', plan_elections: spouseEnds })
    const file = await s.changeFile()
    expect(file.shapes.map((l) => [l.member, l.ins])).toEqual([
      ['subscriber', 'INS*Y*18*001*31*A***FT'],
      ['spouse', 'INS*N*01*024*31*A'],
    ])
    expect(file.loops[0]!.dmg).toBe('DMG*D8*19850615*F*D')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when employment ends, then every loop of the family is 024*08 with HD*024 349 = last day and 357, and the subscriber carries INS08 TE and 337 = the event date', async () => {
    const s = await scenario({ families: [{}, {}] })
    expect(await s.carrier.coverages(s.ids.spouse!, '2027-05-01')).toEqual([cov('gold', '2027-01-01', null, 'family')])
    await s.event(s.ids.subscriber!, {
      event: 'termination_of_employment',
      date: '2027-04-16',
      eligibility_start_date: '2027-05-01',
      plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2027-04-30' }))),
    })
    const file = await s.changeFile()
    const ended = [dtp('303', '2027-05-01'), dtp('357', '2027-04-30')]
    const coverage = hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-04-30'))
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*024*08*A***TE', [...ended, dtp('337', '2027-04-16')], coverage),
      loop('spouse', 'INS*N*01*024*08*A', ended, coverage),
      loop('child', 'INS*N*19*024*08*A', ended, coverage),
    ])
    for (const id of Object.values(s.ids)) {
      expect(await s.carrier.coverages(id, '2027-04-30')).toEqual([cov('gold', '2027-01-01', '2027-04-30', 'family')])
      expect(await s.carrier.coverages(id, '2027-05-01')).toEqual([])
    }
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when members continue under COBRA after a termination, then each is 021*09*C with INS07 1 (termination), DTP*340 and HD*021 348 = COBRA start, and the child who does not continue is not sent', async () => {
    const s = await scenario({ families: [{}] })
    // The client marks the employment ended (INS08 TE, DTP*337 from employment_details.end_date) and posts the termination.
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({
      ...current,
      employment_details: { ...(current.employment_details as object), status: 'terminated', end_date: '2027-04-16' },
    }))
    await s.event(s.ids.subscriber!, {
      event: 'termination_of_employment',
      date: '2027-04-16',
      eligibility_start_date: '2027-05-01',
      plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2027-04-30' }))),
    })
    const termination = await s.changeFile()
    expect(termination.shapes.map((l) => l.ins)).toEqual(['INS*Y*18*024*08*A***TE', 'INS*N*01*024*08*A', 'INS*N*19*024*08*A'])
    expect(termination.loops[0]!.dates).toContain(dtp('337', '2027-04-16'))

    expect(await s.carrier.coverages(s.ids.spouse!, '2027-05-01')).toEqual([])
    await s.event(s.ids.subscriber!, {
      event: 'cobra',
      date: '2027-04-20',
      eligibility_start_date: '2027-05-01',
      plan_elections: medical(s.group.plans.gold!.id, [s.ids.subscriber!, s.ids.spouse!].map((member_id) => ({ member_id, start_date: '2027-05-01', status: 'cobra' as const }))),
    })
    const file = await s.changeFile()
    // DTP*356 (eligibility begin) is not part of the COBRA row of the notes: left out of the comparison.
    const withoutEligibility = file.shapes.map((l) => ({ ...l, dates: l.dates.filter((d) => !d.startsWith('DTP*356*')) }))
    const continued = [dtp('303', '2027-05-01'), dtp('340', '2027-05-01')]
    const coverage = hd(`HD*021**HLT*${GOLD}*ESP`, dtp('348', '2027-05-01'))
    expect(withoutEligibility).toEqual([
      loop('subscriber', 'INS*Y*18*021*09*C**1*TE', [...continued, dtp('337', '2027-04-16')], coverage),
      loop('spouse', 'INS*N*01*021*09*C**1', continued, coverage),
    ])
    expect(await s.carrier.coverages(s.ids.spouse!, '2027-04-30')).toEqual([cov('gold', '2027-01-01', '2027-04-30', 'family')])
    expect(await s.carrier.coverages(s.ids.spouse!, '2027-05-01')).toEqual([cov('gold', '2027-05-01', null, 'employee_and_spouse', 'cobra')])
    expect(await s.carrier.coverages(s.ids.child!, '2027-05-01')).toEqual([])
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when coverage is cancelled before it starts (end = start - 1), then each member is 024 with HD*024 349 = 348 - 1 and the carrier holds nothing', async () => {
    const s = await scenario({ families: [{}, {}] })
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-01-01')).toEqual([cov('gold', '2027-01-01', null, 'family')])
    await s.event(s.ids.subscriber!, {
      event: 'termination_of_employment',
      date: '2026-12-15',
      eligibility_start_date: '2027-01-01',
      plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2026-12-31' }))),
    })
    const file = await s.changeFile()
    const cancelled = hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2026-12-31'))
    // DTP*303 of a cancellation is its start. DTP*357 (last day covered) has no day to name when
    // nothing was ever covered: left out of the comparison.
    const dates = [dtp('303', '2027-01-01')]
    expect(file.shapes.map((l) => ({ ...l, dates: l.dates.filter((d) => !d.startsWith('DTP*357*')) }))).toEqual([
      loop('subscriber', 'INS*Y*18*024*08*A***TE', [...dates, dtp('337', '2026-12-15')], cancelled),
      loop('spouse', 'INS*N*01*024*08*A', dates, cancelled),
      loop('child', 'INS*N*19*024*08*A', dates, cancelled),
    ])
    for (const id of Object.values(s.ids)) {
      expect(await s.carrier.coverages(id, '2027-01-01')).toEqual([])
      expect(await s.carrier.coverages(id, 'all')).toEqual([])
      expect(s.carrier.roster.member(id)?.coverages).toEqual([])
    }
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a termination is dated in the future, then it is sent when known (HD*024, 349 in the future) and a later change never adds the coverage again (no HD*021)', async () => {
    const s = await scenario({ families: [{}] })
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-10-01')).toEqual([cov('gold', '2027-01-01', null, 'family')])
    await s.event(s.ids.subscriber!, {
      event: 'termination_of_employment',
      date: '2027-09-15',
      eligibility_start_date: '2027-10-01',
      plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2027-09-30' }))),
    })
    const file = await s.changeFile()
    const ended = [dtp('303', '2027-10-01'), dtp('357', '2027-09-30')]
    const coverage = hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-09-30'))
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*024*08*A***TE', [...ended, dtp('337', '2027-09-15')], coverage),
      loop('spouse', 'INS*N*01*024*08*A', ended, coverage),
      loop('child', 'INS*N*19*024*08*A', ended, coverage),
    ])
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-09-30')).toEqual([cov('gold', '2027-01-01', '2027-09-30', 'family')])
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-10-01')).toEqual([])

    // A later change of the family's data: told as identifying data alone, the ended coverage is not added again.
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, last_name: 'Later' }))
    const later = await s.changeFile()
    expect(later.content).not.toMatch(/HD\*021\*/)
    expect(later.shapes).toEqual([loop('subscriber', 'INS*Y*18*001*25*A***FT', [dtp('303', todayUtc())])])
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a family changes plan mid-year, then each member is 001*22 with the old plan HD*024 (349 = new start - 1) and the new plan HD*021 (348) in one loop, 303 = new start, never two plans of one line', async () => {
    const s = await scenario({ families: [{}] })
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-07-01')).toEqual([cov('gold', '2027-01-01', null, 'family')])
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-06-10',
      eligibility_start_date: '2027-07-01',
      plan_elections: medical(s.group.plans.silver!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-07-01' }))),
    })
    const file = await s.changeFile()
    const coverages = [hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-06-30')), hd(`HD*021**HLT*${SILVER}*FAM`, dtp('348', '2027-07-01'))]
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*001*22*A***FT', [dtp('303', '2027-07-01')], ...coverages),
      loop('spouse', 'INS*N*01*001*22*A', [dtp('303', '2027-07-01')], ...coverages),
      loop('child', 'INS*N*19*001*22*A', [dtp('303', '2027-07-01')], ...coverages),
    ])
    for (const id of Object.values(s.ids)) {
      expect(await s.carrier.coverages(id, '2027-06-30')).toEqual([cov('gold', '2027-01-01', '2027-06-30', 'family')])
      expect(await s.carrier.coverages(id, '2027-07-01')).toEqual([cov('silver', '2027-07-01', null, 'family')])
    }
    for (const date of ['2027-06-30', '2027-07-01', '2027-12-31']) expect(linesHeldTwice(s.carrier.roster, date)).toEqual([])
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when only the coverage level changes for the subscriber (a newly eligible child joins an ESP family), then the child is 021*28 and the subscriber 001*28 with HD*001 FAM dated by 303 and nothing else', async () => {
    const s = await scenario({ families: [{ dependents: [{ label: 'spouse', relationship: 'spouse' }, { label: 'child', relationship: 'child' }], enrolled: ['subscriber', 'spouse'] }] })
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-04-30')).toEqual([cov('gold', '2027-01-01', null, 'employee_and_spouse')])
    await s.event(s.ids.subscriber!, {
      event: 'newly_eligible',
      date: '2027-04-20',
      eligibility_start_date: '2027-05-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-05-01' }]),
    })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*001*28*A***FT', [dtp('303', '2027-05-01')], hd(`HD*001**HLT*${GOLD}*FAM`, dtp('303', '2027-05-01'), dtp('348', '2027-01-01'))),
      loop('child', 'INS*N*19*021*28*A', [dtp('303', '2027-05-01'), dtp('356', '2027-05-01')], hd(`HD*021**HLT*${GOLD}*FAM`, dtp('348', '2027-05-01'))),
    ])
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-04-30')).toEqual([cov('gold', '2027-01-01', '2027-04-30', 'employee_and_spouse')])
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-05-01')).toEqual([cov('gold', '2027-05-01', null, 'family')])
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when the subscriber changes its last name, then its loop alone is 001*25 with no HD loop and DTP*303 = the file date', async () => {
    const s = await scenario({ families: [{}] })
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, last_name: 'Married-Name' }))
    const file = await s.changeFile()
    expect(file.shapes).toEqual([loop('subscriber', 'INS*Y*18*001*25*A***FT', [dtp('303', todayUtc())])])
    expect(file.content).toContain('NM1*IL*1*Married-Name*Jane')
    for (const date of ['2027-01-01', '2027-06-01']) {
      expect(await s.carrier.coverages(s.ids.subscriber!, date)).toEqual([cov('gold', '2027-01-01', null, 'family')])
    }
    expect(s.carrier.roster.member(s.ids.subscriber!)?.lastName).toBe('Married-Name')
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a terminated employee is re-hired, then each member the carrier holds as ended is 025*41 with HD*025 348 = the new start', async () => {
    const s = await scenario({ families: [{}] })
    await s.event(s.ids.subscriber!, {
      event: 'termination_of_employment',
      date: '2027-04-16',
      eligibility_start_date: '2027-05-01',
      plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2027-04-30' }))),
    })
    await s.changeFile()
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-06-01')).toEqual([])
    await s.event(s.ids.subscriber!, {
      event: 're_hire',
      date: '2027-06-01',
      eligibility_start_date: '2027-06-01',
      plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-06-01' }))),
    })
    const file = await s.changeFile()
    const dates = [dtp('303', '2027-06-01'), dtp('356', '2027-06-01')]
    const coverage = hd(`HD*025**HLT*${GOLD}*FAM`, dtp('348', '2027-06-01'))
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*025*41*A***FT', dates, coverage),
      loop('spouse', 'INS*N*01*025*41*A', dates, coverage),
      loop('child', 'INS*N*19*025*41*A', dates, coverage),
    ])
    for (const id of Object.values(s.ids)) {
      expect(await s.carrier.coverages(id, '2027-05-15')).toEqual([])
      expect(await s.carrier.coverages(id, '2027-06-01')).toEqual([cov('gold', '2027-06-01', null, 'family')])
    }
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when the spouse dies, then the deceased is 024*03 (HD*024 349, 357), the surviving subscriber whose level changes is 001*11 with HD*001, and the child is not sent', async () => {
    const s = await scenario({ families: [{}] })
    expect(await s.carrier.coverages(s.ids.spouse!, '2027-06-01')).toEqual([cov('gold', '2027-01-01', null, 'family')])
    await s.event(s.ids.subscriber!, {
      event: 'death',
      date: '2027-05-20',
      eligibility_start_date: '2027-06-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-05-31' }]),
    })
    const file = await s.changeFile()
    expect(file.shapes).toEqual([
      loop('subscriber', 'INS*Y*18*001*11*A***FT', [dtp('303', '2027-06-01')], hd(`HD*001**HLT*${GOLD}*E1D`, dtp('303', '2027-06-01'), dtp('348', '2027-01-01'))),
      loop('spouse', 'INS*N*01*024*03*A', [dtp('303', '2027-06-01'), dtp('357', '2027-05-31')], hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-05-31'))),
    ])
    expect(await s.carrier.coverages(s.ids.spouse!, '2027-05-31')).toEqual([cov('gold', '2027-01-01', '2027-05-31', 'family')])
    expect(await s.carrier.coverages(s.ids.spouse!, '2027-06-01')).toEqual([])
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-06-01')).toEqual([cov('gold', '2027-06-01', null, 'employee_and_one_dependent')])
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a family changes plan in open enrollment after the renewal year is installed, then it is 001*EC (old plan HD*024 349 = new start - 1, new plan HD*021 348 = plan-year start); a family keeping its plan is not sent and the old year is told nothing', async () => {
    const s = await scenario({ families: [{}, {}] })
    // The documented renewal (docs/plan-years.md): next year's period and plans, setup completed,
    // each family's open_enrollment elections (both keep gold), then the work order: the
    // renewal's full file tells the coverage in force on 2028-01-01.
    const renewal = await createRenewal(s)
    const openEnrollment = (family: { subscriberId: string; ids: Record<string, string> }, planId: string, date: string) =>
      s.event(family.subscriberId, {
        coverage_period_id: renewal.id,
        event: 'open_enrollment',
        date,
        eligibility_start_date: '2028-01-01',
        plan_elections: medical(planId, Object.values(family.ids).map((member_id) => ({ member_id, start_date: '2028-01-01' }))),
      })
    for (const family of s.group.families) await openEnrollment(family, renewal.plans.gold!.id, '2027-11-05')
    await completeWorkOrder(t, workers, operator, renewal.workOrderId, null)
    const carrier2028 = new CarrierFiles(t, workers, s.partner, operator, renewal.group)
    expect((await carrier2028.sync()).map((f) => f.delivery.kind)).toEqual(['full'])
    expect(await s.carrier.sync(), "the old year's carrier is told nothing: its coverage runs to its end").toEqual([])
    expect(await carrier2028.coverages(s.ids.subscriber!, '2028-01-01')).toEqual([cov('gold', '2028-01-01', null, 'family')])

    // Still in open enrollment, family 1 changes its mind: silver for 2028.
    await openEnrollment(s.group.families[0]!, renewal.plans.silver!.id, '2027-11-20')
    const fresh = await carrier2028.sync()
    expect(fresh.map((f) => f.delivery.kind)).toEqual(['change'])
    const coverages = [hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2028-01-01'), dtp('349', '2027-12-31')), hd(`HD*021**HLT*${SILVER}*FAM`, dtp('348', '2028-01-01'))]
    expect(memberLoops(fresh[0]!.content).map(shapeOf(s.names))).toEqual([
      loop('subscriber', 'INS*Y*18*001*EC*A***FT', [dtp('303', '2028-01-01')], ...coverages),
      loop('spouse', 'INS*N*01*001*EC*A', [dtp('303', '2028-01-01')], ...coverages),
      loop('child', 'INS*N*19*001*EC*A', [dtp('303', '2028-01-01')], ...coverages),
    ])
    expect(await s.carrier.sync()).toEqual([])
    for (const id of Object.values(s.ids)) {
      expect(await s.carrier.coverages(id, '2027-12-31')).toEqual([cov('gold', '2027-01-01', '2027-12-31', 'family')])
      expect(await carrier2028.coverages(id, '2028-01-01')).toEqual([cov('silver', '2028-01-01', null, 'family')])
    }
    for (const id of Object.values(s.group.families[1]!.ids)) {
      expect(await carrier2028.coverages(id, '2028-01-01')).toEqual([cov('gold', '2028-01-01', null, 'family')])
    }
    expect(linesHeldTwice(carrier2028.roster, '2028-01-01')).toEqual([])
    expect(await s.carrier.familyStatus(s.ids.subscriber!)).toBe('submitted')
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    await carrier2028.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a renewal is sent to the carrier before any open-enrollment event, then every file the carrier is sent is a valid 834: no full file without member loops', async () => {
    const s = await scenario({ families: [{}] })
    const renewal = await createRenewal(s)
    await completeWorkOrder(t, workers, operator, renewal.workOrderId, null)
    const carrier2028 = new CarrierFiles(t, workers, s.partner, operator, renewal.group)
    // Nothing to tell yet: a full file, if one is sent at all, holds members (X220A1 requires loop 2000).
    for (const file of await carrier2028.sync()) expect(memberLoops(file.content).length).toBeGreaterThan(0)
  })
})

/**
 * The renewal of a scenario's group as docs/plan-years.md does it: the 2028 plan year (it keeps the
 * carrier group number), its plans copied from 2027, its setup completed before any life event.
 * The caller moves the work order.
 */

describe('what a carrier is told, beyond one event', () => {
  it('when a family changes plan after the full file’s date but before installation completes, then the full file holds one plan per line and the follow-up change file tells the plan change', async () => {
    const partner = await t.newPartner()
    // The initial enrollment's second event (newly_eligible) moves family 1 to silver from April,
    // before the work order is completed: the full file is dated at the period start.
    const group = await installGroupWithLaterPlan(partner)
    const carrier = new CarrierFiles(t, workers, partner, operator, group)
    const files = await carrier.sync()
    expect(files.map((f) => f.delivery.kind)).toEqual(['full', 'change'])
    const [full, change] = files as [(typeof files)[0], (typeof files)[0]]
    for (const date of ['2027-01-01', '2027-03-31', '2027-04-01', '2027-12-31']) expect(linesHeldTwice(full.content, date)).toEqual([])
    // The full file tells each member one gold coverage (it may carry its known end, DTP*349).
    const fullLoops = memberLoops(full.content)
    expect(fullLoops.map((l) => l.coverages.map((c) => [c.hd, c.dates.find((d) => d.startsWith('DTP*348*'))]))).toEqual(
      Array(3).fill([[`HD*021**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01')]]),
    )
    const ids = group.families[0]!.ids
    // The change file that follows adds silver from April for each member, and never gold again.
    const changeLoops = memberLoops(change.content)
    expect(changeLoops.map((l) => l.memberId).sort()).toEqual(Object.values(ids).sort())
    for (const l of changeLoops) {
      expect(l.coverages.filter((c) => c.hd.startsWith('HD*021*')).map((c) => [c.hd, c.dates])).toEqual([[`HD*021**HLT*${SILVER}*FAM`, [dtp('348', '2027-04-01')]]])
    }
    for (const date of ['2027-01-01', '2027-03-31', '2027-04-01', '2027-12-31']) expect(linesHeldTwice(carrier.roster, date)).toEqual([])
    await carrier.expectRosterMatchesTruth(ids)
  })

  it('when a change takes effect more than the carrier’s retroactive_limit_days before today, then 422 retroactive_limit_exceeded and nothing is sent; within the limit it is accepted and sent', async () => {
    const carrierInfo = await call(t.app, operator, 'GET', '/carriers/aetna')
    expect(carrierInfo.statusCode, carrierInfo.body).toBe(200)
    expect(carrierInfo.json().carrier.retroactive_limit_days).toBe(60)
    const today = todayUtc()
    // A plan year around today: it started about 200 days ago.
    const start = `${addDays(today, -200).slice(0, 7)}-01`
    const end = addDays(`${Number(start.slice(0, 4)) + 1}${start.slice(4)}`, -1)
    const s = await scenario({ period: { start, end }, families: [{}] })
    const divorce = (lastDay: string) =>
      postLifeEvent(t, s.partner, s.ids.subscriber!, {
        coverage_period_id: s.group.coveragePeriodId,
        event: 'divorce',
        date: lastDay,
        eligibility_start_date: addDays(lastDay, 1),
        plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: start, end_date: lastDay }]),
      })
    // Effective (the day after the last day covered) 61 days before today: refused.
    const refused = await divorce(addDays(today, -62))
    expectProblem(refused, 422, 'retroactive_limit_exceeded')
    expect(refused.json().errors).toEqual([expect.objectContaining({ code: 'retroactive_limit_exceeded', pointer: '/qualifying_life_event' })])
    expect(await s.carrier.sync()).toEqual([])
    expect(await s.carrier.coverages(s.ids.spouse!, today)).toEqual([cov('gold', start, null, 'family')])

    // Effective exactly 60 days before today: accepted and told.
    const lastDay = addDays(today, -61)
    const accepted = await divorce(lastDay)
    expect(accepted.statusCode, accepted.body).toBe(201)
    const file = await s.changeFile()
    expect(file.shapes.map((l) => [l.member, l.ins])).toEqual([
      ['subscriber', 'INS*Y*18*001*01*A***FT'],
      ['spouse', 'INS*N*01*024*01*A'],
    ])
    expect(file.shapes[1]!.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', start), dtp('349', lastDay))])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when a birth is reported more than 30 days after the birth date, or a coverage starts outside the coverage period, then 422 names the rule', async () => {
    const s = await scenario({ families: [{}] })
    const baby = await addDependent(s, s.ids.subscriber!, dependentBody({ label: 'baby', relationship: 'child', birthDate: '2026-10-01' }, 'Doe1'))
    const late = await postLifeEvent(t, s.partner, s.ids.subscriber!, {
      coverage_period_id: s.group.coveragePeriodId,
      event: 'birth',
      date: '2026-11-24',
      eligibility_start_date: '2027-01-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: baby, start_date: '2027-01-01' }]),
    })
    expectProblem(late, 422, 'validation_failed')
    expect(late.json().errors).toEqual([expect.objectContaining({ pointer: '/qualifying_life_event/date', code: 'birth_reporting_window' })])
    const outside = await postLifeEvent(t, s.partner, s.ids.subscriber!, {
      coverage_period_id: s.group.coveragePeriodId,
      event: 'newly_eligible',
      date: '2027-12-20',
      eligibility_start_date: '2028-01-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: baby, start_date: '2028-01-01' }]),
    })
    expectProblem(outside, 422, 'validation_failed')
    expect(outside.json().errors).toEqual([expect.objectContaining({ pointer: '/qualifying_life_event/plan_elections/medical/coverages/0/start_date', code: 'outside_coverage_period' })])
    // The dependent alone (no coverage) tells the carrier nothing.
    const after = await s.carrier.sync()
    expect(after.flatMap((f) => memberLoops(f.content))).toEqual([])
  })
})

/**
 * A group whose family 1 enrolls in gold from the period start and then, still during the
 * installation, moves to silver from April (newly_eligible): installed like `installGroup`.
 */
async function installGroupWithLaterPlan(partner: Credential): Promise<InstalledGroup> {
  const group = await installGroup(t, workers, partner, operator, { families: [{}], deferCompletion: true })
  const family = group.families[0]!
  const res = await postLifeEvent(t, partner, family.subscriberId, {
    coverage_period_id: group.coveragePeriodId,
    event: 'newly_eligible',
    date: '2027-03-15',
    eligibility_start_date: '2027-04-01',
    plan_elections: medical(group.plans.silver!.id, Object.values(family.ids).map((member_id) => ({ member_id, start_date: '2027-04-01' }))),
  })
  expect(res.statusCode, res.body).toBe(201)
  const workOrder = await call(t.app, partner, 'POST', `/coverage_periods/${group.coveragePeriodId}/complete_setup`)
  expect(workOrder.statusCode, workOrder.body).toBe(201)
  await completeWorkOrder(t, workers, operator, workOrder.json().work_order.id, 'G-LATER')
  return { ...group, workOrderId: workOrder.json().work_order.id }
}
