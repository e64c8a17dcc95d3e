import fc from 'fast-check'
import { X12Parser } from 'node-x12'
import { describe, expect, it } from 'vitest'
import { COBRA_QUALIFYING_EVENT, MAINTENANCE_REASON } from './edi-834.codes.js'
import { Edi834ParseError } from './edi-834.errors.js'
import type { Edi834Member } from './edi-834.model.js'
import { parse834 } from './edi-834.parse.js'
import { check834 } from './edi-834.rules.js'
import { CHANGE_HEADER, CHANGE_MEMBERS, ENVELOPE, FULL_FAMILY, LIFE_EVENT_HEADER, LIFE_EVENT_MEMBERS, MINIMAL_FAMILY, REPLACE_HEADER } from './edi-834.test-fixtures.js'
import { write834ToString } from './edi-834.writer.js'
import { sanitizeElement } from './x12-segments.js'

const ALL_MEMBERS = [...FULL_FAMILY, ...MINIMAL_FAMILY]

/** Re-declares every separator in the ISA and rewrites the file with them. */
function withSeparators(text: string, element: string, component: string, terminator: string): string {
  const segments = text.split('~\n').filter((s) => s !== '')
  const isa = (segments[0] as string).split('*')
  isa[16] = component
  return [isa.join(element), ...segments.slice(1).map((s) => s.split('*').join(element))].join(terminator) + terminator
}

describe('parse834 round trip', () => {
  it('when a family with every field set and a minimal family are written and read back, then the members are deep equal to the input', async () => {
    const text = await write834ToString(ENVELOPE, REPLACE_HEADER, ALL_MEMBERS)
    expect(parse834(text).members).toEqual(ALL_MEMBERS)
  })

  it('when the change file is read back, then additions, changes and terminations come back with their dates', async () => {
    const text = await write834ToString(ENVELOPE, CHANGE_HEADER, CHANGE_MEMBERS)
    const members = parse834(text).members
    expect(members).toEqual(CHANGE_MEMBERS)
    expect(members[2]?.coverages[0]).toMatchObject({ maintenance: 'termination', endDate: '2025-03-31' })
  })

  it('when a life-event change file is read back, then COBRA (INS07, DTP*340), eligibility end (DTP*357) and coverage changes dated by the 2300 DTP*303 come back', async () => {
    const text = await write834ToString(ENVELOPE, LIFE_EVENT_HEADER, LIFE_EVENT_MEMBERS)
    expect(check834(text)).toEqual([])
    const members = parse834(text).members
    expect(members).toEqual(LIFE_EVENT_MEMBERS)
    expect(members[0]).toMatchObject({ reason: 'adoption', maintenanceEffectiveDate: '2025-04-12' })
    expect(members[0]?.coverages.map((c) => [c.maintenance, c.coverageLevel, c.maintenanceEffectiveDate, c.volume])).toEqual([
      ['change', 'employee_and_children', '2025-04-12', null],
      ['change', 'employee_only', '2025-04-12', 75000],
    ])
    expect(members[2]).toMatchObject({ reason: 'cobra', benefitStatus: 'cobra', cobraQualifyingEvent: 'termination_of_employment', cobraStartDate: '2025-04-01' })
    expect(members[3]).toMatchObject({ employmentEndDate: '2025-05-09', eligibilityEndDate: '2025-05-31', cobraQualifyingEvent: null, cobraStartDate: null })
  })

  it('when every INS04 reason and INS07 COBRA event is written, then each reads back as the same word', async () => {
    const base = MINIMAL_FAMILY[0]!
    const reasons = Object.keys(MAINTENANCE_REASON.toCode) as Edi834Member['reason'][]
    const events = Object.keys(COBRA_QUALIFYING_EVENT.toCode) as NonNullable<Edi834Member['cobraQualifyingEvent']>[]
    const members: Edi834Member[] = [
      ...reasons.map((reason, i) => ({ ...base, reason, maintenance: reason === 'audit' ? ('audit' as const) : ('addition' as const), subscriberIdentifier: `R-${i}` })),
      ...events.map((cobraQualifyingEvent, i) => ({ ...base, reason: 'cobra' as const, benefitStatus: 'cobra' as const, cobraQualifyingEvent, subscriberIdentifier: `C-${i}` })),
    ]
    const text = await write834ToString(ENVELOPE, { ...CHANGE_HEADER, totals: { subscribers: members.length, dependents: 0 } }, members)
    expect(check834(text)).toEqual([])
    const read = parse834(text).members
    expect(read.map((m) => m.reason)).toEqual(members.map((m) => m.reason))
    expect(read.map((m) => m.cobraQualifyingEvent)).toEqual(members.map((m) => m.cobraQualifyingEvent))
  })

  it('when the envelope and header are read, then they match what was written', async () => {
    const { envelope, header } = parse834(await write834ToString({ ...ENVELOPE, groupControlNumber: 9 }, REPLACE_HEADER, ALL_MEMBERS))
    expect(envelope).toEqual({ ...ENVELOPE, groupControlNumber: 9, transactionSetControlNumber: '0042' })
    expect(header).toEqual({
      reference: 'FD-2025-0001',
      action: 'replace',
      masterPolicyNumber: 'GRP778899',
      effectiveDate: '2025-02-01',
      totals: { subscribers: 2, dependents: 3 },
      sponsor: { name: 'Widgets & Sons, Inc.', fein: '123456789', groupExternalIdentifier: null },
      payer: { name: 'Acme Health', carrierName: 'acme_health' },
      brokers: [...REPLACE_HEADER.brokers],
    })
  })

  it('when values that X12 cannot carry are written, then they read back in their documented form', async () => {
    const [subscriber] = FULL_FAMILY
    const lossy: Edi834Member = {
      ...subscriber!,
      gender: 'non_binary',
      phone: '(217) 555-0100',
      mailingAddress: { ...subscriber!.mailingAddress!, fips_county_code: '17167' },
      coverages: [
        { ...subscriber!.coverages[0]!, productType: 'preferred_provider_organization' },
        { ...subscriber!.coverages[2]!, productLine: 'life_accidental_death_dismemberment' },
        { ...subscriber!.coverages[2]!, productLine: 'disability', productType: 'long_term' },
      ],
    }
    const text = await write834ToString(ENVELOPE, { ...REPLACE_HEADER, totals: { subscribers: 1, dependents: 0 } }, [lossy])
    const [read] = parse834(text).members
    expect(read).toMatchObject({ gender: 'unknown', phone: '2175550100', mailingAddress: { fips_county_code: null } })
    expect(read?.coverages.map((c) => [c.productLine, c.productType])).toEqual([['medical', null], ['life', null], ['disability', 'long_term']])
  })
})

