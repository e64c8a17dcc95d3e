import { describe, expect, it } from 'vitest'
import type { Edi834Coverage, Edi834Member, FileAction } from './edi-834.model.js'
import { Edi834Roster, Edi834RosterError, linesHeldTwice } from './edi-834.roster.js'
import { CHANGE_HEADER, ENVELOPE, testCoverage, testMember } from './edi-834.test-fixtures.js'
import { write834ToString } from './edi-834.writer.js'

let controlNumber = 500

/** A file of these members through the writer, as the service would send it. */
async function file(action: FileAction, members: Edi834Member[]): Promise<string> {
  const subscribers = members.filter((m) => m.subscriber).length
  controlNumber++
  return write834ToString(
    { ...ENVELOPE, interchangeControlNumber: controlNumber },
    { ...CHANGE_HEADER, action, reference: `T-${controlNumber}`, totals: { subscribers, dependents: members.length - subscribers } },
    members,
  )
}

const START = '2025-01-01'
const medical = (o: Partial<Edi834Coverage> = {}): Edi834Coverage =>
  testCoverage({ productLine: 'medical', planDescription: 'Gold PPO', planExternalIdentifier: 'MED-GOLD', startDate: START, ...o })
const dental = (o: Partial<Edi834Coverage> = {}): Edi834Coverage => testCoverage({ startDate: START, ...o })
const life = (o: Partial<Edi834Coverage> = {}): Edi834Coverage =>
  testCoverage({ productLine: 'life', planDescription: 'Basic Life', planExternalIdentifier: 'LIFE-1X', coverageLevel: 'employee_only', volume: 50000, startDate: START, ...o })

const subscriber = (o: Partial<Edi834Member> = {}): Edi834Member =>
  testMember({ subscriber: true, relationship: 'self', subscriberIdentifier: 'EMP-1', memberId: 's1', firstName: 'Ada', lastName: 'Lane', maritalStatus: 'married', ...o })
const spouse = (o: Partial<Edi834Member> = {}): Edi834Member =>
  testMember({ relationship: 'spouse', subscriberIdentifier: 'EMP-1', memberId: 'sp1', firstName: 'Ben', lastName: 'Lane', ...o })
const child = (o: Partial<Edi834Member> = {}): Edi834Member =>
  testMember({ relationship: 'child', subscriberIdentifier: 'EMP-1', memberId: 'c1', firstName: 'Cy', lastName: 'Lane', ...o })

/** A change loop of the subscriber with no coverage, so dependents' loops can follow it. */
const unchanged = (o: Partial<Edi834Member> = {}): Edi834Member => subscriber({ maintenance: 'change', reason: 'no_reason', ...o })

/** The installation: a family of three on medical and dental, the subscriber with basic life. */
async function installed(): Promise<Edi834Roster> {
  return Edi834Roster.from(
    await file('replace', [
      subscriber({ coverages: [medical(), dental(), life()] }),
      spouse({ coverages: [medical(), dental()] }),
      child({ coverages: [medical(), dental()] }),
    ]),
  )
}

const planCodes = (roster: Edi834Roster, date: string, memberId: string): string[] =>
  roster.onDate(date).find((m) => m.memberId === memberId)?.coverages.map((c) => `${c.line}:${c.planCode}:${c.coverageLevel}`) ?? []

