import secureJson from 'secure-json-parse'
import { maskSsnsInText } from '../../../lib/free-text-masking.js'

export interface ApiConnectorOptions {
  baseUrl: string
  /** Sent as `Authorization: Bearer <token>` when set. */
  token?: string
  timeoutMs: number
}

export interface CarrierApiResult {
  status: number
  /** Parsed JSON, the text when it is not JSON, null when empty. The caller validates its shape. */
  body: unknown
}

/** The carrier refused the request (4xx, a redirect): sending it again would be refused again. */
export class CarrierRejectedError extends Error {
  readonly retryable = false

  constructor(
    readonly status: number,
    readonly bodyExcerpt: string,
    message: string,
  ) {
    super(message)
    this.name = 'CarrierRejectedError'
  }
}

/** The carrier could not be reached or failed (5xx, 408, 429, timeout, network): try again later. */
export class CarrierUnavailableError extends Error {
  readonly retryable = true

  constructor(
    message: string,
    readonly status?: number,
    /** From Retry-After, when the carrier sent one. */
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'CarrierUnavailableError'
  }
}

const MAX_RESPONSE_BYTES = 1024 * 1024
const EXCERPT_CHARS = 300
// 408 and 429 are the carrier saying "not now", and 425 "too early": the same request can succeed later.
const RETRYABLE_CLIENT_STATUSES = new Set([408, 425, 429])

/**
 * Calls an `api` carrier. Every submission carries an Idempotency-Key chosen by the caller and
 * kept across retries, so a request whose answer was lost (timeout, dropped connection) and is
 * sent again is applied once by the carrier.
 */
export class ApiCarrierConnector {
  private readonly base: string

  constructor(private readonly options: ApiConnectorOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '')
  }

  describe(): string {
    return `api ${this.base}`
  }

  async submit(path: string, body: unknown, idempotencyKey: string): Promise<CarrierApiResult> {
    // A path not starting with one '/' could change the host when appended (`@evil.example`, `//x`).
    if (!path.startsWith('/') || path.startsWith('//')) throw new Error(`Carrier API path must start with a single /: ${JSON.stringify(path)}`)
    if (!/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) throw new Error('Idempotency key must be 1 to 255 visible ASCII characters')
    const url = this.base + path
    const target = `POST ${url}`
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'idempotency-key': idempotencyKey,
    }
    if (this.options.token !== undefined) headers.authorization = `Bearer ${this.options.token}`

    let response: Response
    let text: string
    try {
      // One deadline for the answer and its body: a carrier trickling bytes is as stuck as a silent one.
      const signal = AbortSignal.timeout(this.options.timeoutMs)
      // Redirects are not followed: a POST re-sent elsewhere with the bearer token is not what the
      // configuration asked for.
      response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), redirect: 'manual', signal })
      text = await readLimited(response)
    } catch (error) {
      const name = (error as { name?: unknown }).name
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new CarrierUnavailableError(`${target} got no complete answer within ${this.options.timeoutMs} ms`, undefined, undefined, { cause: error })
      }
      throw new CarrierUnavailableError(`${target} failed: ${describeNetworkError(error)}`, undefined, undefined, { cause: error })
    }

    const status = response.status
    if (status >= 200 && status < 300) return { status, body: parseBody(text) }
    const excerpt = excerptOf(text)
    if (status >= 500 || RETRYABLE_CLIENT_STATUSES.has(status)) {
      throw new CarrierUnavailableError(`${target} answered ${status}: ${excerpt}`, status, retryAfterMs(response.headers.get('retry-after')))
    }
    if (status >= 300 && status < 400) {
      throw new CarrierRejectedError(status, excerpt, `${target} answered ${status} (redirect to ${response.headers.get('location') ?? 'nowhere'}); set base_url to the final address`)
    }
    throw new CarrierRejectedError(status, excerpt, `${target} answered ${status}: ${excerpt}`)
  }
}

/** The body as text, read no further than MAX_RESPONSE_BYTES (the rest is dropped). */
async function readLimited(response: Response): Promise<string> {
  if (!response.body) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = response.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.length
    if (size >= MAX_RESPONSE_BYTES) {
      await reader.cancel()
      break
    }
  }
  return Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8')
}

function parseBody(text: string): unknown {
  if (text.trim() === '') return null
  try {
    // The body comes from outside: no __proto__ or constructor keys to poison objects it is merged into.
    return secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' })
  } catch {
    return text
  }
}

/**
 * A short, single-line piece of the answer for logs and the error queue. Carriers sometimes echo
 * the submitted member, so anything shaped like an SSN is masked (the one rule free text follows).
 */
export function excerptOf(text: string): string {
  const line = maskSsnsInText(text.replace(/[\u0000-\u001f\u007f]+/g, ' ')).trim()
  if (line === '') return '(empty body)'
  return line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}…` : line
}

function describeNetworkError(error: unknown): string {
  // undici reports "fetch failed" and puts the reason (ECONNREFUSED, ENOTFOUND...) in the cause.
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
  if (cause && typeof cause.code === 'string') return cause.code
  if (cause && typeof cause.message === 'string') return cause.message
  return error instanceof Error ? error.message : String(error)
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}
