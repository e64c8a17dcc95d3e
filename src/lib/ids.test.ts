import { describe, expect, it } from 'vitest'
import { isUuid, uuidv7 } from './ids.js'

const timestampOf = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16)

// The generator keeps its last timestamp in the module: the tests that move the clock come after
// the one that reads the current time.
describe('uuidv7', () => {
  it('when an id is made, then it is an RFC 9562 version 7 UUID carrying the time in milliseconds', () => {
    const before = Date.now()
    const id = uuidv7()
    const after = Date.now()
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(timestampOf(id)).toBeGreaterThanOrEqual(before)
    expect(timestampOf(id)).toBeLessThanOrEqual(after)
  })

  it('when many ids are made in the same millisecond, then they still sort in the order they were made', () => {
    const now = Date.now() + 1000
    const ids = Array.from({ length: 10_000 }, () => uuidv7(now))
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort()).toEqual(ids)
  })

  it('when the clock steps back, then new ids still sort after the earlier ones', () => {
    const later = uuidv7(Date.now() + 5000)
    const afterStepBack = uuidv7(Date.now())
    expect(afterStepBack > later).toBe(true)
  })

  it('when ids are made in a tight loop, then each is unique and ordered', () => {
    const ids = Array.from({ length: 1000 }, () => uuidv7())
    expect(new Set(ids).size).toBe(1000)
    expect([...ids].sort()).toEqual(ids)
  })
})

describe('isUuid', () => {
  it('when given UUIDs of any version or case, then true; otherwise false', () => {
    expect(isUuid(uuidv7())).toBe(true)
    expect(isUuid('123E4567-E89B-12D3-A456-426614174000')).toBe(true)
    for (const value of ['', 'not-a-uuid', '123e4567e89b12d3a456426614174000', '123e4567-e89b-12d3-a456-42661417400g', ` ${uuidv7()}`]) {
      expect(isUuid(value), value).toBe(false)
    }
  })
})