describe('Edi834Roster full files', () => {
  it('when a full file is applied, then every member and coverage is held, in force from its start date', async () => {
    const roster = await installed()
    expect(roster.members().map((m) => [m.memberId, m.subscriber, m.relationship, m.firstName, m.subscriberIdentifier])).toEqual([
      ['s1', true, 'self', 'Ada', 'EMP-1'],
      ['sp1', false, 'spouse', 'Ben', 'EMP-1'],
      ['c1', false, 'child', 'Cy', 'EMP-1'],
    ])
    expect(roster.member('s1')?.coverages).toEqual([
      { line: 'AG', planCode: 'LIFE-1X', startDate: START, endDate: null, benefitStatus: 'active', terms: [{ from: START, coverageLevel: 'employee_only', volume: 50000 }] },
      { line: 'DEN', planCode: 'DEN-BASE', startDate: START, endDate: null, benefitStatus: 'active', terms: [{ from: START, coverageLevel: 'family', volume: null }] },
      { line: 'HLT', planCode: 'MED-GOLD', startDate: START, endDate: null, benefitStatus: 'active', terms: [{ from: START, coverageLevel: 'family', volume: null }] },
    ])
    expect(roster.onDate('2024-12-31')).toEqual([])
    expect(roster.onDate('2025-03-01').map((m) => [m.memberId, m.coverages.length])).toEqual([['s1', 3], ['sp1', 2], ['c1', 2]])
    expect(roster.onDate('2025-03-01')[0]?.coverages[0]).toEqual({
      line: 'AG', planCode: 'LIFE-1X', benefitStatus: 'active', coverageLevel: 'employee_only', volume: 50000, startDate: START, endDate: null,
    })
  })

  it('when a later full file is applied, then the roster becomes exactly its members and coverages', async () => {
    const roster = await installed()
    roster.apply(await file('change', [unchanged({ coverages: [medical({ maintenance: 'termination', endDate: '2025-03-31' })] })]))
    roster.apply(await file('replace', [testMember({ subscriber: true, relationship: 'self', subscriberIdentifier: 'EMP-2', memberId: 's2', coverages: [dental({ startDate: '2025-04-01', coverageLevel: 'employee_only' })] })]))
    expect(roster.members().map((m) => m.memberId)).toEqual(['s2'])
    expect(roster.onDate('2025-04-01')).toEqual([
      { memberId: 's2', coverages: [{ line: 'DEN', planCode: 'DEN-BASE', benefitStatus: 'active', coverageLevel: 'employee_only', volume: null, startDate: '2025-04-01', endDate: null }] },
    ])
  })

  it('when a verification (audit) file is applied, then nothing changes', async () => {
    const roster = await installed()
    const before = roster.members()
    const audit = testMember({ subscriber: true, relationship: 'self', maintenance: 'audit', reason: 'audit', subscriberIdentifier: 'EMP-9', memberId: 's9' })
    roster.apply(await file('verify', [audit]))
    expect(roster.members()).toEqual(before)
  })

  it('when a full file lists one member twice or a loop has no REF*17, then it is refused', async () => {
    await expect(file('replace', [subscriber(), subscriber()]).then((text) => Edi834Roster.from(text))).rejects.toMatchObject({ code: 'duplicate_member' })
    const text = (await file('replace', [subscriber()])).replace('REF*17*s1~\n', '')
    expect(() => Edi834Roster.from(text)).toThrow(expect.objectContaining({ code: 'unknown_member' }))
  })
})

