import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` and the
 * base64 of 32 random bytes; a signature is `v1,` and the base64 HMAC-SHA256, keyed with those
 * bytes, of `<webhook-id>.<webhook-timestamp>.<body>`. Receivers verify it with any Standard
 * Webhooks library.
 */

const SECRET_PREFIX = 'whsec_'

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64')
}

/**
 * Secret -> its HMAC key, decoded once: a burst signs thousands of deliveries with the same few
 * secrets. Bounded, since secrets rotate: emptied when full (refilled by the next deliveries).
 */
const keys = new Map<string, KeyObject>()
const MAX_KEYS = 1000

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret)
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear()
    key = createSecretKey(Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64'))
    keys.set(secret, key)
  }
  return key
}

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  return 'v1,' + createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
}

/**
 * The `webhook-signature` header: one signature per secret in use, space separated, the current
 * secret first. During a rotation's overlap the previous secret signs too, so a receiver still
 * configured with it keeps accepting deliveries until it switches.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signWebhook(secret, id, timestampSeconds, body)).join(' ')
}
