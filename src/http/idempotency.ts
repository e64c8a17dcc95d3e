import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest, onSendAsyncHookHandler, preHandlerAsyncHookHandler, RouteOptions } from 'fastify'
import secureJson from 'secure-json-parse'
import { RequestTransaction } from '../db/request-transaction.js'
import { isDatabaseUnavailable } from '../db/sql-errors.js'
import type { Db } from '../db/schema.js'
import type { App } from './app-types.js'
import { findStoredAnswer, storeAnswer, tryLockIdempotencyKey, type StoredAnswer } from './idempotency.repo.js'
import { canonicalJson } from '../lib/canonical-json.js'
import { httpError, problem, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS, toProblem, type ProblemBody } from './problem.js'

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/
/** Response headers worth replaying; the rest (request id, rate limit) belong to the new call. */
const REPLAYED_HEADERS = ['content-type', 'location', 'cache-control']
/** Headers of an answer that did not happen, dropped when a commit fails: they describe it. */
const HEADERS_OF_THE_CHANGE = ['location', 'etag', 'cache-control']

interface IdempotentClaim {
  key: string
  fingerprint: string
  transaction: RequestTransaction
}

declare module 'fastify' {
  interface FastifyRequest {
    /** A keyed POST from its claim to its answer: the handler's changes and the answer commit together. */
    idempotentClaim: IdempotentClaim | undefined
  }
}

/**
 * Idempotency-Key on every POST (api-contract section 1): the first request with a key runs and
 * its answer is stored; the same key and request within 24 hours gets that answer again with
 * Idempotent-Replayed: true. Keys are per account. The claim is made after authentication and
 * validation, so a request refused before it ran leaves no key behind.
 *
 * A request with a key runs in one transaction (src/db/request-transaction.ts): it takes the key's
 * advisory lock, runs the handler, stores the answer and commits, so the change and its answer
 * exist together or not at all. A crash anywhere before the commit leaves nothing (the retry runs
 * once); after it, the retry replays. A 5xx rolls everything back and stores nothing.
 */
export function registerIdempotency(app: App, db: Db): void {
  app.decorateRequest('idempotentClaim', undefined)

  const claimKey: preHandlerAsyncHookHandler = async function (request, reply) {
    if (!request.actor) return
    const header = request.headers['idempotency-key']
    if (header === undefined) return
    const key = Array.isArray(header) ? header[0] : header
    if (key === undefined || !KEY_PATTERN.test(key)) {
      throw httpError('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice).')
    }
    // A body kept in a file (a census) is fingerprinted by its bytes: re-reading it as canonical JSON would cost as much as the census.
    const fingerprint = request.rawBodySha256
      ? createHash('sha256').update(`${request.method} ${request.url}\nsha256:${request.rawBodySha256}`).digest('hex')
      : requestFingerprint(request.method, request.url, request.rawBody)
    const accountId = request.actor.accountId
    const transaction = await RequestTransaction.begin(db)
    let stored: StoredAnswer | undefined
    try {
      if (!(await tryLockIdempotencyKey(transaction.executor, accountId, key))) {
        throw httpError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still in progress. Retry shortly.')
      }
      stored = await findStoredAnswer(transaction.executor, accountId, key)
    } catch (error) {
      await rollbackQuietly(request, transaction)
      throw error
    }
    if (!stored) {
      request.idempotentClaim = { key, fingerprint, transaction }
      return
    }
    await rollbackQuietly(request, transaction)
    if (stored.fingerprint !== fingerprint) {
      throw httpError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request in the last 24 hours.')
    }
    reply.headers(stored.headers).header('Idempotent-Replayed', 'true').code(stored.status)
    return reply.send(stored.body === '' ? undefined : stored.body)
  }

  const storeAndCommit: onSendAsyncHookHandler<unknown> = async function (request, reply, payload) {
    const claim = request.idempotentClaim
    if (!claim || !request.actor) return payload
    request.idempotentClaim = undefined
    const { key, fingerprint, transaction } = claim
    const failure = await endTransaction(request, reply, transaction, () =>
      storeAnswer(transaction.executor, request.actor!.accountId, key, {
        fingerprint,
        status: reply.statusCode,
        headers: replayedHeaders(reply),
        body: typeof payload === 'string' ? payload : '',
      }),
    )
    return failure ? replaceAnswer(reply, failure) : payload
  }

  // A safety net: an answer that went out without passing storeAndCommit (a hook before it
  // failed) must not keep the transaction, its lock and its connection.
  const releaseLeftover = async function (request: FastifyRequest): Promise<void> {
    const transaction = request.idempotentClaim?.transaction
    request.idempotentClaim = undefined
    if (!transaction?.isOpen) return
    request.log.error('the request transaction was still open after the answer; rolled back')
    await rollbackQuietly(request, transaction)
  }

  // Only POST routes get the hooks: reads on the hot path pay nothing for idempotency.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (!methods.includes('POST')) return
    route.preHandler = [...toArray(route.preHandler), claimKey]
    route.onSend = [...toArray(route.onSend), storeAndCommit]
    route.onResponse = [...toArray(route.onResponse), releaseLeftover]
    route.handler = inRequestTransaction(route.handler)
  })
}

