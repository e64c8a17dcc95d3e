import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { API_KEY_PREFIX, generateApiKeySecret, hashApiKeySecret, looksLikeApiKey } from './api-key-secret.js'

describe('API key secrets', () => {
  it('when a key is generated, then it is esk_ and 256 random bits, with a short display prefix and its SHA-256', () => {
    const { secret, displayPrefix, hash } = generateApiKeySecret()
    expect(secret).toMatch(/^esk_[A-Za-z0-9_-]{43}$/)
    expect(secret.startsWith(API_KEY_PREFIX)).toBe(true)
    expect(Buffer.from(secret.slice(4), 'base64url')).toHaveLength(32)
    expect(displayPrefix).toBe(secret.slice(0, 12))
    expect(hash.equals(createHash('sha256').update(secret).digest())).toBe(true)
    expect(hashApiKeySecret(secret).equals(hash)).toBe(true)
  })

  it('when keys are generated repeatedly, then no two are alike', () => {
    const secrets = Array.from({ length: 1000 }, () => generateApiKeySecret().secret)
    expect(new Set(secrets).size).toBe(1000)
  })

  it('when a value is checked, then only the exact key shape is recognised', () => {
    expect(looksLikeApiKey(generateApiKeySecret().secret)).toBe(true)
    const key = generateApiKeySecret().secret
    for (const value of ['', 'esk_', key.slice(0, -1), `${key}x`, key.replace('esk_', 'sk_'), key.replace('esk_', 'ESK_'), ` ${key}`, `${key.slice(0, -1)}+`]) {
      expect(looksLikeApiKey(value), value).toBe(false)
    }
  })

  it('when two different keys are hashed, then the hashes differ', () => {
    const a = generateApiKeySecret()
    const b = generateApiKeySecret()
    expect(a.hash.equals(b.hash)).toBe(false)
  })
})
