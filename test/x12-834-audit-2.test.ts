import { describe, expect, it } from 'vitest'
import type { Workers } from '../src/main/workers.js'
import { linesHeldTwice } from '../src/modules/edi-834/edi-834.roster.js'
import { GOLD, hd, memberIdsOf, openScenario, loopOf, loopsOf } from './helpers/change-file-scenarios.js'
import { carrierTestBedForFile } from './helpers/carrier-side.js'
import { dtp, medical, type GroupSpec } from './helpers/life-event-scenarios.js'
import type { Credential, TestApp } from './helpers/test-app.js'

/**
 * Second audit of change files against /work/shared/spec/x12-834-notes.md: a termination and a
 * re-hire of one employee (in one change window, or the termination already told), and the death
 * of the subscriber (what the deceased's loop says, and the survivors' loops whether their
 * coverage continues, ends or moves to COBRA). Same harness as test/x12-834-audit.test.ts: aetna,
 * an edi carrier that does not act on its own, plan year 2027 (every change future-dated).
 */
let t: TestApp, workers: Workers, operator: Credential
carrierTestBedForFile((bed) => ({ t, workers, operator } = bed))

const scenario = (spec: GroupSpec) => openScenario(t, workers, operator, spec)

const everyone = (ids: Record<string, string>) => Object.values(ids)

