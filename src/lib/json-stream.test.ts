import { describe, expect, it } from 'vitest'
import { JsonStreamError, JsonStreamScanner, type JsonStreamOptions, type ShellValue } from './json-stream.js'

/**
 * The scanner must read a document the same whatever pieces it arrives in (a socket and a file
 * reader cut it anywhere: inside a string, an escape, a multi-byte character, a number, a key),
 * and what it reads must be what JSON.parse reads. So every document here is scanned whole, split
 * at every byte boundary, and one byte at a time, and each result is compared with the whole one
 * and with JSON.parse's.
 */

const ARRAY_PATH = ['census_request', 'subscribers'] as const

interface Scanned {
  elements: string[]
  shell: ShellValue[]
  count: number
  sawArray: boolean
}

function scan(chunks: readonly Buffer[], options: Partial<JsonStreamOptions> = {}): Scanned {
  const scanner = new JsonStreamScanner({ arrayPath: ARRAY_PATH, maxDepth: 64, ...options })
  const elements: string[] = []
  for (const chunk of chunks) {
    scanner.push(chunk)
    elements.push(...scanner.elements)
    scanner.elements = []
  }
  scanner.end()
  return { elements, shell: scanner.shellValues, count: scanner.elementCount, sawArray: scanner.sawArray }
}

/** The document whole, cut at every byte boundary into two, and one byte at a time. */
function* splits(document: Buffer): Generator<{ name: string; chunks: Buffer[] }> {
  yield { name: 'whole', chunks: [document] }
  for (let at = 0; at <= document.length; at++) yield { name: `split at ${at}`, chunks: [document.subarray(0, at), document.subarray(at)] }
  yield { name: '1-byte chunks', chunks: [...document].map((byte) => Buffer.from([byte])) }
  // Three pieces with an empty one between (a reader may hand over nothing).
  const third = Math.floor(document.length / 3)
  yield { name: 'three with an empty one', chunks: [document.subarray(0, third), Buffer.alloc(0), document.subarray(third, 2 * third), document.subarray(2 * third)] }
}

/** What the scanner read, put back together as a value: the oracle is JSON.parse of the document. */
function rebuild(scanned: Scanned): unknown {
  let root: unknown = {}
  for (const { path, text } of scanned.shell) {
    if (path.length === 0) {
      if (text !== null) root = JSON.parse(text)
      continue
    }
    let target = root as Record<string, unknown>
    for (const key of path.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>
    const last = path[path.length - 1]!
    if (text !== null) target[last] = JSON.parse(text)
    else target[last] ??= {}
  }
  if (scanned.sawArray) ((root as Record<string, Record<string, unknown>>).census_request!).subscribers = scanned.elements.map((text) => JSON.parse(text))
  return root
}

function scanError(chunks: readonly Buffer[], options: Partial<JsonStreamOptions> = {}): JsonStreamError {
  try {
    scan(chunks, options)
  } catch (error) {
    expect(error).toBeInstanceOf(JsonStreamError)
    return error as JsonStreamError
  }
  throw new Error('the document was read without an error')
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf])

