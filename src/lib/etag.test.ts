import { describe, expect, it } from 'vitest'
import { checkIfMatch, entityTag } from './etag.js'

describe('entity tags', () => {
  it('when two representations hold the same JSON in another key order, then they have one tag; any change gives another', () => {
    expect(entityTag({ a: 1, b: { c: [1, 2] } })).toBe(entityTag({ b: { c: [1, 2] }, a: 1 }))
    expect(entityTag({ a: 1 })).not.toBe(entityTag({ a: 2 }))
    expect(entityTag({ a: 1 })).toMatch(/^"[A-Za-z0-9_-]{22}"$/)
  })

  it('when If-Match is absent, *, or lists the current tag, then the write may go on; otherwise precondition_failed', () => {
    const current = { id: 'x', name: 'now' }
    expect(() => checkIfMatch(undefined, current)).not.toThrow()
    expect(() => checkIfMatch('*', current)).not.toThrow()
    expect(() => checkIfMatch(['"stale"', entityTag(current)], current)).not.toThrow()
    expect(() => checkIfMatch([entityTag({ id: 'x', name: 'before' })], current)).toThrow(expect.objectContaining({ code: 'precondition_failed' }))
    // Weak tags never match in If-Match (strong comparison).
    expect(() => checkIfMatch([`W/${entityTag(current)}`], current)).toThrow(expect.objectContaining({ code: 'precondition_failed' }))
  })
})