describe('Edi834Roster change files', () => {
  it('when a child is added (HD*021) and the subscriber and spouse change level (HD*001 with DTP*303), then each level holds from its own date', async () => {
    const roster = await installed()
    const level = { maintenance: 'change' as const, coverageLevel: 'family' as const, maintenanceEffectiveDate: '2025-04-10' }
    roster.apply(
      await file('change', [
        unchanged({ reason: 'birth', coverages: [dental({ ...level })] }),
        child({ memberId: 'c2', firstName: 'Dot', reason: 'birth', coverages: [dental({ startDate: '2025-04-10' })] }),
      ]),
    )
    expect(roster.member('c2')?.coverages.map((c) => [c.planCode, c.startDate])).toEqual([['DEN-BASE', '2025-04-10']])
    expect(planCodes(roster, '2025-04-09', 'c2')).toEqual([])
    expect(planCodes(roster, '2025-04-10', 'c2')).toEqual(['DEN:DEN-BASE:family'])
    expect(roster.member('s1')?.coverages.find((c) => c.line === 'DEN')?.terms).toEqual([
      { from: START, coverageLevel: 'family', volume: null },
      { from: '2025-04-10', coverageLevel: 'family', volume: null },
    ])
  })

  it('when a coverage level changes (divorce: HD*001 ESP→EMP from DTP*303), then the old level holds up to the day before and the new one from that day', async () => {
    const roster = await installed()
    const change = { maintenance: 'change' as const, coverageLevel: 'employee_and_children' as const, maintenanceEffectiveDate: '2025-05-01' }
    roster.apply(
      await file('change', [
        unchanged({ reason: 'divorce', maritalStatus: 'divorced', coverages: [medical(change), dental(change)] }),
        spouse({ maintenance: 'termination', reason: 'divorce', coverages: [medical({ maintenance: 'termination', endDate: '2025-04-30' }), dental({ maintenance: 'termination', endDate: '2025-04-30' })] }),
      ]),
    )
    expect(planCodes(roster, '2025-04-30', 's1')).toEqual(['AG:LIFE-1X:employee_only', 'DEN:DEN-BASE:family', 'HLT:MED-GOLD:family'])
    expect(planCodes(roster, '2025-05-01', 's1')).toEqual(['AG:LIFE-1X:employee_only', 'DEN:DEN-BASE:employee_and_children', 'HLT:MED-GOLD:employee_and_children'])
    expect(planCodes(roster, '2025-04-30', 'sp1')).toHaveLength(2)
    expect(planCodes(roster, '2025-05-01', 'sp1')).toEqual([])
    expect(roster.member('s1')?.maritalStatus).toBe('divorced')
  })

  it('when HD*001 has no DTP*303 of its own, then the member DTP*303 dates it; an AMT changes the volume and no AMT keeps it', async () => {
    const roster = await installed()
    roster.apply(await file('change', [unchanged({ maintenanceEffectiveDate: '2025-06-01', coverages: [life({ maintenance: 'change', volume: 80000 })] })]))
    roster.apply(await file('change', [unchanged({ coverages: [life({ maintenance: 'change', coverageLevel: 'employee_and_spouse', volume: null, maintenanceEffectiveDate: '2025-09-01' })] })]))
    expect(roster.member('s1')?.coverages[0]?.terms).toEqual([
      { from: START, coverageLevel: 'employee_only', volume: 50000 },
      { from: '2025-06-01', coverageLevel: 'employee_only', volume: 80000 },
      { from: '2025-09-01', coverageLevel: 'employee_and_spouse', volume: 80000 },
    ])
    const on = (date: string) => roster.onDate(date)[0]?.coverages[0]
    expect([on('2025-05-31')?.volume, on('2025-06-01')?.volume, on('2025-09-01')?.coverageLevel]).toEqual([50000, 80000, 'employee_and_spouse'])
  })

  it('when HD*001 is sent again for the same date, then its term replaces the one of that date', async () => {
    const roster = await installed()
    const change = (volume: number) => unchanged({ coverages: [life({ maintenance: 'change', volume, maintenanceEffectiveDate: '2025-06-01' })] })
    roster.apply(await file('change', [change(80000)]))
    roster.apply(await file('change', [change(90000)]))
    expect(roster.member('s1')?.coverages[0]?.terms.map((t) => [t.from, t.volume])).toEqual([[START, 50000], ['2025-06-01', 90000]])
  })

  it('when HD*001 is dated before the coverage starts, then the change applies from the start, and a DTP*349 on it sets the end date', async () => {
    const roster = await installed()
    const vision = (o: Partial<Edi834Coverage> = {}) => testCoverage({ productLine: 'vision', planDescription: 'Vision', planExternalIdentifier: 'VIS-1', coverageLevel: 'employee_only', startDate: '2025-08-01', ...o })
    roster.apply(await file('change', [unchanged({ coverages: [vision()] })]))
    roster.apply(await file('change', [unchanged({ coverages: [vision({ maintenance: 'change', coverageLevel: 'employee_and_spouse', maintenanceEffectiveDate: '2025-04-10', endDate: '2025-12-31' })] })]))
    expect(roster.member('s1')?.coverages.find((c) => c.line === 'VIS')).toMatchObject({
      endDate: '2025-12-31',
      terms: [{ from: '2025-08-01', coverageLevel: 'employee_and_spouse', volume: null }],
    })
  })

  it('when HD*001 carries no DTP*303 at all, then the file is refused', async () => {
    const roster = await installed()
    const text = await file('change', [unchanged({ coverages: [dental({ maintenance: 'change', coverageLevel: 'employee_only' })] })])
    expect(() => roster.apply(text)).toThrow(expect.objectContaining({ code: 'missing_date' }))
  })

  it('when a plan changes (HD*024 old plan, HD*021 new plan in one loop), then the old plan ends the day before the new one starts and no line is held twice', async () => {
    const roster = await installed()
    const text = await file('change', [
      unchanged({ reason: 'plan_change', maintenanceEffectiveDate: '2025-07-01', coverages: [
        medical({ maintenance: 'termination', endDate: '2025-06-30' }),
        medical({ planExternalIdentifier: 'MED-SILVER', planDescription: 'Silver HMO', startDate: '2025-07-01' }),
      ] }),
    ])
    roster.apply(text)
    expect(planCodes(roster, '2025-06-30', 's1')).toContain('HLT:MED-GOLD:family')
    expect(planCodes(roster, '2025-07-01', 's1')).toContain('HLT:MED-SILVER:family')
    expect(planCodes(roster, '2025-07-01', 's1')).not.toContain('HLT:MED-GOLD:family')
    expect(linesHeldTwice(roster, '2025-06-30')).toEqual([])
    expect(linesHeldTwice(roster, '2025-07-01')).toEqual([])
  })

  it('when a plan change forgets to end the old plan, then linesHeldTwice reports the member and line from the new start', async () => {
    const full = await file('replace', [subscriber({ coverages: [medical(), life(), life({ planExternalIdentifier: 'LIFE-VOL', volume: 100000 })] })])
    const change = await file('change', [unchanged({ coverages: [medical({ planExternalIdentifier: 'MED-SILVER', startDate: '2025-07-01' })] })])
    expect(linesHeldTwice([full, change], '2025-06-30').map((l) => l.line)).toEqual(['AG'])
    expect(linesHeldTwice([full, change], '2025-07-01').filter((l) => l.line !== 'AG')).toEqual([
      { memberId: 's1', line: 'HLT', coverages: [{ planCode: 'MED-GOLD', startDate: START, endDate: null }, { planCode: 'MED-SILVER', startDate: '2025-07-01', endDate: null }] },
    ])
    expect(linesHeldTwice(full, '2025-07-01').filter((l) => l.line !== 'AG')).toEqual([])
  })

  it('when a termination is future dated, then the coverage is in force through DTP*349 and not the day after', async () => {
    const roster = await installed()
    roster.apply(await file('change', [unchanged(), child({ maintenance: 'change', reason: 'no_reason', coverages: [dental({ maintenance: 'termination', endDate: '2025-12-31' })] })]))
    expect(planCodes(roster, '2025-12-31', 'c1')).toEqual(['DEN:DEN-BASE:family', 'HLT:MED-GOLD:family'])
    expect(planCodes(roster, '2026-01-01', 'c1')).toEqual(['HLT:MED-GOLD:family'])
    expect(roster.member('c1')?.coverages.find((c) => c.line === 'DEN')?.endDate).toBe('2025-12-31')
  })

  it('when a coverage is cancelled before it starts (DTP*349 = DTP*348 − 1), then it is gone, and adding it again is no double addition', async () => {
    const roster = await installed()
    const vision = (o: Partial<Edi834Coverage> = {}) => testCoverage({ productLine: 'vision', planDescription: 'Vision', planExternalIdentifier: 'VIS-1', coverageLevel: 'employee_only', startDate: '2025-08-01', ...o })
    roster.apply(await file('change', [unchanged({ coverages: [vision()] })]))
    expect(roster.member('s1')?.coverages.map((c) => c.line)).toEqual(['AG', 'DEN', 'HLT', 'VIS'])
    roster.apply(await file('change', [unchanged({ coverages: [vision({ maintenance: 'termination', endDate: '2025-07-31' })] })]))
    expect(roster.member('s1')?.coverages.map((c) => c.line)).toEqual(['AG', 'DEN', 'HLT'])
    expect(planCodes(roster, '2025-08-01', 's1')).not.toContain('VIS:VIS-1:employee_only')
    roster.apply(await file('change', [unchanged({ coverages: [vision()] })]))
    expect(planCodes(roster, '2025-08-01', 's1')).toContain('VIS:VIS-1:employee_only')
  })

  it('when a terminated coverage is reinstated (HD*025), then it is in force again, open-ended or to the new DTP*349', async () => {
    const roster = await installed()
    roster.apply(await file('change', [subscriber({ maintenance: 'termination', reason: 'termination_of_employment', coverages: [dental({ maintenance: 'termination', endDate: '2025-03-31' })] })]))
    expect(planCodes(roster, '2025-04-01', 's1')).not.toContain('DEN:DEN-BASE:family')
    roster.apply(await file('change', [subscriber({ maintenance: 'reinstatement', reason: 're_enrollment', coverages: [dental({ maintenance: 'reinstatement' })] })]))
    expect(planCodes(roster, '2026-04-01', 's1')).toContain('DEN:DEN-BASE:family')
    roster.apply(await file('change', [subscriber({ maintenance: 'reinstatement', reason: 're_enrollment', coverages: [dental({ maintenance: 'reinstatement', endDate: '2025-09-30' })] })]))
    expect(roster.member('s1')?.coverages.find((c) => c.line === 'DEN')?.endDate).toBe('2025-09-30')
  })

  it('when a reinstatement starts on a date the carrier holds nothing for (a re-hire after a gap), then the coverage is held again from that date', async () => {
    const roster = await installed()
    roster.apply(await file('change', [subscriber({ maintenance: 'termination', reason: 'termination_of_employment', coverages: [dental({ maintenance: 'termination', endDate: '2025-03-31' })] })]))
    roster.apply(await file('change', [subscriber({ maintenance: 'reinstatement', reason: 're_enrollment', coverages: [dental({ maintenance: 'reinstatement', startDate: '2025-06-01' })] })]))
    expect(planCodes(roster, '2025-05-01', 's1')).not.toContain('DEN:DEN-BASE:family')
    expect(planCodes(roster, '2025-06-01', 's1')).toContain('DEN:DEN-BASE:family')
    expect(roster.member('s1')?.coverages.filter((c) => c.line === 'DEN').map((c) => [c.startDate, c.endDate])).toEqual([
      [START, '2025-03-31'],
      ['2025-06-01', null],
    ])
  })

  it('when a member continues under COBRA (INS05 C, HD*021), then the new coverage is held with benefit status cobra', async () => {
    const roster = await installed()
    roster.apply(await file('change', [subscriber({ maintenance: 'termination', reason: 'termination_of_employment', coverages: [medical({ maintenance: 'termination', endDate: '2025-03-31' })] })]))
    roster.apply(await file('change', [subscriber({ reason: 'cobra', benefitStatus: 'cobra', cobraQualifyingEvent: 'termination_of_employment', cobraStartDate: '2025-04-01', coverages: [medical({ startDate: '2025-04-01' })] })]))
    const held = roster.onDate('2025-04-01')[0]?.coverages.find((c) => c.line === 'HLT')
    expect(held).toMatchObject({ planCode: 'MED-GOLD', startDate: '2025-04-01', benefitStatus: 'cobra' })
    expect(roster.onDate('2025-03-31')[0]?.coverages.find((c) => c.line === 'HLT')).toMatchObject({ startDate: START, benefitStatus: 'active' })
    expect(roster.member('s1')).toMatchObject({ cobraQualifyingEvent: 'termination_of_employment', cobraStartDate: '2025-04-01' })
  })

  it('when a loop changes demographics only (INS*001*25, no HD), then names and addresses change and coverages stay', async () => {
    const roster = await installed()
    const address = { address_line_1: '9 Elm Ct', address_line_2: null, city: 'Chicago', state: 'IL', zip: '60601', fips_county_code: '17031' }
    roster.apply(await file('change', [subscriber({ maintenance: 'change', reason: 'identifying_data', lastName: 'Moss', residentialAddress: address, maintenanceEffectiveDate: '2025-03-10' })]))
    expect(roster.member('s1')).toMatchObject({ lastName: 'Moss', residentialAddress: address })
    expect(roster.member('s1')?.coverages).toHaveLength(3)
  })

  it('when a change file names a member the carrier never had, then the member is created', async () => {
    const roster = await installed()
    roster.apply(await file('change', [testMember({ subscriber: true, relationship: 'self', subscriberIdentifier: 'EMP-7', memberId: 's7', coverages: [dental({ startDate: '2025-03-01', coverageLevel: 'employee_only' })] })]))
    expect(planCodes(roster, '2025-03-01', 's7')).toEqual(['DEN:DEN-BASE:employee_only'])
  })
})

