import { createHash, randomBytes } from 'node:crypto'

/**
 * API keys look like `esk_<43 base64url characters>`: 256 random bits behind a fixed prefix,
 * so a key pasted into a log or a repository is recognisable to secret scanners.
 */
export const API_KEY_PREFIX = 'esk_'
const KEY_PATTERN = /^esk_[A-Za-z0-9_-]{43}$/
/** How much of the key is kept in clear to let people tell their keys apart. */
const DISPLAY_PREFIX_LENGTH = 12

export function generateApiKeySecret(): { secret: string; displayPrefix: string; hash: Buffer } {
  const secret = API_KEY_PREFIX + randomBytes(32).toString('base64url')
  return { secret, displayPrefix: secret.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashApiKeySecret(secret) }
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value)
}

export function hashApiKeySecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest()
}
