import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'
import { performance } from 'node:perf_hooks'
import { addressRefusal, ForbiddenAddressError, guardedLookup, hostOf, urlShapeRefusal, type OutboundPolicy } from '../../lib/outbound-url.js'

/** What one POST to a receiver came to. Exactly one of `statusCode` and `error` is set. */
export interface SendResult {
  statusCode: number | null
  /** Why no status came: a timeout, a connection failure, or an address the policy refuses. */
  error: string | null
  /** The policy refused the address: retrying cannot help. */
  refused: boolean
  /** The start of a non-2xx response body, made safe to store (printable, short). */
  excerpt: string
  durationMs: number
}

export interface WebhookRequest {
  url: string
  headers: Record<string, string>
  body: string
}

export interface SendOptions {
  timeoutMs: number
  policy: OutboundPolicy
  /**
   * Kept-alive connections to reuse (createReceiverConnections). Without them, a fresh
   * connection per delivery, closed after it.
   */
  connections?: ReceiverConnections
}

const EXCERPT_BYTES = 512
const EXCERPT_CHARS = 200
/** A 2xx body is read (and dropped) to keep its connection, up to this much; past it the connection is closed. */
const DRAIN_BYTES = 64 * 1024
/**
 * An idle kept-alive connection is closed after this long: below the 5 s idle timeout of Node's
 * own HTTP server and of most others, so the receiver rarely closes one under a request.
 */
const IDLE_CONNECTION_MS = 4000
/** The errors of a kept-alive connection the receiver closed as it was reused: sent again once on a fresh one. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE'])

/** Printable text only, whitespace collapsed, cut short: what may be stored and shown of a response. */
export function safeExcerpt(text: string): string {
  const printable = text.replace(/[^\x20-\x7e\u00a0-\uffff]+/g, ' ').replace(/\s+/g, ' ').trim()
  return printable.length > EXCERPT_CHARS ? `${printable.slice(0, EXCERPT_CHARS)}...` : printable
}

function describeFailure(error: NodeJS.ErrnoException): string {
  if (error instanceof ForbiddenAddressError) return `refused: ${error.message}`
  // Codes, not messages: they are stable and name nothing of the request.
  return error.code ? `connection failed (${error.code})` : 'connection failed'
}

/**
 * Connections kept alive between deliveries, per receiver origin (scheme, host and port), at most
 * `perOrigin` of them at once (a delivery beyond waits for one to free). A new connection still
 * passes the address check (the sender's guarded lookup); a reused one goes to an address that
 * passed it, under the same policy. Idle ones close after IDLE_CONNECTION_MS and never keep the
 * process alive.
 */
export interface ReceiverConnections {
  readonly http: HttpAgent
  readonly https: HttpsAgent
}

export function createReceiverConnections(perOrigin: number): ReceiverConnections {
  const options = { keepAlive: true, maxSockets: perOrigin, maxFreeSockets: perOrigin, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' as const }
  return { http: new HttpAgent(options), https: new HttpsAgent(options) }
}

/**
 * POSTs one delivery. Redirects are not followed (a 3xx is the answer). The whole exchange, from
 * the lookup to the response headers (and a short excerpt of an error body), must fit in
 * `timeoutMs`: a receiver that hangs is cut off and holds its worker slot no longer. With
 * `connections`, a connection is kept for the next delivery once its response has been read
 * whole (within the same deadline); a kept connection the receiver had closed meanwhile fails
 * before any answer, and the delivery is sent once more on a fresh connection (the receiver may
 * see it twice if it processed it and then reset the connection: webhooks are at least once and
 * the webhook-id tells the copy).
 */
export function sendWebhook(request: WebhookRequest, { timeoutMs, policy, connections }: SendOptions): Promise<SendResult> {
  const shape = urlShapeRefusal(request.url)
  if (shape) return Promise.resolve({ statusCode: null, error: `refused: URL ${shape.detail}`, refused: true, excerpt: '', durationMs: 0 })
  const url = new URL(request.url)
  // An IP literal is connected to without a lookup: check it here.
  const host = hostOf(url)
  const literal = isIP(host) ? addressRefusal(host, policy) : undefined
  if (literal) return Promise.resolve({ statusCode: null, error: `refused: ${literal.detail}`, refused: true, excerpt: '', durationMs: 0 })

  const https = url.protocol === 'https:'
  const send = https ? httpsRequest : httpRequest
  const agent = connections ? (https ? connections.https : connections.http) : false
  const started = performance.now()
  return new Promise((resolve) => {
    let statusCode: number | null = null
    let excerpt = ''
    let settled = false
    let outgoing: ClientRequest
    let response: IncomingMessage | undefined
    const settle = (failure?: { error: string; refused?: boolean }) => {
      if (settled) return
      settled = true
      resolve({
        statusCode: failure ? null : statusCode,
        error: failure?.error ?? null,
        refused: failure?.refused ?? false,
        excerpt: safeExcerpt(excerpt),
        durationMs: Math.round(performance.now() - started),
      })
    }
    // Done with the exchange: a response read whole leaves its connection to the agent; any other
    // (cut short, timed out, failed) is closed, so no stray bytes reach the next delivery.
    const release = () => {
      clearTimeout(timer)
      if (!response?.complete) outgoing.destroy()
    }
    /** The answer is known and the exchange is over. */
    const finish = (failure?: { error: string; refused?: boolean }) => {
      settle(failure)
      release()
    }
    const onResponse = (incoming: IncomingMessage) => {
      response = incoming
      statusCode = incoming.statusCode ?? null
      // Destroying the request later may surface as an error here; it changes nothing then.
      incoming.on('error', () => finish())
      incoming.on('end', () => finish())
      if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
        // Answered: the slot is free now; the body, if any, is read in the background.
        settle()
        let drained = 0
        incoming.on('data', (chunk: Buffer) => {
          drained += chunk.length
          if (drained > DRAIN_BYTES) release()
        })
        return
      }
      incoming.setEncoding('utf8')
      incoming.on('data', (chunk: string) => {
        excerpt += chunk
        if (excerpt.length >= EXCERPT_BYTES) finish()
      })
    }
    const start = (mayResend: boolean) => {
      const attempt = send(url, { method: 'POST', headers: request.headers, agent, lookup: guardedLookup(policy) }, onResponse)
      outgoing = attempt
      attempt.on('error', (error: NodeJS.ErrnoException) => {
        if (settled || attempt !== outgoing) return
        if (mayResend && response === undefined && attempt.reusedSocket && error.code && STALE_CONNECTION_CODES.has(error.code)) return start(false)
        finish({ error: describeFailure(error), refused: error instanceof ForbiddenAddressError })
      })
      attempt.end(request.body)
    }
    const timer = setTimeout(() => {
      finish(statusCode !== null ? undefined : { error: `no response within ${timeoutMs} ms` })
    }, timeoutMs)
    start(connections !== undefined)
  })
}