/**
 * Runs the handler inside the request's transaction when it has one, so every query the
 * services make lands in it. (A hook's `enterWith` does not reliably reach the handler; wrapping
 * the handler does.)
 */
function inRequestTransaction(handler: RouteOptions['handler']): RouteOptions['handler'] {
  return function (this: ThisParameterType<typeof handler>, request, reply) {
    const transaction = request.idempotentClaim?.transaction
    return transaction ? transaction.run(() => handler.call(this, request, reply)) : handler.call(this, request, reply)
  }
}

/**
 * Ends the request transaction for the answer about to go out: a 5xx rolls back; otherwise the
 * answer is stored and everything commits. When that fails, the answer must not go out as if the
 * change had been made: the problem to send instead is returned. (Not thrown: the error handler
 * may already have made this answer, and a second error would bypass it.)
 */
async function endTransaction(
  request: FastifyRequest,
  reply: FastifyReply,
  transaction: RequestTransaction,
  store: () => Promise<void>,
): Promise<ProblemBody | undefined> {
  if (reply.statusCode >= 500) {
    await rollbackQuietly(request, transaction)
    return undefined
  }
  const fault = transaction.fault
  if (fault) {
    await rollbackQuietly(request, transaction)
    // A refusal (4xx) may still go out: nothing of it is kept, so a retry runs again.
    if (reply.statusCode >= 400) return undefined
    request.log.error({ err: fault }, 'the request cannot be committed')
    return problem(request, 'internal_error', 'The request could not be completed; nothing was changed.')
  }
  try {
    await store()
    await transaction.commit()
    return undefined
  } catch (error) {
    if (transaction.isOpen) await rollbackQuietly(request, transaction)
    // Whether the COMMIT took effect is unknown when the connection died under it; either way a
    // retry with the same key is right: it replays the answer or makes the change once.
    if (isDatabaseUnavailable(error)) return toProblem(error as Error, request)
    request.log.error({ err: error }, 'could not commit the request with its idempotent answer')
    return problem(request, 'service_unavailable', 'The change could not be confirmed. Retry with the same Idempotency-Key: it is made once.')
  }
}

/** A failed ROLLBACK (the connection is gone) changes nothing: the server rolls back on its own. */
async function rollbackQuietly(request: FastifyRequest, transaction: RequestTransaction): Promise<void> {
  try {
    await transaction.rollback()
  } catch (error) {
    request.log.warn({ err: error }, 'could not roll back the request transaction')
  }
}

/** Turns the answer about to go out into `body`, dropping the headers that described the change. */
function replaceAnswer(reply: FastifyReply, body: ProblemBody): string {
  for (const name of HEADERS_OF_THE_CHANGE) reply.removeHeader(name)
  if (body.status === 503) reply.header('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS))
  reply.code(body.status).header('content-type', 'application/problem+json; charset=utf-8')
  return JSON.stringify(body)
}

function replayedHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name)
    if (value !== undefined) headers[name] = String(value)
  }
  return headers
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
