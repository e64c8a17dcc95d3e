import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { AcknowledgementParseError, parseAcknowledgement, type AcknowledgementInterchange } from './index.js'

const fixture = (name: string): string => readFileSync(new URL(`../../../test/fixtures/x12/${name}`, import.meta.url), 'utf8')
const SAMPLES = ['full-accepted', 'change-accepted', 'full-member-element-errors', 'full-required-segment-missing'] as const

/** ST02 and GS06 of an 834 as written (one group, one set in every sample). */
function controlNumbers(text834: string): { gs06: string; st02: string } {
  const gs = /(?:^|\n)GS\*([^~]*)~/.exec(text834)?.[1]?.split('*') ?? []
  const st = /(?:^|\n)ST\*([^~]*)~/.exec(text834)?.[1]?.split('*') ?? []
  return { gs06: gs[5] ?? '', st02: st[1] ?? '' }
}

function parseError(text: string): AcknowledgementParseError {
  try {
    parseAcknowledgement(text)
  } catch (error) {
    expect(error).toBeInstanceOf(AcknowledgementParseError)
    return error as AcknowledgementParseError
  }
  throw new Error('expected an AcknowledgementParseError')
}

describe('parseAcknowledgement on the validator samples', () => {
  for (const name of SAMPLES) {
    it(`when ${name}.999 is parsed, then AK1 and AK2 carry the GS06 and ST02 of the 834 beside it`, () => {
      const ack = parseAcknowledgement(fixture(`${name}.999.x12`))
      const { gs06, st02 } = controlNumbers(fixture(`${name}.834.x12`))
      expect(ack.ta1s).toEqual([])
      expect(ack.envelope).toMatchObject({ senderId: 'SANDBOX_EDI', receiverId: 'ENROLLSYNC', controlNumber: '611251739', usage: 'T' })
      expect(ack.groups).toHaveLength(1)
      const group = ack.groups[0]!
      expect(group).toMatchObject({ functionalId: 'BE', acknowledgedGroupControlNumber: gs06, version: '005010X220A1' })
      expect(group.transactionSets.map((s) => [s.transactionSetId, s.controlNumber, s.implementationReference])).toEqual([['834', st02, '005010X220A1']])
    })
  }

  it('when the accepted samples are parsed, then set and group are accepted with no findings', () => {
    for (const name of ['full-accepted', 'change-accepted']) {
      const group = parseAcknowledgement(fixture(`${name}.999.x12`)).groups[0]!
      expect(group).toMatchObject({ status: 'accepted', counts: { included: 1, received: 1, accepted: 1 }, errors: [] })
      expect(group.transactionSets[0]).toMatchObject({ status: 'accepted', segments: [], errors: [] })
    }
  })

  it('when the element-error sample is parsed, then DMG at 19 has an invalid date in 1251 and an invalid code in 1068, and the set is rejected', () => {
    const group = parseAcknowledgement(fixture('full-member-element-errors.999.x12')).groups[0]!
    expect(group).toMatchObject({ status: 'rejected', counts: { included: 1, received: 1, accepted: 0 } })
    const set = group.transactionSets[0]!
    expect(set.status).toBe('rejected')
    expect(set.errors).toEqual([{ code: '5', reason: 'segments_in_error' }])
    expect(set.segments).toEqual([{
      segmentId: 'DMG', position: 19, loopId: null, error: { code: '8', reason: 'segment_has_element_errors' },
      elements: [
        { position: 2, componentPosition: null, repetition: null, dataElement: 1251, error: { code: '8', reason: 'invalid_date' } },
        { position: 3, componentPosition: null, repetition: null, dataElement: 1068, error: { code: '7', reason: 'invalid_code_value' } },
      ],
    }])
  })

  it('when the element-error sample is parsed, then the model holds no copy of the bad birth date', () => {
    const model: AcknowledgementInterchange = parseAcknowledgement(fixture('full-member-element-errors.999.x12'))
    expect(fixture('full-member-element-errors.999.x12')).toContain('1985061')
    expect(JSON.stringify(model)).not.toContain('1985061')
  })

  it('when the missing-segment sample is parsed, then REF at 46 is a required segment missing', () => {
    const set = parseAcknowledgement(fixture('full-required-segment-missing.999.x12')).groups[0]!.transactionSets[0]!
    expect(set.segments).toEqual([{ segmentId: 'REF', position: 46, loopId: null, error: { code: '3', reason: 'required_segment_missing' }, elements: [] }])
    expect(set.status).toBe('rejected')
  })
})

