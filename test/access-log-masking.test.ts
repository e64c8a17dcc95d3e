import { describe, expect, it } from 'vitest'
import { maskSsnPathSegments } from '../src/http/access-log.js'

// Issue 15, point 8: an SSN used as a path id is masked in the access log and in 404/405 details,
// in every grouping free text masks (lib/free-text-masking.ts): plain, dashes, spaces.
describe('SSN-shaped path segments', () => {
  it('when the SSN is grouped by spaces (percent-encoded in a path), then it is masked like the dashed one', () => {
    expect(maskSsnPathSegments('/members/123%2045%206789')).toBe('/members/***-**-6789')
    expect(maskSsnPathSegments('/members/123-45-6789/coverage')).toBe('/members/***-**-6789/coverage')
  })

  it('when the groupings are mixed or the segment is longer, then it is left as it is', () => {
    expect(maskSsnPathSegments('/members/123%2045-6789')).toBe('/members/123%2045-6789')
    expect(maskSsnPathSegments('/members/1234567890')).toBe('/members/1234567890')
  })
})
