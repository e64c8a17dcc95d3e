import { describe, expect, it } from 'vitest'
import { arrayLiteral } from './array-literal.js'

describe('arrayLiteral', () => {
  it('writes plain elements bare, numbers as digits and null as NULL', () => {
    expect(arrayLiteral(['01a21a07-724b-711e-a12d-f50101f80d1e', 'abc'])).toBe('{01a21a07-724b-711e-a12d-f50101f80d1e,abc}')
    expect(arrayLiteral([1, -2, 30])).toBe('{1,-2,30}')
    expect(arrayLiteral(['a', null])).toBe('{a,NULL}')
    expect(arrayLiteral([])).toBe('{}')
  })

  it('quotes what the array syntax would read otherwise, escaping quotes and backslashes', () => {
    expect(arrayLiteral(['', 'NULL', 'null', 'a,b', 'a b', ' x', 'x\t', '{}', 'say "hi"', 'c:\\dir'])).toBe(
      '{"","NULL","null","a,b","a b"," x","x\t","{}","say \\"hi\\"","c:\\\\dir"}',
    )
  })
})