describe('a termination and a re-hire of one employee', () => {
  const terminate = (s: Awaited<ReturnType<typeof scenario>>, lastDay: string, date: string, eligibility: string) =>
    s.event(s.ids.subscriber!, {
      event: 'termination_of_employment',
      date,
      eligibility_start_date: eligibility,
      plan_elections: medical(s.group.plans.gold!.id, everyone(s.ids).map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: lastDay }))),
    })
  const rehire = (s: Awaited<ReturnType<typeof scenario>>, start: string) =>
    s.event(s.ids.subscriber!, {
      event: 're_hire',
      date: start,
      eligibility_start_date: start,
      plan_elections: medical(s.group.plans.gold!.id, everyone(s.ids).map((member_id) => ({ member_id, start_date: start }))),
    })

  // Notes, "Life events in the 834": Termination of employment: every loop `INS*…*024*08`,
  // subscriber INS08 `TE`, every `HD*024`, 349 = last day covered, 357. Reinstatement:
  // `INS*…*025*41`, `HD*025`, 348. "INS04 … `41` re-enrollment".
  // The carrier was never told the termination: with a gap between the last day covered and the
  // re-hire's start it must learn both, as it would from two files (life-events-834's re-hire
  // test): the termination loop, then the re-enrollment loop. Until now one loop said
  // `001*41` with HD*024 and HD*021, a change that named neither the termination nor the
  // re-enrollment.
  it('when a termination and a re-hire after a gap go in one change file, then each member is 024*08 (HD*024 349) and then 025*41 (HD*025 348 = the new start)', async () => {
    const s = await scenario({ families: [{}] })
    await terminate(s, '2027-04-30', '2027-04-16', '2027-05-01')
    await rehire(s, '2027-06-01')
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    expect(file.shapes.map((l) => [l.member, l.ins])).toEqual([
      ['subscriber', 'INS*Y*18*024*08*A***TE'],
      ['subscriber', 'INS*Y*18*025*41*A***FT'],
      ['spouse', 'INS*N*01*024*08*A'],
      ['spouse', 'INS*N*01*025*41*A'],
      ['child', 'INS*N*19*024*08*A'],
      ['child', 'INS*N*19*025*41*A'],
    ])
    for (const member of ['subscriber', 'spouse', 'child']) {
      const [ended, back] = loopsOf(file.shapes, member)
      expect(ended!.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-04-30'))])
      expect(ended!.dates).toContain(dtp('357', '2027-04-30'))
      expect(ended!.dates).toContain(dtp('303', '2027-05-01'))
      expect(back!.coverages).toEqual([hd(`HD*025**HLT*${GOLD}*FAM`, dtp('348', '2027-06-01'))])
      expect(back!.dates).toEqual([dtp('303', '2027-06-01'), dtp('356', '2027-06-01')])
    }
    for (const date of ['2027-04-30', '2027-05-15', '2027-06-01']) expect(linesHeldTwice(s.carrier.roster, date)).toEqual([])
  })

  // Api contract section 10: "a change file carries exactly the difference to what is now true".
  // Re-hired the day after the last day covered, the family was never without coverage: the
  // carrier, never told the termination, already holds the truth (one coverage from 2027-01-01).
  it('when a termination and a re-hire without a gap go in one change window, then the carrier is sent nothing', async () => {
    const s = await scenario({ families: [{}] })
    await terminate(s, '2027-04-30', '2027-04-16', '2027-05-01')
    await rehire(s, '2027-05-01')
    const sent = await s.carrier.sync()
    expect(sent.map((f) => f.delivery.kind), 'no file: nothing differs from what the carrier holds').toEqual([])
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
  })

  // Notes: Reinstatement `INS*…*025*41`, `HD*025`, 348; "`DTP*303` is the event's effective
  // date". The termination was told; the re-hire the day after the last day covered removes the
  // end (decisions.md: only a removed end is a reinstatement of the coverage told): HD*025 names
  // the coverage the carrier holds (348 = its start), no 349, and the loop is dated from the
  // re-hire (303 = the day after the end told, not the coverage's first day).
  it('when a termination already told is followed by a re-hire without a gap, then each member is 025*41 with HD*025 (348 = the coverage start, no 349) and DTP*303 = the re-hire date', async () => {
    const s = await scenario({ families: [{}] })
    await terminate(s, '2027-04-30', '2027-04-16', '2027-05-01')
    const first = await s.changeFile()
    expect(first.shapes.map((l) => l.ins)).toEqual(['INS*Y*18*024*08*A***TE', 'INS*N*01*024*08*A', 'INS*N*19*024*08*A'])
    await rehire(s, '2027-05-01')
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    expect(file.shapes.map((l) => [l.member, l.ins])).toEqual([
      ['subscriber', 'INS*Y*18*025*41*A***FT'],
      ['spouse', 'INS*N*01*025*41*A'],
      ['child', 'INS*N*19*025*41*A'],
    ])
    for (const l of file.shapes) {
      expect(l.coverages).toEqual([hd(`HD*025**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'))])
      expect(l.dates).toEqual([dtp('303', '2027-05-01'), dtp('356', '2027-05-01')])
    }
  })
})

describe('the death of the subscriber', () => {
  const deathOf = (s: Awaited<ReturnType<typeof scenario>>, coverages: { member_id: string; start_date: string; end_date?: string; status?: 'employer_sponsored' | 'cobra' }[]) =>
    s.event(s.ids.subscriber!, { event: 'death', date: '2027-05-20', eligibility_start_date: '2027-06-01', plan_elections: medical(s.group.plans.gold!.id, coverages) })

  // Notes: Death: deceased `INS*…*024*03`, `HD*024`, 349; "survivors per carrier guide (often
  // `11` surviving spouse)". Coverage level change only: `INS*…*001*<event reason>`, `HD*001`
  // with the new HD05, 303; "HD05 coverage level counts the members covered on that plan on the
  // effective date, never members whose coverage has ended."
  // The death ends the subscriber's coverage alone (the survivors are left out of the election, so
  // they keep theirs): the carrier must be told they stay covered, without the employee (IND, as
  // GET /members/{id}/coverages says). Until now nothing was sent for them, and a carrier
  // terminating a subscriber takes its dependents with it.
  it('when the subscriber dies and the spouse and child keep their coverage, then the subscriber is 024*03 (HD*024 349), the spouse 001*11 and the child 001*AI, each with HD*001 IND from the day after', async () => {
    const s = await scenario({ families: [{}] })
    await deathOf(s, [{ member_id: s.ids.subscriber!, start_date: '2027-01-01', end_date: '2027-05-31' }])
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    expect(file.shapes.map((l) => [l.member, l.ins])).toEqual([
      ['subscriber', 'INS*Y*18*024*03*A***FT'],
      ['spouse', 'INS*N*01*001*11*A'],
      ['child', 'INS*N*19*001*AI*A'],
    ])
    const deceased = loopOf(file.shapes, 'subscriber')
    expect(deceased.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-05-31'))])
    expect(deceased.dates).toContain(dtp('357', '2027-05-31'))
    for (const member of ['spouse', 'child']) {
      const survivor = loopOf(file.shapes, member)
      expect(survivor.dates).toEqual([dtp('303', '2027-06-01')])
      expect(survivor.coverages).toEqual([hd(`HD*001**HLT*${GOLD}*IND`, dtp('303', '2027-06-01'), dtp('348', '2027-01-01'))])
      expect(s.carrier.roster.onDate('2027-06-01').find((m) => m.memberId === s.ids[member])?.coverages.map((c) => c.coverageLevel)).toEqual(['individual'])
    }
  })

  // Same row: only the deceased is `03`; a surviving spouse is `11` also when its coverage ends
  // with the death (a child, for which the notes give no survivor's code, has no reason given,
  // `AI`, rather than a code that says it died). Termination: `HD*024`, 349, 357.
  it('when the subscriber dies and the death ends every member’s coverage, then the subscriber is 024*03, the spouse 024*11 and the child 024*AI, each with HD*024 349', async () => {
    const s = await scenario({ families: [{}] })
    await deathOf(s, everyone(s.ids).map((member_id) => ({ member_id, start_date: '2027-01-01', end_date: '2027-05-31' })))
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    expect(file.shapes.map((l) => [l.member, l.ins])).toEqual([
      ['subscriber', 'INS*Y*18*024*03*A***FT'],
      ['spouse', 'INS*N*01*024*11*A'],
      ['child', 'INS*N*19*024*AI*A'],
    ])
    for (const l of file.shapes) {
      expect(l.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-05-31'))])
      expect(l.dates).toContain(dtp('357', '2027-05-31'))
    }
  })

  // Notes: COBRA continuation `INS*…*021*09*C*…*<INS07>` per continuing member, `HD*021`, 340,
  // 348 = COBRA start; INS07 `4` is death (edi-834.codes.ts). The survivors' active coverage ends
  // as above (spouse `024*11`, child `024*AI`, benefit status A); the COBRA loop is named `09`
  // whichever event carries the COBRA election (until now a death carrying it named it `11`/`AI`).
  it('when the subscriber dies and the death moves the spouse and child to COBRA, then each is 024 (11 / AI) and then 021*09*C with INS07 4', async () => {
    const s = await scenario({ families: [{}] })
    // One coverage per member and line in an election: a COBRA coverage listed from 2027-06-01
    // replaces the active one from that day (api-contract.md section 10), ending it on 2027-05-31.
    await deathOf(s, [
      { member_id: s.ids.subscriber!, start_date: '2027-01-01', end_date: '2027-05-31' },
      { member_id: s.ids.spouse!, start_date: '2027-06-01', status: 'cobra' },
      { member_id: s.ids.child!, start_date: '2027-06-01', status: 'cobra' },
    ])
    const file = await s.changeFile()
    await s.carrier.expectRosterMatchesTruth(memberIdsOf(s))
    expect(file.shapes.map((l) => [l.member, l.ins])).toEqual([
      ['subscriber', 'INS*Y*18*024*03*A***FT'],
      ['spouse', 'INS*N*01*024*11*A'],
      ['spouse', 'INS*N*01*021*09*C**4'],
      ['child', 'INS*N*19*024*AI*A'],
      ['child', 'INS*N*19*021*09*C**4'],
    ])
    for (const member of ['spouse', 'child']) {
      const [ended, cobra] = loopsOf(file.shapes, member)
      expect(ended!.coverages).toEqual([hd(`HD*024**HLT*${GOLD}*FAM`, dtp('348', '2027-01-01'), dtp('349', '2027-05-31'))])
      expect(cobra!.coverages).toEqual([hd(`HD*021**HLT*${GOLD}*IND`, dtp('348', '2027-06-01'))])
      expect(cobra!.dates).toContain(dtp('340', '2027-06-01'))
    }
  })
})
