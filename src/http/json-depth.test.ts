import { describe, expect, it } from 'vitest'
import { nestsDeeperThan } from './json-depth.js'

describe('JSON nesting depth', () => {
  it('when arrays and objects nest deeper than the limit, then the text is refused', () => {
    expect(nestsDeeperThan(`${'['.repeat(5)}1${']'.repeat(5)}`, 4)).toBe(true)
    expect(nestsDeeperThan('{"a":{"b":[{"c":[1]}]}}', 4)).toBe(true)
  })

  it('when nesting is within the limit, or the brackets are inside strings, then the text passes', () => {
    expect(nestsDeeperThan(`${'['.repeat(4)}1${']'.repeat(4)}`, 4)).toBe(false)
    expect(nestsDeeperThan('[[1],[2],[3],{"a":[4]}]', 3)).toBe(false)
    expect(nestsDeeperThan(`{"text":"${'[{'.repeat(100)} \\" ${'[{'.repeat(100)}"}`, 1)).toBe(false)
  })
})