const VALID: Record<string, string> = {
  'elements of every kind, strings full of brackets, braces, quotes and backslashes': JSON.stringify({
    census_request: {
      as_of: '2027-01-01',
      subscribers: [
        { first_name: 'A]}[{"\\', last_name: '\\"', nested: { list: [1, [2, [3]], { x: '}' }] } },
        [1, [2], { a: [] }, {}],
        'a string ] with } a [ bracket {',
        '\\',
        '"',
        12.5e-3,
        -0,
        0,
        1e21,
        true,
        false,
        null,
        {},
        [],
      ],
      x12_834: null,
    },
    other: { deep: [{ k: '}' }], n: -1.5, t: true, empty: {}, list: [] },
  }),
  // A quote ends its string only after an even run of backslashes (the scanner jumps from quote to quote).
  'runs of backslashes before quotes, inside and outside the array': JSON.stringify({
    census_request: {
      as_of: '\\\\"\\',
      subscribers: [{ a: '\\', b: '\\\\', c: '\\"', d: 'x\\\\"\\\\\\"y', e: '"\\"\\\\"' }, '\\\\\\', ['\\"]', '[\\'], { '\\"}': '{\\\\' }],
    },
    'k\\"': '\\',
  }),
  'shell values before and after the array, the array in the middle': JSON.stringify({ before: [1, { a: 'b' }], census_request: { as_of: 'x', subscribers: [{ a: 1 }, { b: 2 }], after: { c: [3] } }, after: 'z' }),
  'as_of after the subscribers': JSON.stringify({ census_request: { subscribers: [{ a: 1 }], as_of: '2027-02-03' } }),
  'an empty array': '{"census_request":{"subscribers":[]}}',
  'an empty array with whitespace everywhere': ' \t\r\n{ \n"census_request" :\t{ "subscribers" : [ \r\n ] , "as_of" : "x" } }\n ',
  'whitespace between elements and inside them': '{"census_request":{"subscribers":[ 1 , "a" ,\n{ "k" : [ true , null ] } , [ ] ]}}',
  'no array at all': '{"census_request":{"as_of":"2027-01-01","x12_834":"ISA*..."}}',
  'an empty census_request': '{"census_request":{}}',
  'an empty object': '{}',
  'the array key written with escapes (JSON.parse reads it as the same key)': '{"census\\u005frequest":{"subscr\\u0069bers":[{"a":1}]}}',
  'census_request that is not an object': '{"census_request":[{"subscribers":[1]}]}',
  'subscribers that is not an array': '{"census_request":{"subscribers":{"0":{"a":1}}}}',
  'subscribers that is a scalar': '{"census_request":{"subscribers":"none"}}',
  'unicode: accents, CJK, emoji, escapes, in keys and values': JSON.stringify({
    census_request: {
      'clé': 'é日本😀',
      subscribers: [{ first_name: 'Zoë', last_name: '日本語', note: '😀😀 \u00e9 \\u00e9', 'emoji key 😀': 'ok' }, '\u2028\u2029'],
    },
  }).replace('"Zoë"', '"Zo\\u00eb"').replace('😀😀', '\\ud83d\\ude00😀'),
  'numbers of every shape as elements': '{"census_request":{"subscribers":[0,-0,1,-1,1.5,-1.5e10,1E+2,2e-2,123456789012345678901234567890]}}',
  'a root that is an array': '[1,{"census_request":{"subscribers":[2]}}]',
  'a root that is a string': '"census_request"',
  'a root that is a number': '42',
  'a root that is null': 'null',
}

describe('JsonStreamScanner reads the same whatever the chunks', () => {
  for (const [name, text] of Object.entries(VALID)) {
    it(name, () => {
      const document = Buffer.from(text)
      const oracle = JSON.parse(text)
      const whole = scan([document])
      expect(rebuild(whole)).toEqual(oracle)
      for (const { name: how, chunks } of splits(document)) {
        const scanned = scan(chunks)
        expect(scanned, how).toEqual(whole)
      }
      // Only counting (the first look at the census) finds the same count and shell.
      for (const { name: how, chunks } of splits(document)) {
        const counted = scan(chunks, { keepElements: false })
        expect({ ...counted, elements: whole.elements }, how).toEqual(whole)
        expect(counted.elements, how).toEqual([])
      }
    })
  }

  it('multi-byte UTF-8 cut inside a character comes out whole, as JSON.parse reads it', () => {
    const text = '{"census_request":{"subscribers":["é","日","😀",{"k😀":"v日"}],"as_of":"😀"}}'
    const document = Buffer.from(text)
    expect(document.length).toBeGreaterThan(text.length) // multi-byte characters are in it
    for (const { name, chunks } of splits(document)) expect(rebuild(scan(chunks)), name).toEqual(JSON.parse(text))
  })

  it('a byte order mark opens the document, even cut across chunks', () => {
    const text = VALID['elements of every kind, strings full of brackets, braces, quotes and backslashes']!
    const document = Buffer.concat([BOM, Buffer.from(text)])
    for (const { name, chunks } of splits(document)) expect(rebuild(scan(chunks)), name).toEqual(JSON.parse(text))
    // A mark on its own is no document.
    for (const { name, chunks } of splits(BOM)) expect(scanError(chunks).message, name).toMatch(/ends before it is complete/)
  })

  it('a byte order mark anywhere but the start is not JSON', () => {
    const document = Buffer.concat([Buffer.from(' '), BOM, Buffer.from('{}')])
    for (const { name, chunks } of splits(document)) expect(scanError(chunks).offset, name).toBe(1)
  })

  it('elements can be many and long, and each is handed over as soon as its last byte has arrived', () => {
    const subscribers = Array.from({ length: 300 }, (_, i) => ({ i, name: 'x'.repeat(i * 3), tags: [i, `${i}]`] }))
    const texts = subscribers.map((s) => JSON.stringify(s))
    const prefix = '{"census_request":{"subscribers":['
    const ends: number[] = []
    let length = prefix.length
    for (const [k, text] of texts.entries()) {
      length += (k === 0 ? 0 : 1) + text.length
      ends.push(length)
    }
    const document = Buffer.from(`${prefix}${texts.join(',')}]}}`)
    const scanner = new JsonStreamScanner({ arrayPath: ARRAY_PATH, maxDepth: 64 })
    const handed: string[] = []
    for (let at = 0; at < document.length; at += 997) {
      scanner.push(document.subarray(at, at + 997))
      handed.push(...scanner.elements)
      scanner.elements = []
      const arrived = Math.min(at + 997, document.length)
      expect(handed.length, `after ${arrived} bytes`).toBe(ends.filter((end) => end <= arrived).length)
    }
    scanner.end()
    expect(handed).toEqual(texts)
  })
})

