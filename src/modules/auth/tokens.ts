import { createSecretKey, type KeyObject } from 'node:crypto'
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import type { Principal } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'

export const TOKEN_LIFETIME_SECONDS = 86_400
const ISSUER = 'enrollsync'
const AUDIENCE = 'enrollsync-api'

export interface IssuedToken {
  token: string
  expiresAt: Date
}

export type TokenVerification =
  | { ok: true; apiKeyId: string; accountId: string }
  | { ok: false; reason: 'expired' | 'invalid' }

/**
 * HS256 tokens carry the key id (`sub`) and the account (`acc`). They hold no permissions of
 * their own: every request re-resolves the key, so revoking it ends its tokens at once.
 */
// Verified tokens are remembered so a client reusing one token pays for HMAC and JSON parsing
// once, not per request. Bounded; an entry is dropped at the token's expiry.
const MAX_VERIFIED_TOKENS = 10_000

export class TokenService {
  /** Imported once: jose would otherwise import a raw key again on every verification. */
  private readonly key: KeyObject
  private readonly verified = new Map<string, { apiKeyId: string; accountId: string; expiresAtMs: number }>()

  constructor(secret: string, private readonly now: () => number = Date.now) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'))
  }

  async issue(principal: Principal): Promise<IssuedToken> {
    const issuedAt = Math.floor(this.now() / 1000)
    const expiresAtSeconds = issuedAt + TOKEN_LIFETIME_SECONDS
    const token = await new SignJWT({ acc: principal.accountId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(principal.apiKeyId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAtSeconds)
      .setJti(uuidv7())
      .sign(this.key)
    return { token, expiresAt: new Date(expiresAtSeconds * 1000) }
  }

  /**
   * Checks signature, issuer, audience and expiry. The key behind the token is not checked here:
   * the caller resolves it on every request, which is what makes revocation immediate.
   */
  async verify(token: string): Promise<TokenVerification> {
    const known = this.verifiedBefore(token)
    if (known) return known
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        currentDate: new Date(this.now()),
        requiredClaims: ['sub', 'exp', 'iat'],
      })
      if (typeof payload.sub !== 'string' || typeof payload.acc !== 'string' || typeof payload.exp !== 'number') {
        return { ok: false, reason: 'invalid' }
      }
      if (this.verified.size >= MAX_VERIFIED_TOKENS) this.verified.clear()
      this.verified.set(token, { apiKeyId: payload.sub, accountId: payload.acc, expiresAtMs: payload.exp * 1000 })
      return { ok: true, apiKeyId: payload.sub, accountId: payload.acc }
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: 'expired' }
      return { ok: false, reason: 'invalid' }
    }
  }

  /**
   * The answer for a token verified before, without waiting (its expiry checked again now), or
   * undefined when it must go through verify. The guard asks this first: a client reusing its
   * token then costs no promise and no turn of the microtask queue for it.
   */
  verifiedBefore(token: string): TokenVerification | undefined {
    const known = this.verified.get(token)
    if (!known) return undefined
    if (known.expiresAtMs > this.now()) return { ok: true, apiKeyId: known.apiKeyId, accountId: known.accountId }
    this.verified.delete(token)
    return { ok: false, reason: 'expired' }
  }
}
