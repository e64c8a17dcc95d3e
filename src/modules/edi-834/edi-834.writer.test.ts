import { X12Parser, type X12Interchange } from 'node-x12'
import { describe, expect, it } from 'vitest'
import { COBRA_QUALIFYING_EVENT, EMPLOYMENT_STATUS, GENDER, MAINTENANCE_REASON, MAINTENANCE_TYPE, MARITAL_STATUS, RELATIONSHIP } from './edi-834.codes.js'
import { Edi834WriteError } from './edi-834.errors.js'
import type { Edi834Member } from './edi-834.model.js'
import { check834 } from './edi-834.rules.js'
import { CHANGE_HEADER, CHANGE_MEMBERS, ENVELOPE, FULL_FAMILY, LIFE_EVENT_HEADER, LIFE_EVENT_MEMBERS, MINIMAL_FAMILY, REPLACE_HEADER } from './edi-834.test-fixtures.js'
import { Edi834MemberLoops, write834, write834Head, write834ToString, write834Trailer } from './edi-834.writer.js'

const ALL_MEMBERS = [...FULL_FAMILY, ...MINIMAL_FAMILY]

/** node-x12 in strict mode throws on any envelope error; answers its interchange. */
function parseStrict(text: string): X12Interchange {
  const parsed = new X12Parser(true).parse(text)
  if (Array.isArray(parsed)) throw new Error('more than one interchange')
  return parsed as X12Interchange
}

function lines(text: string): string[] {
  return text.split('~\n').filter((line) => line !== '')
}

describe('write834 envelope', () => {
  it('when a file is written, then SE01 equals the segments from ST to SE and GE01/IEA01 count one set and one group', async () => {
    const text = await write834ToString(ENVELOPE, REPLACE_HEADER, ALL_MEMBERS)
    const all = lines(text)
    const st = all.findIndex((line) => line.startsWith('ST*'))
    const se = all.findIndex((line) => line.startsWith('SE*'))
    expect(all[se]).toBe(`SE*${se - st + 1}*0042`)
    expect(all.slice(-2)).toEqual(['GE*1*42', 'IEA*1*000000042'])
    expect(text.endsWith('IEA*1*000000042~\n')).toBe(true)
  })

  it('when a group control number is given, then GS06 and GE02 carry it while ISA13/IEA02 and ST02/SE02 come from the interchange number', async () => {
    const text = await write834ToString({ ...ENVELOPE, interchangeControlNumber: 123456789, groupControlNumber: 77 }, REPLACE_HEADER, ALL_MEMBERS)
    const all = lines(text)
    expect(all[0]?.split('*')[13]).toBe('123456789')
    expect(all[1]).toBe('GS*BE*ENROLLSYNC*ACMEHEALTH*20250115*1430*77*X*005010X220A1')
    expect(all[2]).toBe('ST*834*123456789*005010X220A1')
    expect(all.at(-3)).toMatch(/^SE\*\d+\*123456789$/)
    expect(all.slice(-2)).toEqual(['GE*1*77', 'IEA*1*123456789'])
    expect(check834(text)).toEqual([])
  })

  it('when the file is written, then the ISA line is exactly 106 characters with its terminator', async () => {
    const text = await write834ToString(ENVELOPE, REPLACE_HEADER, ALL_MEMBERS)
    expect(text.indexOf('~')).toBe(105)
    expect(text[106]).toBe('\n')
  })

  it('when node-x12 parses the files in strict mode, then it accepts them and counts the same segments', async () => {
    for (const [header, members] of [[REPLACE_HEADER, ALL_MEMBERS], [CHANGE_HEADER, CHANGE_MEMBERS]] as const) {
      const text = await write834ToString(ENVELOPE, header, members)
      const interchange = parseStrict(text)
      const transaction = interchange.functionalGroups[0]?.transactions[0]
      expect(Number(transaction?.trailer.valueOf(1))).toBe((transaction?.segments.length ?? 0) + 2)
      // and without the newline after each terminator too
      parseStrict(text.replace(/~\n/g, '~'))
      expect(check834(text)).toEqual([])
    }
  })
})

