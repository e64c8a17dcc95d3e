export interface WindowCount {
  /** Calls counted in the current window, this one included. */
  count: number
  /** Milliseconds until the window resets. */
  resetInMs: number
}

export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<WindowCount>
  /**
   * hit's answer at once, from a store that keeps its counts in this process (the memory store);
   * absent from one that must ask elsewhere (Redis). Lets the guard count a call without a promise.
   */
  hitNow?(key: string, windowMs: number): WindowCount
  /** The key's current window without counting a call: count 0 (and resetInMs 0) when it has none. */
  peek(key: string): Promise<WindowCount>
  close(): Promise<void>
}

/** Fixed windows per key, starting at the key's first call. Enough for one instance. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>()
  private readonly sweeper: NodeJS.Timeout

  constructor(private readonly now: () => number = Date.now) {
    // Drop finished windows now and then so idle keys do not accumulate.
    this.sweeper = setInterval(() => {
      const at = this.now()
      for (const [key, window] of this.windows) if (window.resetAt <= at) this.windows.delete(key)
    }, 60_000)
    this.sweeper.unref()
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    return this.hitNow(key, windowMs)
  }

  hitNow(key: string, windowMs: number): WindowCount {
    const at = this.now()
    let window = this.windows.get(key)
    if (!window || window.resetAt <= at) {
      window = { count: 0, resetAt: at + windowMs }
      this.windows.set(key, window)
    }
    window.count += 1
    return { count: window.count, resetInMs: window.resetAt - at }
  }

  async peek(key: string): Promise<WindowCount> {
    const at = this.now()
    const window = this.windows.get(key)
    if (!window || window.resetAt <= at) return { count: 0, resetInMs: 0 }
    return { count: window.count, resetInMs: window.resetAt - at }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper)
  }
}

export interface RateLimitVerdict {
  allowed: boolean
  limit: number
  remaining: number
  resetSeconds: number
  windowSeconds: number
}

export class RateLimiter {
  private readonly policyHeader: string

  constructor(
    private readonly store: RateLimitStore,
    readonly max: number,
    readonly windowSeconds: number,
  ) {
    this.policyHeader = `"default";q=${max};w=${windowSeconds}`
  }

  async consume(key: string): Promise<RateLimitVerdict> {
    return this.verdictOf(await this.store.hit(key, this.windowSeconds * 1000))
  }

  /** consume's answer at once when the store can give it (in memory); undefined when it must be awaited (Redis). */
  consumeNow(key: string): RateLimitVerdict | undefined {
    return this.store.hitNow ? this.verdictOf(this.store.hitNow(key, this.windowSeconds * 1000)) : undefined
  }

  private verdictOf({ count, resetInMs }: WindowCount): RateLimitVerdict {
    return {
      allowed: count <= this.max,
      limit: this.max,
      remaining: Math.max(0, this.max - count),
      resetSeconds: Math.max(1, Math.ceil(resetInMs / 1000)),
      windowSeconds: this.windowSeconds,
    }
  }

  /** The IETF RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers). */
  headers(verdict: RateLimitVerdict): Record<string, string> {
    return {
      'RateLimit-Policy': this.policyHeader,
      RateLimit: `"default";r=${verdict.remaining};t=${verdict.resetSeconds}`,
    }
  }

  close(): Promise<void> {
    return this.store.close()
  }
}
