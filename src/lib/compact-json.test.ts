import { describe, expect, it } from 'vitest'
import { compactJson } from './compact-json.js'

describe('compact JSON for generated files', () => {
  it('when a container fits on a line, then it stays on one line', () => {
    expect(compactJson({ $ref: '#/components/schemas/Group' })).toBe('{"$ref": "#/components/schemas/Group"}')
  })

  it('when a container is wider than the line, then each member gets its own tab-indented line', () => {
    const value = { tags: ['Groups'], description: 'x'.repeat(40), nested: { list: ['a'.repeat(30), 'b'.repeat(30), 'c'.repeat(30)] } }
    expect(compactJson(value, 60)).toBe(
      [
        '{',
        '\t"tags": ["Groups"],',
        `\t"description": "${'x'.repeat(40)}",`,
        '\t"nested": {',
        '\t\t"list": [',
        `\t\t\t"${'a'.repeat(30)}",`,
        `\t\t\t"${'b'.repeat(30)}",`,
        `\t\t\t"${'c'.repeat(30)}"`,
        '\t\t]',
        '\t}',
        '}',
      ].join('\n'),
    )
  })

  it('when any value is written, then it parses back to the same value', () => {
    const value = { a: [1, 'two', null, true, { b: [], c: {} }], 'd"e': 'line\nbreak', f: 1.5e-7, g: 'x'.repeat(200) }
    expect(JSON.parse(compactJson(value, 20))).toEqual(value)
    expect(JSON.parse(compactJson(value))).toEqual(value)
  })
})
