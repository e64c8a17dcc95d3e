import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { maskSsn, SsnKeyError, SsnProtection } from './ssn-protection.js'

const key = (byte: number) => Buffer.alloc(32, byte)
const hashKey = Buffer.alloc(32, 9)

describe('SSN protection', () => {
  it('when an SSN is sealed, then the ciphertext differs from it and opens back to it', () => {
    const ssn = new SsnProtection([{ id: 'k1', key: key(1) }], hashKey)
    const sealed = ssn.seal('123456789')
    expect(sealed.ciphertext).not.toContain('123456789')
    expect(Buffer.from(sealed.ciphertext, 'base64').toString('latin1')).not.toContain('123456789')
    expect(sealed).toMatchObject({ keyId: 'k1', lastFour: '6789' })
    expect(ssn.open(sealed.ciphertext, sealed.keyId)).toBe('123456789')
  })

  it('when the same SSN is sealed twice, then the ciphertexts differ (random IV) but the keyed hashes are equal', () => {
    const ssn = new SsnProtection([{ id: 'k1', key: key(1) }], hashKey)
    const a = ssn.seal('123456789')
    const b = ssn.seal('123456789')
    expect(a.ciphertext).not.toBe(b.ciphertext)
    expect(a.hash).toBe(b.hash)
    expect(ssn.seal('123456780').hash).not.toBe(a.hash)
    expect(ssn.matches('123456789', a.hash)).toBe(true)
    expect(ssn.matches('123456780', a.hash)).toBe(false)
  })

  it('when the hash key differs, then the keyed hash differs (a plain SHA-256 table does not match it)', () => {
    const one = new SsnProtection([{ id: 'k1', key: key(1) }], hashKey)
    const two = new SsnProtection([{ id: 'k1', key: key(1) }], Buffer.alloc(32, 8))
    expect(one.hash('123456789')).not.toBe(two.hash('123456789'))
  })

  it('when keys rotate, then values sealed with the old key still open and new ones use the new key', () => {
    const before = new SsnProtection([{ id: 'old', key: key(1) }], hashKey)
    const sealed = before.seal('123456789')
    const after = new SsnProtection([{ id: 'new', key: key(2) }, { id: 'old', key: key(1) }], hashKey)
    expect(after.open(sealed.ciphertext, 'old')).toBe('123456789')
    expect(after.seal('123456789').keyId).toBe('new')
    expect(after.needsResealing('old')).toBe(true)
    expect(after.seal('123456789').hash).toBe(sealed.hash)
  })

  it('when a sealed value is tampered with or opened under another key id, then opening fails', () => {
    const ssn = new SsnProtection([{ id: 'k1', key: key(1) }, { id: 'k2', key: key(2) }], hashKey)
    const sealed = ssn.seal('123456789')
    const raw = Buffer.from(sealed.ciphertext, 'base64')
    raw[14] = raw[14]! ^ 1
    expect(() => ssn.open(raw.toString('base64'), 'k1')).toThrow()
    expect(() => ssn.open(sealed.ciphertext, 'k2')).toThrow()
    expect(() => ssn.open(sealed.ciphertext, 'unknown')).toThrow(SsnKeyError)
  })

  it('when the configuration text is parsed, then ids and 32-byte keys are read and bad entries refused without echoing keys', () => {
    const k1 = randomBytes(32).toString('base64')
    const k2 = randomBytes(32).toString('base64')
    const ssn = SsnProtection.fromConfig(`2026a:${k1}, 2025b:${k2}`, randomBytes(32).toString('base64'))
    expect(ssn.seal('123456789').keyId).toBe('2026a')
    const short = randomBytes(16).toString('base64')
    expect(() => SsnProtection.fromConfig(`k:${short}`, randomBytes(32).toString('base64'))).toThrow(/32 bytes/)
    try {
      SsnProtection.fromConfig(`k:${short}`, randomBytes(32).toString('base64'))
    } catch (error) {
      expect((error as Error).message).not.toContain(short)
    }
    expect(() => SsnProtection.fromConfig(k1, randomBytes(32).toString('base64'))).toThrow(/id:base64key/)
    expect(() => SsnProtection.fromConfig(`a:${k1},a:${k2}`, randomBytes(32).toString('base64'))).toThrow(/twice/)
    expect(() => SsnProtection.fromConfig(`a:${k1}`, randomBytes(16).toString('base64'))).toThrow(/at least 32 bytes/)
    const generated = SsnProtection.generateKeys()
    expect(() => SsnProtection.fromConfig(generated.encryptionKeys, generated.hashKey)).not.toThrow()
  })

  it('when a carrier file chunk is sealed, then the SSNs in it are not readable, it opens back, and it cannot pass for an SSN', () => {
    const ssn = new SsnProtection([{ id: 'k1', key: key(1) }], hashKey)
    const chunk = Buffer.from('NM1*IL*1*Doe*Jane****34*123456789~')
    const sealed = ssn.sealBytes(chunk)
    expect(sealed.keyId).toBe('k1')
    expect(sealed.data.toString('latin1')).not.toContain('123456789')
    expect(ssn.openBytes(sealed.data, 'k1')).toEqual(chunk)
    const tampered = Buffer.from(sealed.data)
    tampered[20] = tampered[20]! ^ 1
    expect(() => ssn.openBytes(tampered, 'k1')).toThrow()
    // Another purpose (AAD): a sealed SSN does not open as a chunk, nor a chunk as an SSN.
    expect(() => ssn.openBytes(Buffer.from(ssn.seal('123456789').ciphertext, 'base64'), 'k1')).toThrow()
    expect(() => ssn.open(sealed.data.toString('base64'), 'k1')).toThrow()
  })

  it('when a sealed chunk is opened in pieces, then it gives the same bytes as whole, and only once its tag is checked', () => {
    const ssn = new SsnProtection([{ id: 'k1', key: key(1) }], hashKey)
    const plain = Buffer.from('ISA*00*~'.repeat(5000))
    const { data } = ssn.sealBytes(plain)
    const iv = data.subarray(0, 12)
    const tag = data.subarray(data.length - 16)
    const body = data.subarray(12, data.length - 16)
    const pieces = [body.subarray(0, 1), body.subarray(1, 30_000), body.subarray(30_000)]
    expect(Buffer.concat(ssn.openPieces(iv, pieces, tag, 'k1'))).toEqual(plain)
    expect(ssn.openBytes(data, 'k1')).toEqual(plain)
    // A piece missing, or out of order, fails as a whole: nothing comes out of it.
    expect(() => ssn.openPieces(iv, [pieces[0]!, pieces[2]!], tag, 'k1')).toThrow()
    expect(() => ssn.openPieces(iv, [pieces[1]!, pieces[0]!, pieces[2]!], tag, 'k1')).toThrow()
    expect(() => ssn.openPieces(iv, pieces, tag.subarray(1), 'k1')).toThrow(/truncated/)
  })

  it('when an SSN is masked, then only the last four digits show', () => {
    expect(maskSsn('6789')).toBe('***-**-6789')
  })
})