describe('parse834 input forms', () => {
  it('when the file has no newlines, other separators, or CRLF line ends, then it reads the same', async () => {
    const text = await write834ToString(ENVELOPE, REPLACE_HEADER, ALL_MEMBERS)
    const expected = parse834(text).members
    expect(parse834(text.replace(/~\n/g, '~')).members).toEqual(expected)
    expect(parse834(text.replace(/~\n/g, '~\r\n')).members).toEqual(expected)
    const other = withSeparators(text, '|', '>', '!')
    expect(other).toContain('INS|Y|18|021|28|A|||FT||N!')
    expect(parse834(other).members).toEqual(expected)
    expect(check834(other)).toEqual([])
    expect(() => new X12Parser(true).parse(other)).not.toThrow()
  })

  it('when a carrier audit file (INS03 030, INS04 XN) is read, then members come back as a census with audit maintenance', async () => {
    const audit = ALL_MEMBERS.map((m) => ({ ...m, maintenance: 'audit' as const, reason: 'audit' as const, coverages: m.coverages.map((c) => ({ ...c, maintenance: 'audit' as const })) }))
    const text = await write834ToString(ENVELOPE, { ...REPLACE_HEADER, action: 'verify' }, audit)
    expect(text).toContain('INS*Y*18*030*XN*A***FT**N~')
    expect(check834(text)).toEqual([])
    const parsed = parse834(text)
    expect(parsed.header.action).toBe('verify')
    expect(parsed.members).toEqual(audit)
  })
})