describe('write834 streaming', () => {
  it('when members come from an async source, then the header is yielded before the first member is read and members come in batches', async () => {
    const read: number[] = []
    async function* source(): AsyncGenerator<Edi834Member> {
      for (let i = 0; i < 2000; i++) {
        read.push(i)
        yield { ...MINIMAL_FAMILY[0]!, subscriberIdentifier: `EMP-${i}`, memberId: `m-${i}` }
      }
    }
    const chunks: string[] = []
    const generator = write834(ENVELOPE, { ...REPLACE_HEADER, totals: { subscribers: 2000, dependents: 0 } }, source())
    const first = await generator.next()
    expect(first.value).toContain('N1*BO*Second Brokerage')
    expect(read).toEqual([])
    for await (const chunk of generator) chunks.push(chunk)
    expect(chunks.length).toBeGreaterThan(3)
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(80 * 1024)
    const text = first.value + chunks.join('')
    expect(check834(text)).toEqual([])
    parseStrict(text)
  })

  it('when the members written differ from the header totals, then the generator throws instead of writing a trailer', async () => {
    const chunks: string[] = []
    const run = async (): Promise<void> => {
      for await (const chunk of write834(ENVELOPE, REPLACE_HEADER, FULL_FAMILY)) chunks.push(chunk)
    }
    await expect(run()).rejects.toMatchObject({ code: 'totals_mismatch' })
    expect(chunks.join('')).not.toContain('SE*')
  })

  it('when a dependent does not follow its subscriber, then writing fails', async () => {
    await expect(write834ToString(ENVELOPE, REPLACE_HEADER, [FULL_FAMILY[1]!, FULL_FAMILY[0]!])).rejects.toMatchObject({ code: 'member_order' })
    const stray = { ...MINIMAL_FAMILY[1]!, subscriberIdentifier: 'EMP-001' }
    await expect(write834ToString(ENVELOPE, REPLACE_HEADER, [...MINIMAL_FAMILY.slice(0, 1), stray])).rejects.toBeInstanceOf(Edi834WriteError)
  })

  it("when a change file sends a dependent without its subscriber's loop, then it is written; a family split by another is refused", async () => {
    const change = { ...REPLACE_HEADER, action: 'change' as const, totals: { subscribers: 1, dependents: 1 } }
    const stray = { ...MINIMAL_FAMILY[1]!, subscriberIdentifier: 'EMP-OTHER' }
    const text = await write834ToString(ENVELOPE, change, [MINIMAL_FAMILY[0]!, stray])
    expect(text).toContain('REF*0F*EMP-OTHER')
    const split = { ...change, totals: { subscribers: 1, dependents: 2 } }
    const own = { ...MINIMAL_FAMILY[1]!, subscriberIdentifier: MINIMAL_FAMILY[0]!.subscriberIdentifier }
    await expect(write834ToString(ENVELOPE, split, [MINIMAL_FAMILY[0]!, stray, own])).rejects.toMatchObject({ code: 'member_order' })
    await expect(write834ToString(ENVELOPE, { ...change, totals: { subscribers: 1, dependents: 1 } }, [own, MINIMAL_FAMILY[0]!])).rejects.toMatchObject({ code: 'member_order' })
  })

  it('when the member loops are written before the header (a change file counts them first), then head, loops and trailer are the same bytes as write834', async () => {
    const loops = new Edi834MemberLoops('change')
    let body = ''
    for (const member of CHANGE_MEMBERS) body += loops.add(member)
    const header = { ...CHANGE_HEADER, totals: { subscribers: loops.subscribers, dependents: loops.dependents } }
    const head = write834Head(ENVELOPE, header)
    const text = head.text + body + write834Trailer(ENVELOPE, head.segmentCount + loops.segmentCount)
    expect(text).toBe(await write834ToString(ENVELOPE, header, CHANGE_MEMBERS))
    expect(check834(text)).toEqual([])
  })
})

