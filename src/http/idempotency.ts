import { createHash } from 'node:crypto'
import type { onSendAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify'
import secureJson from 'secure-json-parse'
import type { Db } from '../db/schema.js'
import type { App } from './app-types.js'
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from './idempotency.repo.js'
import { canonicalJson } from '../lib/canonical-json.js'
import { httpError } from './problem.js'

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/
/** Response headers worth replaying; the rest (request id, rate limit) belong to the new call. */
const REPLAYED_HEADERS = ['content-type', 'location', 'cache-control']

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | undefined
  }
}

/**
 * Idempotency-Key on every POST (api-contract section 1): the first request with a key runs and
 * its answer is stored; the same key and request within 24 hours gets that answer again with
 * Idempotent-Replayed: true. Keys are per account. The claim is made after authentication and
 * validation, so a request refused before it ran leaves no key behind.
 */
export function registerIdempotency(app: App, db: Db): void {
  app.decorateRequest('idempotencyKey', undefined)

  const claimKey: preHandlerAsyncHookHandler = async function (request, reply) {
    if (!request.actor) return
    const header = request.headers['idempotency-key']
    if (header === undefined) return
    const key = Array.isArray(header) ? header[0] : header
    if (key === undefined || !KEY_PATTERN.test(key)) {
      throw httpError('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice).')
    }
    const fingerprint = requestFingerprint(request.method, request.url, request.rawBody)
    const claim = await claimIdempotencyKey(db, request.actor.accountId, key, fingerprint)
    switch (claim.kind) {
      case 'claimed':
        request.idempotencyKey = key
        return
      case 'mismatch':
        throw httpError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request in the last 24 hours.')
      case 'in_flight':
        throw httpError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still in progress. Retry shortly.')
      case 'replay':
        reply.headers(claim.headers).header('Idempotent-Replayed', 'true').code(claim.status)
        return reply.send(claim.body === '' ? undefined : claim.body)
    }
  }

  const storeAnswer: onSendAsyncHookHandler<unknown> = async function (request, reply, payload) {
    const key = request.idempotencyKey
    if (!key || !request.actor) return payload
    request.idempotencyKey = undefined
    const accountId = request.actor.accountId
    try {
      if (reply.statusCode >= 500) {
        await releaseIdempotencyKey(db, accountId, key)
      } else {
        const headers: Record<string, string> = {}
        for (const name of REPLAYED_HEADERS) {
          const value = reply.getHeader(name)
          if (value !== undefined) headers[name] = String(value)
        }
        await completeIdempotencyKey(db, accountId, key, {
          status: reply.statusCode,
          headers,
          body: typeof payload === 'string' ? payload : '',
        })
      }
    } catch (error) {
      // The change itself is committed; failing the response now would invite a duplicate retry.
      request.log.error({ err: error }, 'could not record the idempotent response')
    }
    return payload
  }

  // Only POST routes get the hooks: reads on the hot path pay nothing for idempotency.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (!methods.includes('POST')) return
    route.preHandler = [...toArray(route.preHandler), claimKey]
    route.onSend = [...toArray(route.onSend), storeAnswer]
  })
}

/**
 * The same request is the same JSON, not the same bytes: a client that re-serialises its body
 * with keys in another order or other whitespace is retrying, not reusing the key. The raw text
 * is parsed again (rather than using request.body) because validation may have filled defaults.
 */
export function requestFingerprint(method: string, url: string, rawBody: string | undefined): string {
  return createHash('sha256').update(`${method} ${url}\n`).update(canonicalBody(rawBody ?? '')).digest('hex')
}

/**
 * The body as canonical JSON, parsed the way the body parser in src/app.ts parses it
 * (secure-json-parse, which also drops a leading byte order mark); an empty text is no body. The
 * parser accepted this text already, but a fingerprint must never turn a request into a 500: if
 * the text ever fails to parse here, the text itself is the fingerprint, in its own namespace so
 * it cannot equal the canonical form of some JSON.
 */
function canonicalBody(text: string): string {
  if (text.trim() === '') return ''
  try {
    return canonicalJson(secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }))
  } catch {
    return `raw:${text}`
  }
}

function toArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}
