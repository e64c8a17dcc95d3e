import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
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
}

const EXCERPT_BYTES = 512
const EXCERPT_CHARS = 200

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
 * POSTs one delivery. Redirects are not followed (a 3xx is the answer). The whole exchange, from
 * the lookup to the response headers (and a short excerpt of an error body), must fit in
 * `timeoutMs`: a receiver that hangs is cut off and holds its worker slot no longer. A fresh
 * connection each time (no keep-alive agent), so every delivery passes the address check.
 */
export function sendWebhook(request: WebhookRequest, { timeoutMs, policy }: SendOptions): Promise<SendResult> {
  const shape = urlShapeRefusal(request.url)
  if (shape) return Promise.resolve({ statusCode: null, error: `refused: URL ${shape.detail}`, refused: true, excerpt: '', durationMs: 0 })
  const url = new URL(request.url)
  // An IP literal is connected to without a lookup: check it here.
  const host = hostOf(url)
  const literal = isIP(host) ? addressRefusal(host, policy) : undefined
  if (literal) return Promise.resolve({ statusCode: null, error: `refused: ${literal.detail}`, refused: true, excerpt: '', durationMs: 0 })

  const started = performance.now()
  return new Promise((resolve) => {
    let statusCode: number | null = null
    let excerpt = ''
    let settled = false
    const finish = (failure?: { error: string; refused?: boolean }) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      outgoing.destroy()
      resolve({
        statusCode: failure ? null : statusCode,
        error: failure?.error ?? null,
        refused: failure?.refused ?? false,
        excerpt: safeExcerpt(excerpt),
        durationMs: Math.round(performance.now() - started),
      })
    }
    const onResponse = (response: IncomingMessage) => {
      statusCode = response.statusCode ?? null
      // Destroying the request later may surface as an error here; it changes nothing then.
      response.on('error', () => finish())
      if (statusCode !== null && statusCode >= 200 && statusCode < 300) return finish()
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        excerpt += chunk
        if (excerpt.length >= EXCERPT_BYTES) finish()
      })
      response.on('end', () => finish())
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const outgoing = send(url, { method: 'POST', headers: request.headers, agent: false, lookup: guardedLookup(policy) }, onResponse)
    const timer = setTimeout(() => {
      if (statusCode !== null) finish()
      else finish({ error: `no response within ${timeoutMs} ms` })
    }, timeoutMs)
    outgoing.on('error', (error: NodeJS.ErrnoException) => finish({ error: describeFailure(error), refused: error instanceof ForbiddenAddressError }))
    outgoing.end(request.body)
  })
}
