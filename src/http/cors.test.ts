import { describe, expect, it } from 'vitest'
import { parseCorsOrigins } from './cors.js'

describe('parseCorsOrigins (CORS_ORIGINS)', () => {
  it('when it is unset or blank, then no origin is listed: CORS is off', () => {
    expect(parseCorsOrigins(undefined)).toEqual({ origins: [] })
    expect(parseCorsOrigins(' , ')).toEqual({ origins: [] })
  })

  it('when it lists origins as browsers send them, then each is kept once', () => {
    expect(parseCorsOrigins('https://app.example.com, http://localhost:5173,https://app.example.com')).toEqual({
      origins: ['https://app.example.com', 'http://localhost:5173'],
    })
  })

  it('when an entry is a wildcard, a URL with a path, a default port or not a URL, then it is refused with the entry named', () => {
    for (const entry of ['*', 'https://app.example.com/', 'https://app.example.com/path', 'https://app.example.com:443', 'HTTPS://App.example.com', 'app.example.com']) {
      const result = parseCorsOrigins(entry)
      expect(result, entry).toHaveProperty('problem')
      if (entry !== '*') expect((result as { problem: string }).problem, entry).toContain(entry)
    }
  })
})
