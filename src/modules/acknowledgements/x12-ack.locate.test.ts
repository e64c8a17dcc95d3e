import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { locateFinding, locateFindings } from './x12-ack.locate.js'

const fixture = (name: string): string => readFileSync(new URL(`../../../test/fixtures/x12/${name}`, import.meta.url), 'utf8')
const FIRST_SUBSCRIBER = '01a213b2-dc94-7139-a76f-bbd8e7690d39'
const SPOUSE = '01a213b2-dc95-7081-b8f1-56dfbacc0881'

/** A full file of `families` subscribers, each with one coverage, one segment per line like ours. */
function generated834(families: number): string {
  const lines = ['ISA*00*          *00*          *ZZ*ENROLLSYNC     *ZZ*CARRIER        *261125*1713*^*00501*000000042*0*T*:', 'GS*BE*ENROLLSYNC*CARRIER*20261125*1713*42*X*005010X220A1', 'ST*834*0042*005010X220A1', 'BGN*00*ref*20261125*1713****RX', 'N1*P5*Acme*FI*987654321', 'N1*IN*Carrier*94*carrier']
  for (let i = 0; i < families; i++) {
    lines.push('INS*Y*18*021*28*A***FT', `REF*0F*emp-${i}`, `REF*17*member-${i}`, 'DTP*356*D8*20270101', `NM1*IL*1*Doe*Jane${i}`, 'DMG*D8*19850615*F', 'HD*021**HLT*Gold*EMP', 'DTP*348*D8*20270101', `REF*CE*plan-${i % 7}`)
  }
  lines.push(`SE*${lines.length - 1}*0042`, 'GE*1*42', 'IEA*1*000000042')
  return lines.map((line) => `${line}~\n`).join('')
}

describe('locateFindings', () => {
  it('when many positions of the sample are asked at once, then each answer is what locateFinding answers alone, in the order asked', () => {
    const text = fixture('full-accepted.834.x12')
    const asked = Array.from({ length: 95 }, (_, i) => ({ st02: '0001', position: 95 - i }))
    const batch = locateFindings(text, asked)
    expect(batch).toHaveLength(95)
    batch.forEach((found, i) => {
      const single = locateFinding(text, '0001', asked[i]!.position)
      expect(found && { segmentId: found.segmentId, memberId: found.memberId, planExternalId: found.planExternalId }).toEqual(single)
    })
  })

  it('when a finding is located, then the segment\'s qualifier and loop come with it', () => {
    const positions = [1, 2, 3, 7, 8, 9, 10, 12, 15, 17, 19, 20, 22, 24, 92]
    const found = locateFindings(fixture('full-accepted.834.x12'), positions.map((position) => ({ st02: '0001', position })))
    expect(found.map((f) => [f?.segmentId, f?.qualifier, f?.loopId, f?.memberId === FIRST_SUBSCRIBER])).toEqual([
      ['ST', '834', null, false],
      ['BGN', '00', null, false],
      ['DTP', '007', null, false],
      ['N1', 'P5', '1000A', false],
      ['N1', 'IN', '1000B', false],
      ['N1', 'BO', '1000C', false],
      ['INS', 'Y', '2000', true],
      ['REF', '17', '2000', true],
      ['NM1', 'IL', '2100A', true],
      ['N3', '12 Elm St', '2100A', true],
      ['DMG', 'D8', '2100A', true],
      ['HD', '021', '2300', true],
      ['REF', 'CE', '2300', true],
      ['DTP', '348', '2300', true],
      ['SE', '92', null, false],
    ])
    expect(found[12]).toMatchObject({ planExternalId: 'gold-ppo' })
    expect(found[13]).toMatchObject({ planExternalId: 'dental-base' })
  })

  it('when a finding is the INS itself, then the member is its REF*17, read after it', () => {
    const [ins, spouseIns] = locateFindings(fixture('full-accepted.834.x12'), [{ st02: '0001', position: 10 }, { st02: '0001', position: 26 }])
    expect(ins).toMatchObject({ segmentId: 'INS', memberId: FIRST_SUBSCRIBER, planExternalId: null })
    expect(spouseIns).toMatchObject({ segmentId: 'INS', memberId: SPOUSE })
  })

  it('when AK2-02 names the set without its padding, then it is the same set: control numbers are compared as numbers', () => {
    const [found] = locateFindings(fixture('full-accepted.834.x12'), [{ st02: '1', position: 19 }])
    expect(found).toMatchObject({ segmentId: 'DMG', memberId: FIRST_SUBSCRIBER })
  })

  it('when positions are outside the set, not whole numbers, or of an unknown set, then those answers are null and the others still come', () => {
    const found = locateFindings(fixture('full-accepted.834.x12'), [
      { st02: '0001', position: 0 },
      { st02: '0001', position: 1.5 },
      { st02: '0001', position: 93 },
      { st02: '0007', position: 10 },
      { st02: '0001', position: 19 },
      { st02: '0001', position: 19 },
    ])
    expect(found.map((f) => f?.segmentId ?? null)).toEqual([null, null, null, null, 'DMG', 'DMG'])
  })

  it('when the text is not X12, then nothing is located', () => {
    expect(locateFindings('hello', [{ st02: '0001', position: 1 }])).toEqual([null])
    expect(locateFindings('', [])).toEqual([])
  })

  it('when the file has no line breaks, or CRLF ones, then positions are the same', () => {
    const text = fixture('full-accepted.834.x12')
    for (const variant of [text.replace(/~\n/g, '~'), text.replace(/~\n/g, '~\r\n')]) {
      expect(locateFindings(variant, [{ st02: '0001', position: 22 }])).toEqual(locateFindings(text, [{ st02: '0001', position: 22 }]))
    }
  })

  it('when the set ends without its SE, then positions past the cut are nowhere', () => {
    const text = fixture('full-accepted.834.x12').replace(/SE\*92\*0001~\n/, '')
    expect(locateFindings(text, [{ st02: '0001', position: 91 }, { st02: '0001', position: 92 }]).map((f) => f?.segmentId ?? null)).toEqual(['REF', null])
  })

  it('when 1,000 findings are asked of a 20,000-family file, then each names its own member and plan', () => {
    const text = generated834(20_000)
    // Family i's INS is at 5 + 9i (ST = 1, three header segments after it, nine per family); its DMG 5 further.
    const families = Array.from({ length: 1000 }, (_, k) => k * 19 + 3)
    const found = locateFindings(text, families.flatMap((i) => [{ st02: '42', position: 5 + 9 * i + 5 }, { st02: '0042', position: 5 + 9 * i + 7 }]))
    families.forEach((i, k) => {
      expect(found[2 * k]).toEqual({ segmentId: 'DMG', qualifier: 'D8', loopId: '2100A', memberId: `member-${i}`, planExternalId: null })
      expect(found[2 * k + 1]).toEqual({ segmentId: 'DTP', qualifier: '348', loopId: '2300', memberId: `member-${i}`, planExternalId: `plan-${i % 7}` })
    })
  })
})
