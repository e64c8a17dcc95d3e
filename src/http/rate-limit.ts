import { Redis } from 'ioredis'

export interface WindowCount {
  /** Calls counted in the current window, this one included. */
  count: number
  /** Milliseconds until the window resets. */
  resetInMs: number
}

export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<WindowCount>
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
    const at = this.now()
    let window = this.windows.get(key)
    if (!window || window.resetAt <= at) {
      window = { count: 0, resetAt: at + windowMs }
      this.windows.set(key, window)
    }
    window.count += 1
    return { count: window.count, resetInMs: window.resetAt - at }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper)
  }
}

// INCR and PEXPIRE in one script so the first call of a window always sets its expiry, even
// when several instances race on it.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { count, ttl }`

/** Counters in Redis, so every instance of a cluster enforces one limit per account. */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis

  constructor(url: string, private readonly prefix = 'enrollsync:rate:') {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false })
    // Errors surface through hit(); without a listener ioredis would also print them unhandled.
    this.redis.on('error', () => {})
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const [count, ttl] = (await this.redis.eval(HIT_SCRIPT, 1, this.prefix + key, windowMs)) as [number, number]
    return { count, resetInMs: ttl }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect())
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
  constructor(
    private readonly store: RateLimitStore,
    readonly max: number,
    readonly windowSeconds: number,
  ) {}

  async consume(key: string): Promise<RateLimitVerdict> {
    const { count, resetInMs } = await this.store.hit(key, this.windowSeconds * 1000)
    return {
      allowed: count <= this.max,
      limit: this.max,
      remaining: Math.max(0, this.max - count),
      resetSeconds: Math.max(1, Math.ceil(resetInMs / 1000)),
      windowSeconds: this.windowSeconds,
    }
  }

  /** The IETF RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers). */
  static headers(verdict: RateLimitVerdict): Record<string, string> {
    return {
      'RateLimit-Policy': `"default";q=${verdict.limit};w=${verdict.windowSeconds}`,
      RateLimit: `"default";r=${verdict.remaining};t=${verdict.resetSeconds}`,
    }
  }

  close(): Promise<void> {
    return this.store.close()
  }
}
