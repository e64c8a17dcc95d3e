import { createHash } from 'node:crypto'
import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import { excerptOf } from './api-connector.js'
import { assertValidFileName } from './file-transport.js'
import { hostKeyFingerprint, parseHostKeyPin } from './sftp-transport.js'
import { ApiConnectionSettings, EdiTransportSettings } from './transport.schema.js'

describe('host key pins', () => {
  const blob = Buffer.from('ssh-ed25519 host key blob')
  const sha = createHash('sha256').update(blob).digest()

  it('when a pin is written as OpenSSH prints it, as base64 or as hex, then it reads as the same 32 bytes', () => {
    const hex = sha.toString('hex')
    for (const text of [hostKeyFingerprint(blob), sha.toString('base64'), hex, hex.toUpperCase(), hex.match(/../g)!.join(':')]) {
      expect(parseHostKeyPin(text).equals(sha)).toBe(true)
    }
  })

  it('when a pin is not 32 bytes, then it is refused', () => {
    expect(() => parseHostKeyPin('SHA256:abc')).toThrow(/32 bytes/)
    expect(() => parseHostKeyPin('ab'.repeat(20))).toThrow(/32 bytes/)
  })
})

describe('carrier connection settings', () => {
  const edi = Compile(EdiTransportSettings)
  const api = Compile(ApiConnectionSettings)

  it('when settings are complete, then they are accepted', () => {
    expect(edi.Check({ type: 'directory' })).toBe(true)
    expect(edi.Check({ type: 'sftp', host: 'sftp.carrier.example', username: 'enrollsync', password_env: 'ACME_SFTP_PASSWORD', host_key_sha256: 'SHA256:' + 'A'.repeat(43) })).toBe(true)
    expect(api.Check({ base_url: 'https://api.carrier.example/v2', token_env: 'ACME_TOKEN', timeout_ms: 10_000 })).toBe(true)
  })

  it('when a secret is written into the file itself, then the settings are refused', () => {
    expect(edi.Check({ type: 'sftp', host: 'h', username: 'u', password: 'hunter2' })).toBe(false)
    expect(api.Check({ base_url: 'https://api.carrier.example', token: 'tok' })).toBe(false)
    expect(api.Check({ base_url: 'https://api.carrier.example', token_env: 'not a name' })).toBe(false)
  })

  it('when the port, pin or URL scheme is malformed, then the settings are refused', () => {
    expect(edi.Check({ type: 'sftp', host: 'h', username: 'u', password_env: 'P', port: 70000 })).toBe(false)
    expect(edi.Check({ type: 'sftp', host: 'h', username: 'u', password_env: 'P', host_key_sha256: 'md5:00' })).toBe(false)
    expect(api.Check({ base_url: 'ftp://carrier.example' })).toBe(false)
  })
})

describe('file names', () => {
  it('when a name is a plain file name, then it is accepted', () => {
    expect(() => assertValidFileName('ACME_834_20250101T000000Z_0001.edi')).not.toThrow()
  })
})

describe('response excerpts', () => {
  it('when a carrier echoes an SSN or sends lines, then the excerpt is masked, one line and short', () => {
    expect(excerptOf('{"ssn":"123-45-6789",\n"x":"123456789"}')).toBe('{"ssn":"***-**-6789", "x":"***-**-6789"}')
    expect(excerptOf('x'.repeat(1000))).toHaveLength(301)
    expect(excerptOf('  ')).toBe('(empty body)')
  })
})
