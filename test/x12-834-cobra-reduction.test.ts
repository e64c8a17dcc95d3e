import { describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { GOLD, hd, memberIdsOf, openScenario, updateSubscriber, type Scenario } from './helpers/change-file-scenarios.js'
import { carrierTestBedForFile } from './helpers/carrier-side.js'
import { dtp, medical, type GroupSpec } from './helpers/life-event-scenarios.js'
import type { Credential, TestApp } from './helpers/test-app.js'

/**
 * INS07 (COBRA qualifying event) when no life event says why the family continues under COBRA.
 * The notes (/work/shared/spec/x12-834-notes.md), COBRA continuation: `INS*…*021*09*C*…*<INS07>`
 * per continuing member, INS07 `1` termination, `2` reduction of hours, `5` divorce, `7`
 * ineligible child. The API has no event for a reduction of hours: a client changes the
 * employee's employment status (part time, leave of absence) and sends the `cobra` election.
 * Until 2026-11-27 such a family went out as terminated (`1`), its children as aged out (`7`).
 */
let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

const FAMILY: GroupSpec = {
  families: [{ dependents: [{ label: 'spouse', relationship: 'spouse', birthDate: '1984-02-02' }, { label: 'child', relationship: 'child', birthDate: '2015-09-09' }] }],
}

/** The employee's employment status set to `status`, then the whole family's COBRA election from 2027-07-01. */
async function familyOntoCobra(status: string): Promise<Scenario> {
  const s = await openScenario(t, workers, operator, FAMILY)
  await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, employment_details: { ...(current.employment_details as object), status } }))
  await s.event(s.ids.subscriber!, {
    event: 'cobra',
    date: '2027-06-20',
    eligibility_start_date: '2027-07-01',
    plan_elections: medical(s.group.plans.gold!.id, Object.values(s.ids).map((member_id) => ({ member_id, start_date: '2027-07-01', status: 'cobra' as const }))),
  })
  return s
}

/** Each COBRA loop's INS, up to INS08 (INS07 is the seventh element). */
const cobraLoops = (shapes: readonly { member: string; ins: string }[]) => shapes.filter((l) => l.ins.split('*')[5] === 'C').map((l) => [l.member, l.ins])

describe('COBRA after a reduction of hours', () => {
  it('when a part-time employee and the family elect COBRA, then every COBRA loop says INS07 2, the child included, with HD*021 FAM from the COBRA start', async () => {
    const s = await familyOntoCobra('part_time')
    const file = await s.changeFile()
    expect(cobraLoops(file.shapes)).toEqual([
      ['subscriber', 'INS*Y*18*021*09*C**2*PT'],
      ['spouse', 'INS*N*01*021*09*C**2'],
      ['child', 'INS*N*19*021*09*C**2'],
    ])
    for (const l of file.shapes.filter((shape) => shape.ins.includes('*021*09*C'))) {
      expect(l.coverages, l.member).toEqual([hd(`HD*021**HLT*${GOLD}*FAM`, dtp('348', '2027-07-01'))])
      expect(l.dates, l.member).toContain(dtp('340', '2027-07-01'))
    }
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when the employee is on a leave of absence, then the COBRA loops say 2 as well (COBRA counts a leave as reduced hours)', async () => {
    const s = await familyOntoCobra('leave_of_absence')
    const file = await s.changeFile()
    expect(cobraLoops(file.shapes).map(([, ins]) => ins!.split('*')[7])).toEqual(['2', '2', '2'])
  })

  it('when the part-time employee lets the coverage end and only the spouse and child elect COBRA, then both say 2: the child lost its coverage with the employee, it did not age out', async () => {
    const s = await openScenario(t, workers, operator, FAMILY)
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, employment_details: { ...(current.employment_details as object), status: 'part_time' } }))
    await s.event(s.ids.subscriber!, {
      event: 'cobra',
      date: '2027-06-20',
      eligibility_start_date: '2027-07-01',
      plan_elections: medical(s.group.plans.gold!.id, [
        { member_id: s.ids.subscriber!, start_date: '2027-01-01', end_date: '2027-06-30' },
        ...[s.ids.spouse!, s.ids.child!].map((member_id) => ({ member_id, start_date: '2027-07-01', status: 'cobra' as const })),
      ]),
    })
    const file = await s.changeFile()
    expect(file.shapes.filter((l) => l.member === 'subscriber').map((l) => l.ins)).toEqual(['INS*Y*18*024*09*A***PT'])
    expect(cobraLoops(file.shapes)).toEqual([
      ['spouse', 'INS*N*01*021*09*C**2'],
      ['child', 'INS*N*19*021*09*C**2'],
    ])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  it('when the employee is terminated without a termination event, then the COBRA loops say 1 (termination), the child too since it continues with the employee', async () => {
    const s = await familyOntoCobra('terminated')
    const file = await s.changeFile()
    expect(cobraLoops(file.shapes)).toEqual([
      ['subscriber', 'INS*Y*18*021*09*C**1*TE'],
      ['spouse', 'INS*N*01*021*09*C**1'],
      ['child', 'INS*N*19*021*09*C**1'],
    ])
  })
})

describe('a dependent child other than a son or daughter ageing out onto COBRA', () => {
  it('when a grandchild loses its coverage while the employee keeps theirs and elects COBRA, then its COBRA loop says 7 (dependent child loses eligibility), not the employee\'s reason', async () => {
    const s = await openScenario(t, workers, operator, { families: [{ dependents: [{ label: 'grandchild', relationship: 'grandchild', birthDate: '2001-08-15' }] }] })
    await updateSubscriber(s, s.ids.subscriber!, (current) => ({ ...current, employment_details: { ...(current.employment_details as object), status: 'part_time' } }))
    await s.event(s.ids.subscriber!, {
      event: 'loss_of_coverage',
      date: '2027-08-20',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.grandchild!, start_date: '2027-01-01', end_date: '2027-08-31' }]),
    })
    await s.event(s.ids.subscriber!, {
      event: 'cobra',
      date: '2027-08-25',
      eligibility_start_date: '2027-09-01',
      plan_elections: medical(s.group.plans.gold!.id, [{ member_id: s.ids.grandchild!, start_date: '2027-09-01', status: 'cobra' as const }]),
    })
    const file = await s.changeFile()
    expect(cobraLoops(file.shapes)).toEqual([['grandchild', 'INS*N*05*021*09*C**7']])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })
})
