import { describe, expect, it } from 'vitest'
import { TOKEN_LIFETIME_SECONDS, TokenService } from './tokens.js'

const SECRET = 'unit-test-signing-secret-0123456789abcdef'
const PRINCIPAL = { accountId: 'acc-1', accountKind: 'partner' as const, apiKeyId: 'key-1', apiKeyName: 'k' }

describe('verified tokens remembered', () => {
  it('when a token verified before reaches its expiry, then it is refused as expired, remembered or not', async () => {
    let now = Date.UTC(2026, 0, 1)
    const tokens = new TokenService(SECRET, () => now)
    const { token } = await tokens.issue(PRINCIPAL)
    expect(tokens.verifiedBefore(token)).toBeUndefined()
    expect(await tokens.verify(token)).toEqual({ ok: true, apiKeyId: 'key-1', accountId: 'acc-1' })
    expect(tokens.verifiedBefore(token)).toEqual({ ok: true, apiKeyId: 'key-1', accountId: 'acc-1' })

    now += TOKEN_LIFETIME_SECONDS * 1000
    expect(tokens.verifiedBefore(token)).toEqual({ ok: false, reason: 'expired' })
    // Forgotten once expired: verify checks the signature and the expiry again.
    expect(tokens.verifiedBefore(token)).toBeUndefined()
    expect(await tokens.verify(token)).toEqual({ ok: false, reason: 'expired' })
  })

  it('when a token was never verified (or is altered), then only verify answers it', async () => {
    const tokens = new TokenService(SECRET)
    const { token } = await tokens.issue(PRINCIPAL)
    await tokens.verify(token)
    const altered = `${token.slice(0, -2)}xx`
    expect(tokens.verifiedBefore(altered)).toBeUndefined()
    expect(await tokens.verify(altered)).toEqual({ ok: false, reason: 'invalid' })
  })
})