describe('write834 mapping', () => {
  it('when a member has COBRA and eligibility dates and a coverage changes from a date, then INS07 and the DTPs are written in X220A1 order', async () => {
    const text = await write834ToString(ENVELOPE, LIFE_EVENT_HEADER, LIFE_EVENT_MEMBERS)
    const all = lines(text)
    expect(all).toContain('INS*Y*18*021*09*C**1*TE')
    const gus = all.indexOf('INS*Y*18*021*09*C**1*TE')
    expect(all.slice(gus + 3, gus + 5)).toEqual(['DTP*337*D8*20250314', 'DTP*340*D8*20250401'])
    const fay = all.indexOf('INS*Y*18*024*08*A***TE')
    expect(all.slice(fay + 3, fay + 7)).toEqual(['DTP*336*D8*20250301', 'DTP*337*D8*20250509', 'DTP*357*D8*20250531', 'DTP*303*D8*20250531'])
    const change = all.indexOf('HD*001**DEN*Dental Base*ECH')
    expect(all.slice(change, change + 4)).toEqual(['HD*001**DEN*Dental Base*ECH', 'DTP*348*D8*20250201', 'DTP*303*D8*20250412', 'REF*CE*DEN-BASE'])
    expect(all).toContain('HD*001**AG*Basic Life*EMP')
    expect(check834(text)).toEqual([])
    parseStrict(text)
  })

  it('when the new fields are null, then nothing is written for them', async () => {
    const text = await write834ToString(ENVELOPE, REPLACE_HEADER, ALL_MEMBERS)
    expect(text).not.toMatch(/DTP\*(340|357)\*/)
    expect(text).toContain('INS*Y*18*021*28*A***FT**N~')
    // the only 303 is the subscriber's member-level one, before loop 2100A
    expect(text.match(/DTP\*303\*/g)).toHaveLength(1)
  })

  it('when any word of the code tables is written, then the file passes the rule table', async () => {
    const base = MINIMAL_FAMILY[0]!
    const members: Edi834Member[] = []
    const add = (overrides: Partial<Edi834Member>): void => {
      members.push({ ...base, ...overrides, subscriberIdentifier: `EMP-${members.length}`, memberId: `m-${members.length}` })
    }
    for (const reason of Object.keys(MAINTENANCE_REASON.toCode) as Edi834Member['reason'][]) {
      add({ reason, maintenance: reason === 'audit' ? 'audit' : 'addition' })
    }
    for (const cobraQualifyingEvent of Object.keys(COBRA_QUALIFYING_EVENT.toCode) as NonNullable<Edi834Member['cobraQualifyingEvent']>[]) {
      add({ reason: 'cobra', benefitStatus: 'cobra', cobraQualifyingEvent })
    }
    for (const maintenance of Object.keys(MAINTENANCE_TYPE.toCode) as Edi834Member['maintenance'][]) add({ maintenance, reason: 'no_reason' })
    for (const employmentStatus of Object.keys(EMPLOYMENT_STATUS.toCode)) add({ employmentStatus })
    for (const gender of Object.keys(GENDER.toCode)) add({ gender })
    for (const maritalStatus of Object.keys(MARITAL_STATUS.toCode)) add({ maritalStatus })
    // Dependents of every relationship follow one subscriber.
    add({})
    const owner = members.at(-1)!.subscriberIdentifier
    const dependents = (Object.keys(RELATIONSHIP.toCode) as Edi834Member['relationship'][]).filter((r) => r !== 'self')
    for (const relationship of dependents) {
      members.push({ ...MINIMAL_FAMILY[1]!, relationship, subscriberIdentifier: owner, memberId: `d-${relationship}` })
    }
    const subscribers = members.filter((m) => m.subscriber).length
    const text = await write834ToString(ENVELOPE, { ...REPLACE_HEADER, totals: { subscribers, dependents: dependents.length } }, members)
    expect(check834(text)).toEqual([])
    parseStrict(text)
  })

  it('when free text holds separators and line breaks, then the file stays valid and the text is cleaned', async () => {
    const nasty = { ...MINIMAL_FAMILY[0]!, firstName: 'Ann~\nST*834', lastName: "O'Neil*Smith~", middleName: 'Q:R^S', email: 'a*b@example.com' }
    const text = await write834ToString(ENVELOPE, { ...REPLACE_HEADER, totals: { subscribers: 1, dependents: 0 } }, [nasty])
    expect(text).toContain("NM1*IL*1*O'Neil Smith*Ann ST 834*Q R S~")
    expect(text).toContain('PER*IP**EM*a b@example.com~')
    expect(check834(text)).toEqual([])
    parseStrict(text)
  })

  it('when a coverage is in a product line with no 834 code, then writing fails with unmapped_value', async () => {
    const member = { ...MINIMAL_FAMILY[0]!, coverages: [{ ...MINIMAL_FAMILY[0]!.coverages[0]!, productLine: 'critical_illness' }] }
    await expect(write834ToString(ENVELOPE, { ...REPLACE_HEADER, totals: { subscribers: 1, dependents: 0 } }, [member])).rejects.toMatchObject({ code: 'unmapped_value' })
  })

  it('when the sponsor has no FEIN, then 1000A names it by the group external identifier with qualifier 94', async () => {
    const header = { ...REPLACE_HEADER, sponsor: { ...REPLACE_HEADER.sponsor, fein: null }, brokers: [], totals: { subscribers: 1, dependents: 0 } }
    const text = await write834ToString(ENVELOPE, header, MINIMAL_FAMILY.slice(0, 1))
    expect(text).toContain('N1*P5*Widgets & Sons, Inc.*94*widgets~')
    expect(text).not.toContain('N1*BO')
    expect(check834(text)).toEqual([])
  })

  it('when more than two brokers are given, then writing fails', async () => {
    const brokers = [...REPLACE_HEADER.brokers, { name: 'Third', nationalProducerNumber: '1' }]
    await expect(write834ToString(ENVELOPE, { ...REPLACE_HEADER, brokers }, ALL_MEMBERS)).rejects.toMatchObject({ code: 'too_many_brokers' })
  })
})
