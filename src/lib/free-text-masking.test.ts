import { describe, expect, it } from 'vitest'
import { maskSsnsInJson, maskSsnsInText } from './free-text-masking.js'

describe('maskSsnsInText', () => {
  it.each([
    ['SSN 123-45-6789 on file', 'SSN ***-**-6789 on file'],
    ['SSN 123 45 6789 on file', 'SSN ***-**-6789 on file'],
    ['SSN 123456789 on file', 'SSN ***-**-6789 on file'],
    ['123456789', '***-**-6789'],
    ['ssn:123456789.', 'ssn:***-**-6789.'],
    ['(123-45-6789)', '(***-**-6789)'],
    ['"123456789"', '"***-**-6789"'],
    ['ITIN 912-70-1234', 'ITIN ***-**-1234'],
    ['two: 123456789 987654321', 'two: ***-**-6789 ***-**-4321'],
    ['line\n123-45-6789\nend', 'line\n***-**-6789\nend'],
    ['member 123456789-01 and 123-45-6789-2.', 'member ***-**-6789-01 and ***-**-6789-2.'],
  ])('when the text is %j, then the SSN-shaped number is masked to its last four', (text, masked) => {
    expect(maskSsnsInText(text)).toBe(masked)
  })

  it.each([
    ['a phone number', 'call 555-123-4567 or 5551234567'],
    ['a date', 'born 1985-03-14, seen 03/14/1985'],
    ['a longer digit run', 'order 1234567890 and 0123456789012'],
    ['a decimal or an amount', 'total 123456789.50 or 0.123456789'],
    ['an id with letters', 'member A123456789 and ref 123456789X and id_123456789'],
    ['an id with a prefix or a longer suffix', '01-123-45-6789 and 1/123456789 and 123-45-6789-012 and 123456789-01-5'],
    ['a UUID', '0193a4b2-0000-7000-8000-000123456789'],
    ['mixed separators', '123-45 6789 and 12345-6789'],
    ['a number never issued', '000-12-3456 666-12-3456 123-00-4567 123-45-0000'],
    ['nine digits grouped otherwise', 'FEIN 12-3456789'],
  ])('when the text holds %s, then it is left as it is', (_what, text) => {
    expect(maskSsnsInText(text)).toBe(text)
  })
})

describe('maskSsnsInJson', () => {
  it('when a value holds SSNs in strings, keys or as a nine-digit number, then each is masked and the rest kept', () => {
    expect(maskSsnsInJson({ note: 'ssn 123-45-6789', id: 123456789, count: 12, list: ['123 45 6789', 5551234567, null, true], '123456789': 'x' })).toEqual({
      note: 'ssn ***-**-6789',
      id: '***-**-6789',
      count: 12,
      list: ['***-**-6789', 5551234567, null, true],
      '***-**-6789': 'x',
    })
  })

  it('when an object has a "__proto__" key, then it stays an ordinary key', () => {
    const masked = maskSsnsInJson(JSON.parse('{"__proto__": {"a": "123456789"}}')) as Record<string, unknown>
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype)
    expect(JSON.stringify(masked)).toBe('{"__proto__":{"a":"***-**-6789"}}')
  })
})
