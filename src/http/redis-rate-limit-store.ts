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

/**
 * Redis answers a counter in well under a millisecond; one that has not answered in a second is
 * gone (a host dropping packets), and every request would otherwise wait on it.
 */
const COMMAND_TIMEOUT_MS = 1000
/** How often a lost connection is tried again: a restarted Redis counts again within this. */
const RECONNECT_EVERY_MS = 1000

/** Where the store says that Redis went away and came back: once each, not once per request. */
export interface StoreOutageLog {
  warn(fields: object, message: string): void
  info(fields: object, message: string): void
}

/**
 * What the store throws while Redis is unreachable. The outage has been logged once already, so
 * callers need not log each refusal: the rate limit lets the call through (fail-open), the
 * sign-in counters refuse sign-in (fail-closed).
 */
export class RateLimitStoreUnavailable extends Error {
  readonly code = 'RATE_LIMIT_STORE_UNAVAILABLE'
  readonly reported = true
  constructor(cause?: unknown) {
    super('The rate-limit store (Redis) is not reachable', { cause })
    this.name = 'RateLimitStoreUnavailable'
  }
}

/** Counters in Redis, so every instance of a cluster enforces one limit per account. */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis
  /** When the current outage began; undefined while Redis answers. */
  private lostAt: number | undefined
  private closing = false

  constructor(
    url: string,
    private readonly prefix = 'enrollsync:rate:',
    private readonly log: StoreOutageLog = processWarnings,
  ) {
    this.redis = new Redis(url, {
      // Calls made before the first connection wait for it (the offline queue); once a connection
      // is lost they fail at once instead (see `run`), so no request waits on an absent Redis.
      enableOfflineQueue: true,
      maxRetriesPerRequest: 1,
      autoResendUnfulfilledCommands: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: () => RECONNECT_EVERY_MS,
    })
    this.redis.on('error', (error: Error) => this.markLost(error))
    this.redis.on('close', () => this.markLost(new Error('connection closed')))
    this.redis.on('ready', () => this.markAvailable())
  }

  /** True while Redis answers (or has not failed yet since the store was made). */
  get available(): boolean {
    return this.lostAt === undefined
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const [count, ttl] = await this.run(() => this.redis.eval(HIT_SCRIPT, 1, this.prefix + key, windowMs) as Promise<[number, number]>)
    return { count, resetInMs: ttl }
  }

  async peek(key: string): Promise<WindowCount> {
    const [count, ttl] = await this.run(() => this.redis.eval(PEEK_SCRIPT, 1, this.prefix + key) as Promise<[number, number]>)
    return { count, resetInMs: ttl }
  }

  async close(): Promise<void> {
    this.closing = true
    await this.redis.quit().catch(() => this.redis.disconnect())
  }

  private async run<T>(command: () => Promise<T>): Promise<T> {
    if (this.lostAt !== undefined) throw new RateLimitStoreUnavailable()
    try {
      return await command()
    } catch (error) {
      if (isCommandTimeout(error) && this.redis.status === 'ready') {
        // Connected but silent: drop the connection so a fresh one is tried (and `ready` ends the outage).
        this.markLost(error as Error)
        this.redis.disconnect(true)
      }
      // A failure of the connection has been reported as the outage; anything else is the caller's to log.
      throw this.lostAt !== undefined ? new RateLimitStoreUnavailable(error) : error
    }
  }

  private markLost(error: Error): void {
    if (this.closing || this.lostAt !== undefined) return
    this.lostAt = Date.now()
    this.log.warn(
      { error: error.message },
      'Redis is not reachable: rate limits are not enforced (calls are let through) and console sign-in answers 503 until it is back',
    )
  }

  private markAvailable(): void {
    if (this.lostAt === undefined) return
    const outageMs = Date.now() - this.lostAt
    this.lostAt = undefined
    this.log.info({ outageMs }, 'Redis is reachable again: rate limits and sign-in counters apply again')
  }
}

function isCommandTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Command timed out'
}

/** Without a logger (a store made outside the service's start), the outage goes to process warnings. */
const processWarnings: StoreOutageLog = {
  warn: (fields, message) => process.emitWarning(`${message} (${JSON.stringify(fields)})`, { code: 'ENROLLSYNC_REDIS_UNAVAILABLE' }),
  info: () => {},
}
