import { randomUUID } from 'node:crypto'
import { ssnProblem } from '../lib/identifiers.js'

/** A step of the demo that did not go as it should: what was done, and what came back. */
export class DemoFailure extends Error {}

/**
 * The demo's HTTP client: plain fetch against the listening service, the way an integrator's
 * code would call it. Every POST carries an Idempotency-Key, as clients should send.
 */
export class DemoApi {
  constructor(readonly baseUrl: string) {}

  async call<T>(key: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'service-api-key': key }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (method === 'POST') headers['idempotency-key'] = randomUUID()
    const response = await fetch(this.baseUrl + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
    const text = await response.text()
    if (!response.ok) throw new DemoFailure(`${method} ${path} answered ${response.status}: ${describeProblem(text)}`)
    return (text === '' ? undefined : JSON.parse(text)) as T
  }

  get<T>(key: string, path: string): Promise<T> {
    return this.call<T>(key, 'GET', path)
  }

  post<T>(key: string, path: string, body?: unknown): Promise<T> {
    return this.call<T>(key, 'POST', path, body)
  }

  put<T>(key: string, path: string, body: unknown): Promise<T> {
    return this.call<T>(key, 'PUT', path, body)
  }

  /** A raw body (an 834 file). */
  async text(key: string, path: string): Promise<string> {
    const response = await fetch(this.baseUrl + path, { headers: { 'service-api-key': key } })
    const text = await response.text()
    if (!response.ok) throw new DemoFailure(`GET ${path} answered ${response.status}: ${describeProblem(text)}`)
    return text
  }
}

/** A problem+json body in one line: its code, title and the fields it names (never echoed values). */
function describeProblem(text: string): string {
  try {
    const problem = JSON.parse(text) as { code?: string; title?: string; detail?: string; errors?: { pointer?: string; detail?: string }[] }
    const fields = (problem.errors ?? []).map((e) => `${e.pointer ?? ''} ${e.detail ?? ''}`.trim())
    return [problem.code, problem.detail ?? problem.title, ...fields].filter(Boolean).join('; ')
  } catch {
    return text.slice(0, 300)
  }
}

// ---- Output ----

export function step(n: number, title: string): void {
  console.log(`\n${n}. ${title}`)
}

export function line(text: string): void {
  console.log(`   ${text}`)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Polls `probe` until it answers something, printing what it waits for and how long it took.
 * The work happens in the background (the outbox worker, the sandbox carrier's delay), so the
 * demo watches it the way a client would: by reading the API again.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  process.stdout.write(`   ... waiting for ${what} `)
  const started = Date.now()
  for (;;) {
    const value = await probe()
    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    if (value !== undefined) {
      process.stdout.write(`(${seconds} s)\n`)
      return value
    }
    if (Date.now() - started > timeoutMs) {
      process.stdout.write('\n')
      throw new DemoFailure(`gave up waiting for ${what} after ${seconds} s`)
    }
    await sleep(200)
  }
}

// ---- Personal data in what is printed ----

/**
 * Any nine-digit run that could be an SSN, masked to its last four: an 834 carries members' SSNs
 * in NM1 (and may in REF) segments, and the demo prints some of its lines. Control numbers and the
 * FEIN chosen for the demo are not SSN-shaped, so they stay readable.
 */
export function maskSsns(text: string): string {
  return text.replace(/(?<!\d)\d{9}(?!\d)/g, (digits) => (ssnProblem(digits) === undefined ? `***-**-${digits.slice(5)}` : digits))
}

export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`

/** A birth date without its year: enough to see the day the carrier has wrong. */
export const maskBirthDate = (value: string) => value.replace(/^\d{4}-/, '****-')

/** A discrepancy value in one short phrase. */
export function describeValue(parameter: string, value: unknown): string {
  if (value === null || value === undefined) return '(none)'
  if (parameter === 'birth_date' && typeof value === 'string') return maskBirthDate(value)
  if (typeof value !== 'object') return String(value)
  const record = value as Record<string, unknown>
  if ('address_line_1' in record) return [record.address_line_1, record.city, [record.state, record.zip].filter(Boolean).join(' ')].filter(Boolean).join(', ')
  if ('first_name' in record) return [record.first_name, record.last_name, record.subscriber_relationship ?? record.relationship].filter(Boolean).join(' ')
  return maskSsns(JSON.stringify(record))
}
