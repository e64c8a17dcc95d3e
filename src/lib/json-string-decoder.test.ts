import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { JsonStringDecoder, JsonStringSyntaxError } from './json-string-decoder.js'
import { isStorableText } from './storable-text.js'

/**
 * The decoder must give what JSON.parse gives for the same string, however the raw bytes are cut
 * (inside a multi-byte character, inside `\uXXXX`, between a surrogate pair's two escapes), and
 * say what the database could not store: the oracle is JSON.parse and isStorableText.
 */

/**
 * The string's inside as a client may send it: every `escapeEvery`-th code unit as \\uXXXX (and
 * always the ones JSON requires escaped, and surrogates, which UTF-8 cannot carry alone), a few as
 * their short escapes, the others as UTF-8.
 */
function rawOf(value: string, escapeEvery: number): Buffer {
  let raw = ''
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    const mustEscape = code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)
    if (code === 0x0a && i % 2 === 0) raw += '\\n'
    else if (code === 0x2f && i % 2 === 0) raw += '\\/'
    else if (mustEscape || i % escapeEvery === 0) raw += `\\u${code.toString(16).padStart(4, '0')}`
    else raw += value[i]
  }
  return Buffer.from(raw, 'utf8')
}

function decodeInPieces(raw: Buffer, cuts: readonly number[]): { text: string; characters: number; unstorable: boolean } {
  const decoder = new JsonStringDecoder()
  let text = ''
  let from = 0
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    text += decoder.push(raw.subarray(from, Math.max(from, cut)))
    from = Math.max(from, cut)
  }
  text += decoder.push(raw.subarray(from))
  text += decoder.end()
  return { text, characters: decoder.characters, unstorable: decoder.unstorable }
}

describe('JsonStringDecoder', () => {
  it('when any string is sent with any escapes and cut anywhere, then it decodes as JSON.parse does, counts its characters and flags what cannot be stored', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0, 0x0a, 0x2f, 0x22, 0x5c, 0xd83d, 0xde00, 0xe9, 0x20ac)), { maxLength: 40 }).map((units) => String.fromCharCode(...units)), fc.integer({ min: 1, max: 4 }), fc.array(fc.nat(), { maxLength: 6 }), (value, escapeEvery, cuts) => {
        const raw = rawOf(value, escapeEvery)
        const expected = JSON.parse(`"${raw.toString('utf8')}"`) as string
        const decoded = decodeInPieces(
          raw,
          cuts.map((cut) => cut % (raw.length + 1)),
        )
        expect(decoded.text).toBe(expected)
        expect(decoded.characters).toBe([...expected].length)
        expect(decoded.unstorable).toBe(!isStorableText(expected))
      }),
      { numRuns: 500 },
    )
  })

  it('when a surrogate pair is sent as two escapes cut between them, then it is one storable character', () => {
    const raw = Buffer.from('ISA\\ud83d\\ude00~', 'utf8')
    for (let cut = 0; cut <= raw.length; cut++) expect(decodeInPieces(raw, [cut])).toEqual({ text: 'ISA😀~', characters: 5, unstorable: false })
  })

  it('when a NUL or a lone surrogate is escaped, then the text is flagged as unstorable', () => {
    expect(decodeInPieces(Buffer.from('a\\u0000b'), []).unstorable).toBe(true)
    expect(decodeInPieces(Buffer.from('a\\ud800b'), []).unstorable).toBe(true)
    expect(decodeInPieces(Buffer.from('a\\udc00'), []).unstorable).toBe(true)
    expect(decodeInPieces(Buffer.from('ends high \\ud800'), [12]).unstorable).toBe(true)
  })

  it('when the string is not valid JSON, then the decoder says so as JSON.parse would refuse it', () => {
    for (const bad of ['line\nbreak', 'tab\there', 'bad \\x escape', 'short \\u12g4', 'cut \\u12', 'cut \\']) {
      expect(() => JSON.parse(`"${bad}"`)).toThrow(SyntaxError)
      expect(() => decodeInPieces(Buffer.from(bad, 'utf8'), [4])).toThrow(JsonStringSyntaxError)
    }
  })
})