describe('Edi834Roster refusals', () => {
  it('when a coverage the carrier holds is added again (same plan, same start), then the file is refused with double_addition and the roster is unchanged', async () => {
    const roster = await installed()
    const before = roster.members()
    const text = await file('change', [unchanged({ lastName: 'Changed', coverages: [dental({ maintenance: 'change', maintenanceEffectiveDate: '2025-02-01', coverageLevel: 'employee_only' }), medical()] })])
    expect(() => roster.apply(text)).toThrow(Edi834RosterError)
    expect(() => roster.apply(text)).toThrow(expect.objectContaining({ code: 'double_addition', message: expect.stringContaining('member s1 HLT plan MED-GOLD starting 2025-01-01') }))
    expect(roster.members()).toEqual(before)
  })

  it('when an ended coverage is added again instead of reinstated, then it is still a double addition', async () => {
    const roster = await installed()
    roster.apply(await file('change', [unchanged({ coverages: [dental({ maintenance: 'termination', endDate: '2025-03-31' })] })]))
    const text = await file('change', [unchanged({ coverages: [dental()] })])
    expect(() => roster.apply(text)).toThrow(expect.objectContaining({ code: 'double_addition' }))
  })

  it('when a termination or change names a coverage the carrier was never sent, then the file is refused with coverage_not_found', async () => {
    const roster = await installed()
    for (const maintenance of ['termination', 'change'] as const) {
      const wrongStart = await file('change', [unchanged({ coverages: [dental({ maintenance, startDate: '2025-02-01', endDate: '2025-03-31', maintenanceEffectiveDate: '2025-03-01' })] })])
      expect(() => roster.apply(wrongStart)).toThrow(expect.objectContaining({ code: 'coverage_not_found' }))
      const wrongPlan = await file('change', [unchanged({ coverages: [dental({ maintenance, planExternalIdentifier: 'DEN-HIGH', endDate: '2025-03-31', maintenanceEffectiveDate: '2025-03-01' })] })])
      expect(() => roster.apply(wrongPlan)).toThrow(expect.objectContaining({ code: 'coverage_not_found' }))
    }
  })

  it('when a termination has no DTP*349, or INS*024 names no coverage, then the file is refused', async () => {
    const roster = await installed()
    const noEnd = await file('change', [unchanged({ coverages: [dental({ maintenance: 'termination' })] })])
    expect(() => roster.apply(noEnd)).toThrow(expect.objectContaining({ code: 'missing_date' }))
    const bare = await file('change', [subscriber({ maintenance: 'termination', reason: 'termination_of_employment' })])
    expect(() => roster.apply(bare)).toThrow(expect.objectContaining({ code: 'coverage_not_found' }))
  })
})