describe('parseAcknowledgement on TA1s', () => {
  const isa = 'ISA*00*          *00*          *ZZ*SANDBOX_EDI    *ZZ*ENROLLSYNC     *261125*1739*^*00501*000000007*0*T*:~\n'

  it('when a TA1 comes alone in its interchange, then it is read with its status and note in words', () => {
    const ack = parseAcknowledgement(`${isa}TA1*000000001*261125*1713*R*022~\nIEA*0*000000007~\n`)
    expect(ack.groups).toEqual([])
    expect(ack.ta1s).toEqual([{ acknowledgedControlNumber: '000000001', date: '261125', time: '1713', status: 'rejected', note: { code: '022', reason: 'invalid_control_structure' } }])
  })

  it('when a TA1 comes before the 999 group, then both are read', () => {
    const sample = fixture('full-accepted.999.x12')
    const withTa1 = sample.replace(/(ISA\*[^~]*~\s*)/, '$1TA1*000000001*261125*1713*A*000~\n')
    const ack = parseAcknowledgement(withTa1)
    expect(ack.ta1s.map((t) => [t.status, t.note.code])).toEqual([['accepted', '000']])
    expect(ack.groups).toHaveLength(1)
  })
})

describe('parseAcknowledgement on what is not an acknowledgement', () => {
  it('when an 834 is posted, then it is not an acknowledgement', () => {
    expect(parseError(fixture('full-accepted.834.x12')).code).toBe('not_an_acknowledgement')
  })

  it('when the text is empty or not X12, then it says so', () => {
    expect(parseError('').code).toBe('empty')
    expect(parseError('  \n').code).toBe('empty')
    expect(parseError('hello, this is a PDF').code).toBe('not_x12')
  })

  it('when a 999 is cut short, then it is truncated, mid-segment or at a terminator', () => {
    const sample = fixture('full-member-element-errors.999.x12')
    expect(parseError(sample.slice(0, sample.indexOf('IK5') + 2)).code).toBe('truncated')
    expect(parseError(sample.slice(0, sample.indexOf('AK9'))).code).toBe('truncated')
  })

  it('when SE01 does not count the segments, then it is a control mismatch naming SE01 and not echoing values', () => {
    const error = parseError(fixture('full-member-element-errors.999.x12').replace('SE*9*0001', 'SE*8*0001'))
    expect(error.code).toBe('control_mismatch')
    expect(error.message).toContain('SE01')
    expect(error.message).not.toContain('1985061')
  })

  it('when ST01 is not 999, AK1 is missing, or IEA02 differs from ISA13, then each is refused with its code', () => {
    const sample = fixture('full-accepted.999.x12')
    expect(parseError(sample.replace('ST*999*', 'ST*997*')).code).toBe('not_an_acknowledgement')
    expect(parseError(sample.replace(/AK1\*[^~]*~\s*/, '').replace('SE*6*', 'SE*5*'))).toMatchObject({ code: 'missing_segment' })
    expect(parseError(sample.replace('IEA*1*611251739', 'IEA*1*611251738')).code).toBe('control_mismatch')
  })

  it('when an IK4-04 holds a value, then an error about the IK4 never echoes it', () => {
    const sample = fixture('full-member-element-errors.999.x12').replace('IK4*2*1251*8*1985061', 'IK4*X*1251*8*1985061')
    const error = parseError(sample)
    expect(error.code).toBe('bad_value')
    expect(error.message).toContain('IK401')
    expect(error.message).not.toContain('1985061')
  })
})