describe('parse834 errors', () => {
  const valid = (): Promise<string> => write834ToString(ENVELOPE, REPLACE_HEADER, ALL_MEMBERS)

  it('when the text is not X12, then an Edi834ParseError says so', () => {
    expect(() => parse834('name,ssn\nAda,123')).toThrow(Edi834ParseError)
    expect(() => parse834('')).toThrow(/ISA/)
  })

  it('when a member lacks REF*0F or DMG, or a coverage lacks DTP*348, then the error names the segment position', async () => {
    const text = await valid()
    const noRef = text.replace('REF*0F*EMP-002~\n', '')
    expect(() => parse834(noRef)).toThrow(expect.objectContaining({ code: 'missing_segment', position: 82 }))
    expect(() => parse834(text.replace('DMG*D8*19791231*F~\n', ''))).toThrow(/no DMG/)
    expect(() => parse834(text.replace('HD*021**DEN*Dental Base*ECH~\nDTP*348*D8*20250201~\n', 'HD*021**DEN*Dental Base*ECH~\n'))).toThrow(/HD without DTP\*348/)
  })

  it('when a code has no word in the service or a date is not a date, then the error is typed', async () => {
    const text = await valid()
    expect(() => parse834(text.replace('INS*N*01*', 'INS*N*38*'))).toThrow(expect.objectContaining({ code: 'unsupported_code' }))
    expect(() => parse834(text.replace('DMG*D8*19850314', 'DMG*D8*19851314'))).toThrow(expect.objectContaining({ code: 'bad_value' }))
    expect(() => parse834(text.replace('HD*021**DEN', 'HD*021**XYZ'))).toThrow(/HD03 'XYZ'/)
    // INS07 8 (bankruptcy of the retiree's former employer) is valid X12 but has no word here
    expect(() => parse834(text.replace('INS*Y*18*021*28*A***FT', 'INS*Y*18*021*28*C**8*FT'))).toThrow(/INS07 '8'/)
  })

  it('when a valid file is cut or corrupted anywhere, then parsing answers or throws Edi834ParseError, never another error, and check834 never throws', async () => {
    const text = await valid()
    fc.assert(
      fc.property(fc.nat(text.length), fc.nat(40), fc.string({ unit: 'binary', maxLength: 6 }), (at, cut, insert) => {
        const broken = text.slice(0, at) + insert + text.slice(at + cut)
        try {
          parse834(broken)
        } catch (error) {
          expect(error).toBeInstanceOf(Edi834ParseError)
        }
        expect(Array.isArray(check834(broken))).toBe(true)
      }),
      { numRuns: 300 },
    )
  })
})

describe('parse834 with any text', () => {
  const anyText = (maxLength: number) => fc.tuple(fc.constantFrom('A', 'z', '9'), fc.string({ unit: 'binary', maxLength })).map(([first, rest]) => first + rest)
  const text = anyText(70)

  it('when names, addresses and ids hold any characters, then the file is valid for node-x12 and check834 and reads back sanitised', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, text, text, anyText(40).filter((id) => sanitizeElement(id).length <= 50), async (firstName, lastName, street, city, subscriberIdentifier) => {
        const base = MINIMAL_FAMILY[0]!
        const member: Edi834Member = {
          ...base,
          firstName,
          lastName,
          subscriberIdentifier,
          residentialAddress: { address_line_1: street, address_line_2: null, city: `Ci${city}`, state: 'IL', zip: '62701', fips_county_code: null },
        }
        const file = await write834ToString(ENVELOPE, { ...REPLACE_HEADER, totals: { subscribers: 1, dependents: 0 } }, [member])
        expect(() => new X12Parser(true).parse(file)).not.toThrow()
        expect(check834(file)).toEqual([])
        const [read] = parse834(file).members
        expect(read?.firstName).toBe(sanitizeElement(firstName, 35))
        expect(read?.lastName).toBe(sanitizeElement(lastName, 60))
        expect(read?.subscriberIdentifier).toBe(sanitizeElement(subscriberIdentifier))
        expect(read?.residentialAddress?.address_line_1).toBe(sanitizeElement(street, 55))
        expect(read?.residentialAddress?.city).toBe(sanitizeElement(`Ci${city}`, 30))
      }),
      { numRuns: 60 },
    )
  })
})
