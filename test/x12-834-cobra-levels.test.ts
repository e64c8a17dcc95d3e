import { describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { GOLD, hd, loop, memberIdsOf, openScenario, loopsOf } from './helpers/change-file-scenarios.js'
import { carrierTestBedForFile } from './helpers/carrier-side.js'
import { dtp, medical, type GroupSpec } from './helpers/life-event-scenarios.js'
import type { Credential, TestApp } from './helpers/test-app.js'

/**
 * Coverage levels (HD05) when members continue under COBRA on the employee's plan. The notes
 * (/work/shared/spec/x12-834-notes.md): "HD05 coverage level counts the members covered on that plan
 * on the effective date"; COBRA continuation is `INS*…*021*09*C*…*<INS07>` with `HD*021`, an
 * enrolment of its own (INS05 `C`); a divorce or a child leaving changes the subscriber's level
 * (`INS*Y*18*001*<reason>`, `HD*001` with the new HD05, 303). Until 2026-11-27 the COBRA members
 * were counted in the employee's active level: after a divorce whose ex-spouse elected COBRA the
 * employee stayed FAM and no subscriber loop was sent; a child aged out onto COBRA left the employee
 * at E1D. COBRA members are levelled among the COBRA members on the plan: alone (an ex-spouse, a
 * child) they are IND (docs/decisions.md, "Coverage over time").
 *
 * Each test drives the API (aetna, an edi carrier that does not act on its own) through the shared
 * harness and reads the change files' loops. Plan year 2027: every change is future-dated.
 */
let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

const scenario = (spec: GroupSpec) => openScenario(t, workers, operator, spec)

const cov = (start: string, end: string | null, level: string, status = 'employer_sponsored') => ({ plan: 'gold', start, end, level, status })

const SPOUSE_AND_TWO_CHILDREN: GroupSpec = {
  families: [
    {
      dependents: [
        { label: 'spouse', relationship: 'spouse', birthDate: '1984-02-02' },
        { label: 'child', relationship: 'child', birthDate: '2015-09-09' },
        { label: 'child2', relationship: 'child', birthDate: '2017-04-04' },
      ],
    },
  ],
}

describe('a divorce whose ex-spouse continues under COBRA on the same plan', () => {
  // Notes: Divorce: ex-spouse `INS*N*01*024*01`; subscriber `INS*Y*18*001*01`, `DMG04 D`, `HD*001`
  // new HD05 (FAM → ECH: the employee and two children stay active). COBRA continuation:
  // `INS*…*021*09*C*…*5` (divorce), `HD*021`, 340, 348 = COBRA start.
  it('when the divorce and the COBRA election go in one change file, then the subscriber is 001*01 with HD*001 ECH from 2027-04-01 and the ex-spouse 024*01*A then 021*09*C**5 (HD*021 IND)', async () => {
    const s = await scenario(SPOUSE_AND_TWO_CHILDREN)
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-03-31')).toEqual([cov('2027-01-01', null, 'family')])
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

    expect(file.shapes.map((l) => l.member), 'the subscriber (level), the ex-spouse twice (active ended, COBRA added), the children not').toEqual(['subscriber', 'spouse', 'spouse'])
    expect(loopsOf(file.shapes, 'subscriber')).toEqual([
      loop('subscriber', 'INS*Y*18*001*01*A***FT', [dtp('303', '2027-04-01')], hd(`HD*001**HLT*${GOLD}*ECH`, dtp('303', '2027-04-01'), dtp('348', '2027-01-01'))),
    ])
    expect(file.loops.find((l) => l.memberId === s.ids.subscriber)?.dmg).toMatch(/\*D$/)
    const [ended, continued] = loopsOf(file.shapes, 'spouse')
    expect(ended!.ins).toBe('INS*N*01*024*01*A')
    expect(ended!.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-03-31'))])
    expect(continued!.ins).toBe('INS*N*01*021*09*C**5')
    expect(continued!.dates).toContain(dtp('340', '2027-04-01'))
    expect(continued!.coverages).toEqual([hd(`HD*021**HLT*${GOLD}*IND`, dtp('348', '2027-04-01'))])

    // What is true, and what the carrier now holds.
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-04-01')).toEqual([cov('2027-04-01', null, 'employee_and_children')])
    expect(await s.carrier.coverages(s.ids.child!, '2027-04-01')).toEqual([cov('2027-04-01', null, 'employee_and_children')])
    expect(await s.carrier.coverages(s.ids.spouse!, '2027-04-01')).toEqual([cov('2027-04-01', null, 'individual', 'cobra')])
    expect(s.carrier.roster.onDate('2027-04-01').find((m) => m.memberId === s.ids.subscriber)?.coverages.map((c) => c.coverageLevel)).toEqual(['employee_and_children'])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // Sent in two windows: the divorce file already tells the new level (FAM → E1D with one child);
  // the COBRA file must not take it back (before the fix it sent the subscriber FAM again).
  it('when the COBRA election follows in a later change file, then that file carries the ex-spouse alone and the subscriber stays E1D', async () => {
    const s = await scenario({ families: [{}] })
    await s.event(s.ids.subscriber!, {
      event: 'divorce',
      date: '2027-03-15',
      eligibility_start_date: '2027-04-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-01-01', end_date: '2027-03-31' }]),
    })
    const divorce = await s.changeFile()
    expect(loopsOf(divorce.shapes, 'subscriber').map((l) => l.coverages)).toEqual([[hd(`HD*001**HLT*${GOLD}*E1D`, dtp('303', '2027-04-01'), dtp('348', '2027-01-01'))]])
    await s.event(s.ids.subscriber!, {
      event: 'cobra',
      date: '2027-03-20',
      eligibility_start_date: '2027-04-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.spouse!, start_date: '2027-04-01', status: 'cobra' }]),
    })
    const file = await s.changeFile()
    expect(file.shapes.map((l) => l.member)).toEqual(['spouse'])
    expect(file.shapes[0]!.ins).toBe('INS*N*01*021*09*C**5')
    expect(file.shapes[0]!.coverages).toEqual([hd(`HD*021**HLT*${GOLD}*IND`, dtp('348', '2027-04-01'))])
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-04-01')).toEqual([cov('2027-04-01', null, 'employee_and_one_dependent')])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})

describe('a child ageing out onto COBRA', () => {
  // Notes: "HD05 coverage level counts the members covered on that plan on the effective date";
  // coverage level change: `INS*…*001*<event reason>`, `HD*001` new HD05 (E1D → EMP), 303. COBRA
  // continuation `INS*…*021*09*C*…*7` (ineligible child), `HD*021`, 340, 348 = COBRA start.
  it('when the child’s end and its COBRA go in one change file, then the subscriber is 001 with HD*001 EMP from 2027-09-01 and the child 021*09*C**7 (HD*021 IND)', async () => {
    const s = await scenario({ families: [{ dependents: [{ label: 'child', relationship: 'child', birthDate: '2001-08-15' }] }] })
    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-08-31')).toEqual([cov('2027-01-01', null, 'employee_and_one_dependent')])
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-08-20',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-01-01', end_date: '2027-08-31' }]),
    })
    await s.event(s.ids.subscriber!, {
      event: 'cobra',
      date: '2027-08-25',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-09-01', status: 'cobra' }]),
    })
    const file = await s.changeFile()

    const [subscriber, ...others] = loopsOf(file.shapes, 'subscriber')
    expect(others).toEqual([])
    expect(subscriber!.ins).toMatch(/^INS\*Y\*18\*001\*[^*]+\*A\*\*\*FT$/)
    expect(subscriber!.dates).toEqual([dtp('303', '2027-09-01')])
    expect(subscriber!.coverages).toEqual([hd(`HD*001**HLT*${GOLD}*EMP`, dtp('303', '2027-09-01'), dtp('348', '2027-01-01'))])
    const child = loopsOf(file.shapes, 'child')
    expect(child.map((l) => l.ins.split('*').slice(0, 6).join('*'))).toEqual(['INS*N*19*024*EC*A', 'INS*N*19*021*09*C'])
    expect(child[1]!.ins).toBe('INS*N*19*021*09*C**7')
    expect(child[1]!.dates).toContain(dtp('340', '2027-09-01'))
    expect(child[1]!.coverages).toEqual([hd(`HD*021**HLT*${GOLD}*IND`, dtp('348', '2027-09-01'))])

    expect(await s.carrier.coverages(s.ids.subscriber!, '2027-09-01')).toEqual([cov('2027-09-01', null, 'employee_only')])
    expect(await s.carrier.coverages(s.ids.child!, '2027-09-01')).toEqual([cov('2027-09-01', null, 'individual', 'cobra')])
    expect(s.carrier.roster.onDate('2027-09-01').find((m) => m.memberId === s.ids.subscriber)?.coverages.map((c) => c.coverageLevel)).toEqual(['employee_only'])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // The spouse stays: the family goes FAM → ESP when the child ages out, and its COBRA changes nothing of it.
  it('when the COBRA election follows in a later change file, then that file carries the child alone and the subscriber stays ESP', async () => {
    const s = await scenario({ families: [{}] })
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-08-20',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-01-01', end_date: '2027-08-31' }]),
    })
    const agedOut = await s.changeFile()
    expect(loopsOf(agedOut.shapes, 'subscriber').map((l) => l.coverages)).toEqual([[hd(`HD*001**HLT*${GOLD}*ESP`, dtp('303', '2027-09-01'), dtp('348', '2027-01-01'))]])
    await s.event(s.ids.subscriber!, {
      event: 'cobra',
      date: '2027-08-25',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.child!, start_date: '2027-09-01', status: 'cobra' }]),
    })
    const file = await s.changeFile()
    expect(file.shapes.map((l) => l.member)).toEqual(['child'])
    expect(file.shapes[0]!.ins).toBe('INS*N*19*021*09*C**7')
    expect(file.shapes[0]!.coverages).toEqual([hd(`HD*021**HLT*${GOLD}*IND`, dtp('348', '2027-09-01'))])
    for (const member of ['subscriber', 'spouse']) {
      expect(await s.carrier.coverages(s.ids[member]!, '2027-09-01'), member).toEqual([cov('2027-09-01', null, 'employee_and_spouse')])
    }
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})