describe('JsonStreamScanner refuses what is not one JSON document, wherever the chunks end', () => {
  const refused: Record<string, string> = {
    'trailing garbage': '{"census_request":{"subscribers":[]}} x',
    'a second document': '{}{}',
    'a closing bracket after the end': '{"census_request":{}}]',
    'a missing comma between fields': '{"census_request":{"as_of":"x" "subscribers":[]}}',
    'a missing comma between elements': '{"census_request":{"subscribers":[{"a":1} {"b":2}]}}',
    'a missing comma between scalar elements': '{"census_request":{"subscribers":[1 2]}}',
    'a missing colon': '{"census_request" {"subscribers":[]}}',
    'a missing value': '{"census_request":{"as_of":}}',
    'a value that is not one': '{"census_request":{"as_of":x}}',
    'a trailing comma in the array': '{"census_request":{"subscribers":[1,]}}',
    'a trailing comma in an object': '{"census_request":{"subscribers":[],}}',
    'a leading comma in the array': '{"census_request":{"subscribers":[,1]}}',
    'the array closed with a brace': '{"census_request":{"subscribers":[1}}',
    'the empty array closed with a brace': '{"census_request":{"subscribers":[}}',
    'an object on the path closed with a bracket': '{"census_request":{"as_of":"x"]}',
    'a field name that is not a string': '{"census_request":{1:2}}',
    'a field name with a raw newline': '{"census_request":{"as\nof":1}}',
    'single quotes': "{'census_request':{}}",
    'the subscribers key twice': '{"census_request":{"subscribers":[1],"as_of":"x","subscribers":[2]}}',
    'the subscribers key twice, one spelt with an escape': '{"census_request":{"subscribers":[1],"subscr\\u0069bers":[2]}}',
    'the subscribers key twice, the first not an array': '{"census_request":{"subscribers":null,"subscribers":[2]}}',
    'census_request twice, each with subscribers': '{"census_request":{"subscribers":[1]},"census_request":{"subscribers":[2]}}',
    // JSON.parse would keep only the last: merging them would read a census the client did not send.
    'census_request twice, the array in the first only': '{"census_request":{"subscribers":[1]},"census_request":{"as_of":"x"}}',
    'census_request twice, then a number': '{"census_request":{"subscribers":[1]},"census_request":5}',
    'census_request twice, a number first': '{"census_request":5,"census_request":{"subscribers":[1]}}',
  }
  for (const [name, text] of Object.entries(refused)) {
    it(name, () => {
      const document = Buffer.from(text)
      const whole = scanError([document])
      expect(whole.tooDeep).toBe(false)
      for (const { name: how, chunks } of splits(document)) {
        const error = scanError(chunks)
        expect({ message: error.message, offset: error.offset, tooDeep: error.tooDeep }, how).toEqual({ message: whole.message, offset: whole.offset, tooDeep: false })
      }
    })
  }

  it('where JSON.parse refuses a document, the scanner refuses it or hands over a piece JSON.parse refuses', () => {
    const pieceRefused = [
      '{"census_request":{"subscribers":[{"a":[1}]]}}', // a wrong bracket inside an element
      '{"census_request":{"subscribers":[tru]}}',
      '{"census_request":{"subscribers":[01]}}',
      '{"census_request":{"subscribers":["raw\ttab"]}}',
      '{"census_request":{"as_of":"\\x"}}',
      '{"census_request":{"as_of":1"x"}}',
    ]
    for (const text of pieceRefused) {
      expect(() => JSON.parse(text), text).toThrow()
      let threw = false
      try {
        const scanned = scan([Buffer.from(text)])
        for (const piece of [...scanned.elements, ...scanned.shell.flatMap((v) => (v.text === null ? [] : [v.text]))]) {
          try {
            JSON.parse(piece)
          } catch {
            threw = true
          }
        }
      } catch (error) {
        expect(error).toBeInstanceOf(JsonStreamError)
        threw = true
      }
      expect(threw, text).toBe(true)
    }
  })

  it('every proper prefix of a document is refused as cut short (or for what follows)', () => {
    const text = VALID['elements of every kind, strings full of brackets, braces, quotes and backslashes']!
    const document = Buffer.from(text)
    for (let length = 0; length < document.length; length++) {
      const prefix = document.subarray(0, length)
      const error = scanError([prefix])
      expect(error.message, `prefix of ${length} bytes`).toMatch(length === 0 ? /empty/ : /ends before it is complete/)
      expect(scanError([...prefix].map((b) => Buffer.from([b]))).message).toBe(error.message)
    }
  })

  it('no input at all is an empty body; whitespace only is a document cut short', () => {
    expect(scanError([]).message).toMatch(/empty/)
    expect(scanError([Buffer.alloc(0)]).message).toMatch(/empty/)
    expect(scanError([Buffer.from(' \n\t ')]).message).toMatch(/ends before it is complete/)
  })

  it('the offset names the byte where the document went wrong', () => {
    const text = '{"census_request":{"subscribers":[1,2 3]}}'
    for (const { name, chunks } of splits(Buffer.from(text))) expect(scanError(chunks).offset, name).toBe(text.indexOf(' 3') + 1)
  })
})

