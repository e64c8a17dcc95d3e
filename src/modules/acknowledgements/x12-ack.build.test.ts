import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { answer834, build999, buildTa1, locateFinding, parseAcknowledgement } from './index.js'

const fixture = (name: string): string => readFileSync(new URL(`../../../test/fixtures/x12/${name}`, import.meta.url), 'utf8')
const OPTIONS = { controlNumber: 900, groupControlNumber: 77, at: new Date('2026-11-25T17:40:00Z') }
const FIRST_SUBSCRIBER = '01a213b2-dc94-7139-a76f-bbd8e7690d39'
const SECOND_SUBSCRIBER = '01a213b2-dc95-7083-9b58-7d56ac454f2a'

/** Replaces exactly one occurrence, so a test cannot silently edit nothing. */
function breakOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from)
  expect(at, `'${from}' is in the file`).toBeGreaterThanOrEqual(0)
  return text.slice(0, at) + to + text.slice(at + from.length)
}

describe('build999 and buildTa1', () => {
  for (const name of ['full-accepted', 'change-accepted']) {
    it(`when ${name}.834 is answered, then the TA1 and the 999 accept it, addressed back to the service`, () => {
      const text = fixture(`${name}.834.x12`)
      const ta1 = buildTa1(text, OPTIONS)!.acknowledgement
      expect(ta1.envelope).toMatchObject({ senderId: 'SANDBOX_EDI', receiverId: 'ENROLLSYNC', controlNumber: '000000900' })
      expect(ta1.ta1s).toEqual([{ acknowledgedControlNumber: /ISA(?:\*[^*]*){12}\*(\d{9})/.exec(text)![1], date: '261125', time: '1713', status: 'accepted', note: { code: '000', reason: 'no_error' } }])
      const ack = build999(text, OPTIONS)!
      expect(ack.x12).toContain('GS*FA*SANDBOX_EDI*ENROLLSYNC*')
      const group = ack.acknowledgement.groups[0]!
      expect(group).toMatchObject({ status: 'accepted', ackGroupControlNumber: '77', counts: { included: 1, received: 1, accepted: 1 } })
      expect(group.transactionSets).toMatchObject([{ status: 'accepted', segments: [] }])
    })
  }

  it('when the element-error sample is answered, then the 999 names DMG at 19 in 2100A with the validator\'s IK4 codes and keeps no birth date', () => {
    const built = build999(fixture('full-member-element-errors.834.x12'), OPTIONS)!
    const set = built.acknowledgement.groups[0]!.transactionSets[0]!
    expect(set).toMatchObject({ controlNumber: '0001', status: 'rejected', errors: [{ code: '5' }] })
    expect(set.segments.map((s) => [s.segmentId, s.position, s.loopId, s.error?.code, s.elements.map((e) => [e.position, e.dataElement, e.error.code])]))
      .toEqual([['DMG', 19, '2100A', '8', [[2, 1251, '8'], [3, 1068, '7']]]])
    expect(built.acknowledgement.groups[0]!.status).toBe('rejected')
    expect(built.x12).not.toContain('1985061')
    expect(JSON.stringify(built.acknowledgement)).not.toContain('1985061')
  })

  it('when a required REF*0F is missing, then the 999 reports REF missing (3) in loop 2000 of the second subscriber', () => {
    const text = fixture('full-required-segment-missing.834.x12')
    const set = build999(text, OPTIONS)!.acknowledgement.groups[0]!.transactionSets[0]!
    expect(set.segments).toMatchObject([{ segmentId: 'REF', loopId: '2000', error: { code: '3' }, elements: [] }])
    expect(locateFinding(text, set.controlNumber, set.segments[0]!.position)).toMatchObject({ memberId: SECOND_SUBSCRIBER })
  })

  it('when DMG02 is an impossible date and DMG03 a made-up gender in a file we break, then the 999 read back has IK4 8 and 7 and no copy of the date', () => {
    const broken = breakOnce(fixture('full-accepted.834.x12'), 'DMG*D8*19840202*M', 'DMG*D8*19840231*X')
    const built = build999(broken, OPTIONS)!
    const reread = parseAcknowledgement(built.x12)
    expect(reread).toEqual(built.acknowledgement)
    const finding = reread.groups[0]!.transactionSets[0]!.segments[0]!
    expect(finding.elements.map((e) => [e.position, e.dataElement, e.error.reason])).toEqual([[2, 1251, 'invalid_date'], [3, 1068, 'invalid_code_value']])
    expect(locateFinding(broken, '0001', finding.position)).toEqual({ segmentId: 'DMG', memberId: '01a213b2-dc95-7081-b8f1-56dfbacc0881', planExternalId: null })
    expect(built.x12 + JSON.stringify(reread)).not.toContain('19840231')
  })

  it('when SE01 is wrong, then the set is rejected with IK5 code 4 and no IK3', () => {
    const set = build999(breakOnce(fixture('change-accepted.834.x12'), 'SE*24*0002', 'SE*23*0002'), OPTIONS)!.acknowledgement.groups[0]!.transactionSets[0]!
    expect(set).toMatchObject({ status: 'rejected', segments: [], errors: [{ code: '4', reason: 'segment_count_mismatch' }] })
  })

  it('when IEA02 does not match ISA13, then the TA1 rejects with note 001 and no 999 is built', () => {
    const broken = breakOnce(fixture('change-accepted.834.x12'), 'IEA*1*000000002', 'IEA*1*000000003')
    expect(buildTa1(broken, OPTIONS)!.acknowledgement.ta1s[0]).toMatchObject({ status: 'rejected', note: { code: '001' } })
    expect(build999(broken, OPTIONS)).toBeNull()
  })

  it('when the 834 is cut before its IEA, then the TA1 rejects it as an early end', () => {
    const text = fixture('change-accepted.834.x12')
    const cut = text.slice(0, text.indexOf('IEA'))
    expect(buildTa1(cut, OPTIONS)!.acknowledgement.ta1s[0]!.note).toEqual({ code: '023', reason: 'premature_end_of_file' })
  })

  it('when the text is not X12, then there is nothing to acknowledge', () => {
    expect(buildTa1('hello', OPTIONS)).toBeNull()
    expect(build999('hello', OPTIONS)).toBeNull()
  })

  it('when a built TA1 is parsed, then the round trip gives the same model', () => {
    const built = buildTa1(fixture('full-accepted.834.x12'), OPTIONS)!
    expect(built.x12).toMatch(/^ISA.{102}~\nTA1\*000000001\*261125\*1713\*A\*000~\nIEA\*0\*000000900~\n$/)
    expect(parseAcknowledgement(built.x12)).toEqual(built.acknowledgement)
  })
})

