import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Edi834ParseError, Edi834WriteError } from './edi-834.errors.js'
import { ISA_LENGTH, envelopeStamps, fromD8, isaElements, sanitizeElement, segment, serializeSegment, toD8 } from './x12-segments.js'
import { tokenizeX12 } from './x12-tokenize.js'

const ISA_FIELDS = {
  senderQualifier: 'ZZ',
  senderId: 'ENROLLSYNC',
  receiverQualifier: '30',
  receiverId: '123456789',
  date: '250115',
  time: '1430',
  controlNumber: 7,
  usage: 'P' as const,
}

describe('sanitizeElement', () => {
  it('when free text holds separators, then they become spaces and the text keeps its case', () => {
    expect(sanitizeElement("O'Neil*Smith~")).toBe("O'Neil Smith")
    expect(sanitizeElement('a:b^c')).toBe('a b c')
  })

  it('when free text holds control characters or runs of spaces, then they collapse to one space and the ends are trimmed', () => {
    expect(sanitizeElement('  Main\tSt\r\n  Apt\u00004 ')).toBe('Main St Apt 4')
  })

  it('when free text has accents or other non-ASCII characters, then accents are dropped and the rest become spaces', () => {
    expect(sanitizeElement('José Núñez')).toBe('Jose Nunez')
    expect(sanitizeElement('Zoë 😀 Ann')).toBe('Zoe Ann')
    expect(sanitizeElement('full＊width')).toBe('full width') // NFKD turns U+FF0A into '*', which is then removed
  })

  it('when any string is sanitised, then the result is what the regular-expression rules give (the fast scan changes nothing)', () => {
    // The rules as they were written before the scan replaced the first test: the reference.
    const reference = (value: string): string =>
      /[^\x20-\x7E]|[*:^~]|^ | $| {2}/.test(value)
        ? value.normalize('NFKD').replace(/[\u0300-\u036F]/g, '').replace(/[^\x20-\x7E]|[*:^~]/g, ' ').replace(/ {2,}/g, ' ').trim()
        : value
    const tricky = fc.constantFrom(' ', '  ', '*', ':', '^', '~', '\t', '\u007f', 'é', 'a', 'Z', '9', '-', "'", '\u{1F600}')
    const texts = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.array(tricky, { maxLength: 12 }).map((parts) => parts.join('')))
    fc.assert(fc.property(texts, (text) => sanitizeElement(text) === reference(text)), { numRuns: 2000 })
    for (const text of ['', ' ', 'a ', ' a', 'a  b', 'a b', '~', 'ok', 'A*B', '\u007e', '\u007f', '\u0020x\u0020']) expect(sanitizeElement(text)).toBe(reference(text))
  })

  it('when a segment ends in empty or cleaned-away elements, then they are dropped and inner empty elements kept', () => {
    expect(segment('INS', 'Y', '18', null, '', 'A', null, null)).toEqual(['INS', 'Y', '18', '', '', 'A'])
    expect(segment('LE', '2700')).toEqual(['LE', '2700'])
    expect(segment('NM1', null, '***', undefined)).toEqual(['NM1'])
  })

  it('when a maximum length is given, then the text is cut to it without a trailing space', () => {
    expect(sanitizeElement('Abcde fghij', 6)).toBe('Abcde')
  })

  it('when any string is sanitised, then the result has only printable ASCII, no separator, no double space, and sanitising again changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }), (text, max) => {
        const clean = sanitizeElement(text, max)
        expect(clean).toMatch(/^[\x20-\x7E]*$/)
        expect(clean).not.toMatch(/[*:^~]|^ | $| {2}/)
        if (max !== undefined) expect(clean.length).toBeLessThanOrEqual(max)
        expect(sanitizeElement(clean, max)).toBe(clean)
      }),
    )
  })
})