describe('JsonStreamScanner refuses nesting deeper than allowed, as the whole-body check does', () => {
  /** JSON's own nesting depth of a value: what app.ts's nestsDeeperThan counts. */
  const depthOf = (value: unknown): number => (typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0)
  const nest = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`
  const documents = (levels: number) => ({
    'in an element': `{"census_request":{"subscribers":[${nest(levels - 3)}]}}`,
    'in an object element': `{"census_request":{"subscribers":[{"a":${nest(levels - 4)}}]}}`,
    'in the shell, before the array': `{"census_request":{"as_of":${nest(levels - 2)},"subscribers":[]}}`,
    'in the shell, beside census_request': `{"x":${nest(levels - 1)},"census_request":{"subscribers":[]}}`,
    'in a root array': nest(levels),
  })

  for (const maxDepth of [5, 8, 64]) {
    it(`at most ${maxDepth} levels`, () => {
      for (const [where, text] of Object.entries(documents(maxDepth))) {
        expect(depthOf(JSON.parse(text)), where).toBe(maxDepth)
        for (const { name, chunks } of splits(Buffer.from(text))) expect(() => scan(chunks, { maxDepth }), `${where}, ${name}`).not.toThrow()
      }
      for (const [where, text] of Object.entries(documents(maxDepth + 1))) {
        expect(depthOf(JSON.parse(text)), where).toBe(maxDepth + 1)
        for (const { name, chunks } of splits(Buffer.from(text))) {
          const error = scanError(chunks, { maxDepth })
          expect(error.tooDeep, `${where}, ${name}`).toBe(true)
        }
      }
    })
  }

  it('elements only counted are held to the same depth', () => {
    const text = `{"census_request":{"subscribers":[${nest(10)}]}}`
    expect(scanError([Buffer.from(text)], { maxDepth: 12, keepElements: false }).tooDeep).toBe(true)
  })
})

describe('a string streamed to a sink (stringAt: the census x12_834)', () => {
  const X12_PATH = ['census_request', 'x12_834'] as const

  /** What the sink received, and the rest of the scan, for the document in these chunks. */
  function scanStreaming(chunks: readonly Buffer[]) {
    const received: Buffer[] = []
    const scanner = new JsonStreamScanner({ arrayPath: ARRAY_PATH, maxDepth: 64, keepElements: false, stringAt: { path: X12_PATH, write: (raw) => received.push(Buffer.from(raw)) } })
    for (const chunk of chunks) scanner.push(chunk)
    scanner.end()
    return { raw: Buffer.concat(received).toString('utf8'), streamed: scanner.streamedString, shell: scanner.shellValues }
  }

  it('when the document holds the string, then the sink gets exactly its inside, escapes as sent, however the document is cut, and the shell leaves it out', () => {
    const inside = 'ISA*00*~\\n\\"quoted\\"\\\\ \\u007e é€😀 \\ud83d\\ude00'
    const text = `{"census_request":{"as_of":"2027-01-01","x12_834":"${inside}","note":{"a":[1,"x"]}}}`
    expect(JSON.parse(text).census_request.x12_834).toBe(JSON.parse(`"${inside}"`))
    for (const { name, chunks } of splits(Buffer.from(text))) {
      const scanned = scanStreaming(chunks)
      expect(scanned.raw, name).toBe(inside)
      expect(scanned.streamed, name).toBe(true)
      expect(scanned.shell.map((value) => value.path.join('.')), name).toEqual(['census_request.as_of', 'census_request.note', 'census_request', ''])
    }
  })

  it('when the value there is not a string, then it stays in the shell for validation to refuse, and nothing is streamed', () => {
    const scanned = scanStreaming([Buffer.from('{"census_request":{"x12_834":{"ISA":1}}}')])
    expect(scanned.streamed).toBe(false)
    expect(scanned.raw).toBe('')
    expect(scanned.shell).toContainEqual({ path: ['census_request', 'x12_834'], text: '{"ISA":1}' })
  })

  it('when the string appears twice, then the document is refused rather than one of them silently read', () => {
    expect(() => scanStreaming([Buffer.from('{"census_request":{"x12_834":"ISA one","x12_834":"ISA two"}}')])).toThrow(/x12_834 appears twice/)
  })
})
