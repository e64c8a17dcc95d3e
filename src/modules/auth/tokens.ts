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
export class TokenService {
  private readonly key: Uint8Array

  constructor(secret: string, private readonly now: () => number = Date.now) {
    this.key = new TextEncoder().encode(secret)
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

  async verify(token: string): Promise<TokenVerification> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        currentDate: new Date(this.now()),
        requiredClaims: ['sub', 'exp', 'iat'],
      })
      if (typeof payload.sub !== 'string' || typeof payload.acc !== 'string') return { ok: false, reason: 'invalid' }
      return { ok: true, apiKeyId: payload.sub, accountId: payload.acc }
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: 'expired' }
      return { ok: false, reason: 'invalid' }
    }
  }
}
