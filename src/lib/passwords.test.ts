import { describe, expect, it } from 'vitest'
import { generatePassword, hashPassword, passwordProblem, verifyAgainstDummy, verifyPassword } from './passwords.js'

describe('passwords', () => {
  it('when a password is hashed, then the stored text names scrypt and its parameters, and only that password verifies', async () => {
    const stored = await hashPassword('correct horse battery staple')
    const parts = stored.split('$')
    expect(parts.slice(0, 4)).toEqual(['scrypt', '32768', '8', '1'])
    expect(Buffer.from(parts[4]!, 'base64')).toHaveLength(16)
    expect(Buffer.from(parts[5]!, 'base64')).toHaveLength(32)
    expect(stored).not.toContain('correct horse')
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true)
    expect(await verifyPassword('correct horse battery stapl', stored)).toBe(false)
    expect(await verifyPassword('Correct horse battery staple', stored)).toBe(false)
  })

  it('when the same password is hashed twice, then the salts differ', async () => {
    const [first, second] = await Promise.all([hashPassword('the same password'), hashPassword('the same password')])
    expect(first).not.toBe(second)
    expect(await verifyPassword('the same password', second)).toBe(true)
  })

  it('when a hash was made with other parameters, then it still verifies, since the stored text names them', async () => {
    // A cheaper hash of the same format, as an older configuration would have written.
    const { scryptSync } = await import('node:crypto')
    const salt = Buffer.alloc(16, 7)
    const key = scryptSync('an older password', salt, 32, { N: 1024, r: 8, p: 1 })
    const stored = `scrypt$1024$8$1$${salt.toString('base64')}$${key.toString('base64')}`
    expect(await verifyPassword('an older password', stored)).toBe(true)
    expect(await verifyPassword('another password', stored)).toBe(false)
  })

  it('when the stored value is malformed or asks for absurd costs, then nothing verifies and nothing throws', async () => {
    const good = await hashPassword('a good password here')
    const [, , r, p, salt, key] = good.split('$')
    for (const stored of ['', 'plain', `bcrypt$32768$${r}$${p}$${salt}$${key}`, `scrypt$1000$${r}$${p}$${salt}$${key}`, `scrypt$${2 ** 24}$${r}$${p}$${salt}$${key}`, `scrypt$32768$${r}$${p}$$${key}`]) {
      expect(await verifyPassword('a good password here', stored), stored).toBe(false)
    }
  })

  it('when a password is shorter than 12 or longer than 256 characters, then the rules name the bounds', () => {
    expect(passwordProblem('a'.repeat(11))).toMatch(/12 to 256 characters/)
    expect(passwordProblem('a'.repeat(12))).toBeUndefined()
    expect(passwordProblem('a'.repeat(256))).toBeUndefined()
    expect(passwordProblem('a'.repeat(257))).toMatch(/12 to 256 characters/)
    // Characters, not UTF-16 units: twelve emoji are twelve characters.
    expect(passwordProblem('🔑'.repeat(12))).toBeUndefined()
    expect(passwordProblem('🔑'.repeat(11))).toBeDefined()
  })

  it('when there is no user to check against, then the dummy verification takes about as long and never matches', async () => {
    const stored = await hashPassword('whatever password')
    await verifyAgainstDummy('warm up the dummy hash')
    const started = performance.now()
    await verifyPassword('whatever password', stored)
    const real = performance.now() - started
    const dummyStarted = performance.now()
    expect(await verifyAgainstDummy('whatever password')).toBe(false)
    const dummy = performance.now() - dummyStarted
    // Same parameters, so the same work: generous bounds for a busy machine.
    expect(dummy).toBeGreaterThan(real / 4)
  })

  it('when a password is generated, then it is 24 URL-safe characters, passes the rules and differs each time', () => {
    const first = generatePassword()
    expect(first).toMatch(/^[A-Za-z0-9_-]{24}$/)
    expect(passwordProblem(first)).toBeUndefined()
    expect(generatePassword()).not.toBe(first)
  })
})