describe('segment and serializeSegment', () => {
  it('when trailing elements are empty, then they are dropped while inner empty elements stay', () => {
    expect(serializeSegment(segment('INS', 'Y', '18', '021', '28', 'A', null, null, 'FT', null, null))).toBe('INS*Y*18*021*28*A***FT~\n')
  })

  it('when a value holds separators, then the serialised segment still has exactly its own elements', () => {
    const text = serializeSegment(segment('NM1', 'IL', '1', 'Smith*Jones~NM1*XX', 'Ann'))
    expect(text).toBe('NM1*IL*1*Smith Jones NM1 XX*Ann~\n')
    expect(text.split('*')).toHaveLength(5)
  })
})

describe('ISA', () => {
  it('when the ISA is written, then it is exactly 106 characters up to and including the terminator', () => {
    const text = serializeSegment(['ISA', ...isaElements(ISA_FIELDS)])
    expect(text.indexOf('~') + 1).toBe(ISA_LENGTH)
    expect(text).toBe('ISA*00*          *00*          *ZZ*ENROLLSYNC     *30*123456789      *250115*1430*^*00501*000000007*0*P*:~\n')
  })

  it('when a sender id is longer than 15 characters or holds a separator, then writing refuses it', () => {
    expect(() => isaElements({ ...ISA_FIELDS, senderId: 'X'.repeat(16) })).toThrow(Edi834WriteError)
    expect(() => isaElements({ ...ISA_FIELDS, receiverId: 'A*B' })).toThrow(/ISA08/)
    expect(() => isaElements({ ...ISA_FIELDS, controlNumber: 1_000_000_000 })).toThrow(/ISA13/)
  })
})

describe('dates', () => {
  it('when an ISO date is converted, then it becomes CCYYMMDD and back', () => {
    expect(toD8('2025-02-01')).toBe('20250201')
    expect(fromD8('20250201')).toBe('2025-02-01')
  })

  it('when a date is not a real calendar date, then writing refuses it and reading answers null', () => {
    expect(() => toD8('2025-02-30')).toThrow(Edi834WriteError)
    expect(() => toD8('02/01/2025')).toThrow(Edi834WriteError)
    expect(fromD8('20250230')).toBeNull()
    expect(fromD8('2025021')).toBeNull()
  })

  it('when envelope stamps are made, then they are in UTC whatever the local zone', () => {
    expect(envelopeStamps(new Date('2025-12-31T23:59:00-05:00'))).toEqual({ d8: '20260101', d6: '260101', hhmm: '0459' })
  })
})

describe('tokenizeX12', () => {
  const isa = (element: string, component: string, terminator: string): string =>
    ['ISA', ...isaElements(ISA_FIELDS).slice(0, 15), component].join(element) + terminator

  it('when a file declares other separators in its ISA, then they are used to split it', () => {
    const text = `${isa('|', '>', '!')}GS|BE|A|B!ST|834|0001!SE|2|0001!`
    const tokens = tokenizeX12(text)
    expect(tokens.separators).toEqual({ element: '|', component: '>', repetition: '^', segment: '!' })
    expect(tokens.segments.map((s) => s.id)).toEqual(['ISA', 'GS', 'ST', 'SE'])
    expect(tokens.segments[2]?.elements).toEqual(['834', '0001'])
    expect(tokens.isaLength).toBe(106)
  })

  it('when segments are separated by CRLF or nothing, then the same segments come out', () => {
    const body = ['GS*BE*A*B', 'ST*834*0001', 'SE*2*0001']
    const plain = tokenizeX12(`${isa('*', ':', '~')}${body.join('~')}~`)
    const crlf = tokenizeX12(`\uFEFF${isa('*', ':', '~')}\r\n${body.join('~\r\n')}~\r\n`)
    expect(crlf.segments).toEqual(plain.segments)
    expect(crlf.trailing).toBe('')
  })

  it('when text does not start with an ISA or the ISA is cut short, then a typed parse error is thrown', () => {
    expect(() => tokenizeX12('hello')).toThrow(Edi834ParseError)
    expect(() => tokenizeX12('ISA*00*  *00')).toThrow(Edi834ParseError)
    expect(() => tokenizeX12(`${isa('*', '*', '~')}`)).toThrow(/separators/)
  })
})
