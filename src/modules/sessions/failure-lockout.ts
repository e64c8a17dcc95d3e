import type { RateLimitStore } from '../../http/rate-limit.js'
import type { DomainError } from '../../lib/domain-error.js'

/** A counter key and how many failures it may reach in the window before it is refused. */
export interface FailureLimit {
  key: string
  max: number
}

/**
 * Failed attempts at a secret (a password at sign-in, a set-password link) counted per key in the
 * rate-limit store, shared by every instance with Redis. Peek before checking the secret, count
 * after a failure. When the store does not answer it fails closed with `unavailable()`: without
 * the counters a secret could be guessed without limit.
 */
export function createFailureLockout(store: RateLimitStore, windowSeconds: number, unavailable: () => DomainError) {
  const windowMs = windowSeconds * 1000

  async function counted<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      throw Object.assign(unavailable(), { cause: error })
    }
  }

  return {
    /** Seconds until every exhausted key may try again (at least 1), or undefined when none is exhausted. */
    async retryAfterSeconds(limits: FailureLimit[]): Promise<number | undefined> {
      const windows = await counted(() => Promise.all(limits.map((limit) => store.peek(limit.key))))
      const exceeded = windows.filter((window, i) => window.count >= limits[i]!.max)
      if (exceeded.length === 0) return undefined
      return Math.max(1, Math.ceil(Math.max(...exceeded.map((window) => window.resetInMs)) / 1000))
    },

    /** Counts one failure against each key. */
    async countFailure(keys: string[]): Promise<void> {
      await counted(() => Promise.all(keys.map((key) => store.hit(key, windowMs))))
    },
  }
}