describe('locateFinding', () => {
  it('when the validator\'s DMG finding is located, then it is the first subscriber\'s DMG, outside any coverage', () => {
    expect(locateFinding(fixture('full-member-element-errors.834.x12'), '0001', 19)).toEqual({ segmentId: 'DMG', memberId: FIRST_SUBSCRIBER, planExternalId: null })
  })

  it('when the validator\'s missing REF finding is located, then it lies in the second subscriber\'s member loop', () => {
    expect(locateFinding(fixture('full-required-segment-missing.834.x12'), '0001', 46)).toEqual({ segmentId: 'DTP', memberId: SECOND_SUBSCRIBER, planExternalId: null })
  })

  it('when a finding lies in a coverage loop, then the plan\'s REF*CE is named too', () => {
    // ST=1 ... the first subscriber's second HD (dental) is at 23, its DTP*348 at 24.
    expect(locateFinding(fixture('full-accepted.834.x12'), '0001', 24)).toEqual({ segmentId: 'DTP', memberId: FIRST_SUBSCRIBER, planExternalId: 'dental-base' })
    expect(locateFinding(fixture('full-accepted.834.x12'), '0001', 21)).toEqual({ segmentId: 'DTP', memberId: FIRST_SUBSCRIBER, planExternalId: 'gold-ppo' })
  })

  it('when a finding lies in the header, past SE, or in another set, then it has no member, or no location', () => {
    const text = fixture('full-accepted.834.x12')
    expect(locateFinding(text, '0001', 2)).toEqual({ segmentId: 'BGN', memberId: null, planExternalId: null })
    expect(locateFinding(text, '0001', 92)).toEqual({ segmentId: 'SE', memberId: null, planExternalId: null })
    expect(locateFinding(text, '0001', 93)).toBeNull()
    expect(locateFinding(text, '0002', 5)).toBeNull()
  })
})

describe('answer834', () => {
  for (const name of ['full-accepted', 'change-accepted', 'full-member-element-errors', 'full-required-segment-missing']) {
    it(`when ${name}.834 is answered in one reading, then its TA1 and 999 are those buildTa1 and build999 give`, () => {
      const text = fixture(`${name}.834.x12`)
      const answer = answer834(text, { ...OPTIONS, groupControlNumber: undefined, ack999ControlNumber: 901 })!
      expect(answer.ta1.x12).toBe(buildTa1(text, { controlNumber: OPTIONS.controlNumber, at: OPTIONS.at })!.x12)
      expect(answer.ack999!.x12).toBe(build999(text, { controlNumber: 901, at: OPTIONS.at })!.x12)
    })
  }

  it('when the interchange is rejected, then only the TA1 answers it', () => {
    const text = breakOnce(fixture('full-accepted.834.x12'), 'IEA*1*000000001', 'IEA*1*000000002')
    const answer = answer834(text, { ...OPTIONS, ack999ControlNumber: 901 })!
    expect(answer.ta1.acknowledgement.ta1s[0]!.status).toBe('rejected')
    expect(answer.ack999).toBeNull()
  })

  it('when the text is not X12, then there is nothing to answer', () => {
    expect(answer834('hello', { ...OPTIONS, ack999ControlNumber: 901 })).toBeNull()
  })
})