describe('Edi834Roster members already read, and kept elsewhere', () => {
  const pcp = { npi: '1234567893', first_name: 'Grace', last_name: 'Hopper', organization_name: null }
  const family = () => [
    subscriber({ coverages: [medical({ primaryCareProvider: pcp }), dental()] }),
    spouse({ coverages: [medical(), dental()] }),
    child({ coverages: [medical(), dental()] }),
  ]
  const change = () => [
    unchanged({ lastName: 'Moss', coverages: [dental({ maintenance: 'termination', endDate: '2025-03-31' })] }),
    testMember({ relationship: 'child', subscriberIdentifier: 'EMP-1', memberId: 'c2', maintenance: 'addition', reason: 'birth', coverages: [medical({ startDate: '2025-04-10' })] }),
  ]

  it('when members already read are applied, then the roster is the one their file would give, and the answer names the members touched', async () => {
    const fromFiles = Edi834Roster.from(await file('replace', family()), await file('change', change()))
    const fromMembers = new Edi834Roster()
    expect(fromMembers.applyMembers('replace', 'full-1', family())).toEqual({ action: 'replace', memberIds: ['s1', 'sp1', 'c1'] })
    expect(fromMembers.applyMembers('change', 'change-1', change())).toEqual({ action: 'change', memberIds: ['s1', 'c2'] })
    expect(fromMembers.members()).toEqual(fromFiles.members())
    expect(fromMembers.applyMembers('verify', 'audit-1', family())).toEqual({ action: 'verify', memberIds: [] })
    expect(fromMembers.members()).toEqual(fromFiles.members())
  })

  it('when a file is applied, then apply answers what applyMembers answers', async () => {
    const roster = new Edi834Roster()
    expect(roster.apply(await file('replace', family()))).toEqual({ action: 'replace', memberIds: ['s1', 'sp1', 'c1'] })
    expect(roster.apply(await file('change', change()))).toEqual({ action: 'change', memberIds: ['s1', 'c2'] })
    expect(Edi834Roster.memberIdsOf([...change(), unchanged()])).toEqual(['s1', 'c2'])
  })

  it('when a roster is kept as JSON records and read back with only the members a change names, then applying the change gives those members as on the whole roster', async () => {
    const whole = Edi834Roster.from(await file('replace', family()))
    const kept = new Map(whole.members().map((m) => [m.memberId, JSON.parse(JSON.stringify(m))]))
    const text = await file('change', change())
    const applied = whole.apply(text)
    const named = Edi834Roster.memberIdsOf(change()).flatMap((id) => (kept.has(id) ? [kept.get(id)] : []))
    const partial = Edi834Roster.fromMembers(named)
    expect(partial.apply(text)).toEqual(applied)
    for (const id of applied.memberIds) expect(partial.member(id)).toEqual(whole.member(id))
    // Members the change did not name are not in the partial roster, and unchanged in the whole.
    expect(partial.member('sp1')).toBeUndefined()
    expect(whole.member('sp1')).toEqual(kept.get('sp1'))
  })

  it('when a coverage is added with a PCP, then the roster holds it and shows it on every date it is in force; without one, the key is absent', async () => {
    const roster = Edi834Roster.from(await file('replace', family()))
    expect(roster.member('s1')?.coverages.find((c) => c.line === 'HLT')?.primaryCareProvider).toEqual(pcp)
    expect(roster.onDate('2025-02-01').find((m) => m.memberId === 's1')?.coverages.find((c) => c.line === 'HLT')).toMatchObject({ primaryCareProvider: pcp })
    expect(roster.member('sp1')?.coverages.every((c) => !('primaryCareProvider' in c))).toBe(true)
  })

  it('when a roster is read back from records holding a member twice, then it is refused with duplicate_member', async () => {
    expect(Edi834Roster.fromMembers([]).members()).toEqual([])
    const [first] = (await installed()).members()
    expect(() => Edi834Roster.fromMembers([first!, first!])).toThrow(expect.objectContaining({ code: 'duplicate_member' }))
  })

  it('when a member read back is changed by the caller, then the roster keeps what it was given', async () => {
    const address = { address_line_1: '1 Elm St', city: 'Springfield', state: 'IL', zip: '62704' }
    const records = Edi834Roster.from(await file('replace', [subscriber({ residentialAddress: address, coverages: [medical()] })])).members()
    const roster = Edi834Roster.fromMembers(records)
    records[0]!.coverages[0]!.endDate = '2025-01-31'
    records[0]!.residentialAddress!.city = 'Elsewhere'
    expect(roster.member('s1')?.coverages[0]?.endDate).toBeNull()
    expect(roster.member('s1')?.residentialAddress?.city).toBe('Springfield')
  })
})
