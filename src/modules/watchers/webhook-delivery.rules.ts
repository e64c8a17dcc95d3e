import type { SendResult } from './webhook-sender.js'

/**
 * What an attempt's result means for the delivery:
 * - 2xx: delivered.
 * - 5xx, 408, 429, a timeout or a connection failure: the receiver may take it later; retry on
 *   the schedule.
 * - 410 Gone: the receiver asks never to be called again; fail and disable the watcher.
 * - 3xx: redirects are not followed (a redirect could lead to an internal address the check
 *   never saw); fail, the URL should be the final one.
 * - any other 4xx (and anything else), or an address the policy refuses: retrying the same
 *   request cannot help; fail.
 */
export type Verdict =
  | { kind: 'succeeded' }
  | { kind: 'retryable'; error: string }
  | { kind: 'failed'; error: string }
  | { kind: 'gone'; error: string }

function withExcerpt(text: string, excerpt: string): string {
  return excerpt ? `${text}: ${excerpt}` : text
}

export function verdictOf(result: SendResult): Verdict {
  const status = result.statusCode
  if (status === null) return result.refused ? { kind: 'failed', error: result.error ?? 'refused' } : { kind: 'retryable', error: result.error ?? 'no response' }
  if (status >= 200 && status < 300) return { kind: 'succeeded' }
  if (status === 410) return { kind: 'gone', error: withExcerpt('HTTP 410 Gone: the receiver asked to stop; the watcher is disabled', result.excerpt) }
  if (status >= 300 && status < 400) return { kind: 'failed', error: `HTTP ${status}: redirects are not followed; set the watcher URL to the final location` }
  if (status >= 500 || status === 408 || status === 429) return { kind: 'retryable', error: withExcerpt(`HTTP ${status}`, result.excerpt) }
  return { kind: 'failed', error: withExcerpt(`HTTP ${status}`, result.excerpt) }
}

/**
 * When attempt `attempt + 1` is due after attempt `attempt` failed and may be retried, or null
 * when the schedule is spent. `schedule[n]` is the delay before attempt n + 1.
 */
export function nextAttemptAt(schedule: readonly number[], attempt: number, from: Date): Date | null {
  const delaySeconds = schedule[attempt]
  return delaySeconds === undefined ? null : new Date(from.getTime() + delaySeconds * 1000)
}
