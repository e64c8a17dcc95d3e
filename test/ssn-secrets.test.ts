import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.js'
import { resolveSsnProtection, resolveTokenSecret } from '../src/main/runtime.js'

const dirs: string[] = []
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'enrollsync-secrets-'))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('embedded SSN keys', () => {
  it('when the service first starts in embedded mode, then SSN keys are generated into secrets.json (0600) and reused later', () => {
    const config = loadConfig({ DATA_DIR: dataDir() })
    const first = resolveSsnProtection(config)
    const path = join(config.dataDir, 'secrets.json')
    const stored = JSON.parse(readFileSync(path, 'utf8'))
    expect(stored).toMatchObject({ token_signing_secret: expect.any(String), ssn_encryption_keys: expect.stringMatching(/^k1:/), ssn_hash_key: expect.any(String) })
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const sealed = first.seal('123456789')
    const again = resolveSsnProtection(config)
    expect(again.open(sealed.ciphertext, sealed.keyId)).toBe('123456789')
    expect(again.hash('123456789')).toBe(sealed.hash)
  })

  it('when secrets.json predates SSN keys, then the keys are added and the token secret kept', () => {
    const dir = dataDir()
    writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ token_signing_secret: 'an-existing-secret-of-more-than-32-chars' }), { mode: 0o600 })
    const config = loadConfig({ DATA_DIR: dir })
    resolveSsnProtection(config)
    expect(resolveTokenSecret(config)).toBe('an-existing-secret-of-more-than-32-chars')
    const stored = JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))
    expect(stored.token_signing_secret).toBe('an-existing-secret-of-more-than-32-chars')
    expect(stored.ssn_encryption_keys).toMatch(/^k1:/)
  })

  it('when the keys come from the environment, then they are used and nothing is written', () => {
    const dir = dataDir()
    const config = loadConfig({ DATA_DIR: dir, SSN_ENCRYPTION_KEYS: `env1:${Buffer.alloc(32, 3).toString('base64')}`, SSN_HASH_KEY: Buffer.alloc(32, 4).toString('base64') })
    expect(resolveSsnProtection(config).seal('123456789').keyId).toBe('env1')
    expect(() => statSync(join(dir, 'secrets.json'))).toThrow()
  })
})
