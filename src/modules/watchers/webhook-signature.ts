import { createHmac, randomBytes } from 'node:crypto'

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

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')
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
