import { describe, expect, it } from 'vitest'
import { containsUnstorableText, isStorableText, unstorableTextProblems } from './storable-text.js'

describe('storable text', () => {
  it('when text holds NUL or an unpaired surrogate, then it is not storable; pairs and other controls are', () => {
    for (const bad of ['a\u0000b', '\ud800', 'x\udc00', '\udbff\ud800', 'end\ud83d']) expect(isStorableText(bad), JSON.stringify(bad)).toBe(false)
    for (const good of ['', 'plain', 'Zoë', '😀', '\ud83d\ude00', 'tab\tnew\nline\u0001', '\ufffd']) expect(isStorableText(good), JSON.stringify(good)).toBe(true)
  })

  it('when values are nested, then each bad string is pointed at in document order, and a bad key at its object without the key', () => {
    const value = { a: ['ok', 'x\u0000'], 'b/c~': { d: '\ud800' }, ['k\u0000']: 'fine', e: { ['\udc00']: { f: 'x\u0000' } } }
    expect(unstorableTextProblems(value, '/root').map((p) => p.pointer)).toEqual(['/root', '/root/a/1', '/root/b~1c~0/d', '/root/e'])
    expect(JSON.stringify(unstorableTextProblems(value, ''))).not.toMatch(/\\u0000|\\ud800|\\udc00/)
  })

  it('when a limit is given, then no more problems than it are collected', () => {
    expect(unstorableTextProblems(Array.from({ length: 100 }, () => '\u0000'), '', [], 8)).toHaveLength(8)
  })

  it('when a value nests a million levels deep, then the walk does not overflow the stack', () => {
    let deep: unknown = 'x\u0000'
    for (let i = 0; i < 1_000_000; i++) deep = [deep]
    expect(containsUnstorableText(deep)).toBe(true)
    expect(unstorableTextProblems(deep, '', [], 1)).toHaveLength(1)
  })
})
