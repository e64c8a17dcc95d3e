import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** The console's session cookie. HttpOnly (scripts never read it) and SameSite=Strict (no cross-site sends). */
export const SESSION_COOKIE = 'enrollsync_session'
/** The header every changing console request repeats the session's csrf_token in. */
export const CSRF_HEADER = 'x-csrf-token'

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/

/** 256 random bits, base64url: the cookie value. Only its SHA-256 is stored. */
export function newSessionToken(): { token: string; hash: Buffer } {
  const token = randomBytes(32).toString('base64url')
  return { token, hash: hashSessionToken(token) }
}

export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url')
}

export function hashSessionToken(token: string): Buffer {
  return createHash('sha256').update(token).digest()
}

export function looksLikeSessionToken(value: string): boolean {
  return TOKEN_PATTERN.test(value)
}

/**
 * The value of the session cookie in a Cookie header (RFC 6265 section 5.4: `name=value` pairs
 * separated by `; `), or undefined when there is none. The first one wins, as browsers send the
 * most specific path first.
 */
export function readSessionCookie(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join('; ') : header
  if (!text) return undefined
  for (const pair of text.split(';')) {
    const equals = pair.indexOf('=')
    if (equals < 0 || pair.slice(0, equals).trim() !== SESSION_COOKIE) continue
    let value = pair.slice(equals + 1).trim()
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1)
    return value === '' ? undefined : value
  }
  return undefined
}

function attributes(maxAgeSeconds: number, secure: boolean): string {
  return `Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`
}

/** Set-Cookie for a new session; `secure` when the request came over TLS (directly or through a trusted proxy). */
export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; ${attributes(maxAgeSeconds, secure)}`
}

/** Set-Cookie that makes the browser drop the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; ${attributes(0, secure)}`
}

/** Compares a presented CSRF token with the session's in constant time (hashes have equal lengths). */
export function csrfTokenMatches(presented: string | string[] | undefined, expected: string): boolean {
  if (typeof presented !== 'string' || presented === '') return false
  const digest = (value: string) => createHash('sha256').update(value).digest()
  return timingSafeEqual(digest(presented), digest(expected))
}
