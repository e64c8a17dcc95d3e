import { Redis } from 'ioredis'
import type { RateLimitStore, WindowCount } from './rate-limit.js'

// INCR and PEXPIRE in one script so the first call of a window always sets its expiry, even
// when several instances race on it.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { count, ttl }`

// GET and PTTL together, so the count and its expiry belong to the same window.
const PEEK_SCRIPT = `
local count = redis.call('GET', KEYS[1])
if not count then return { 0, 0 } end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
return { tonumber(count), ttl }`

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

  async peek(key: string): Promise<WindowCount> {
    const [count, ttl] = (await this.redis.eval(PEEK_SCRIPT, 1, this.prefix + key)) as [number, number]
    return { count, resetInMs: ttl }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect())
  }
}
