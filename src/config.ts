import { Type, type Static } from 'typebox'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import { parseCorsOrigins } from './http/cors.js'
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from './http/server-limits.js'
import { DEFAULT_WORKER_DEAD_AFTER_MS, DEFAULT_WORKER_HEARTBEAT_MS } from './jobs/worker-heartbeat.js'
import { SsnKeyError, SsnProtection } from './lib/ssn-protection.js'
import { DEFAULT_CARRIER_SETTINGS, type CarrierSettings } from './modules/carrier-delivery/carrier-settings.js'
import { DEFAULT_EVENT_LOG_RETENTION_DAYS, DEFAULT_EVENT_STREAM_SETTINGS, type EventStreamSettings } from './modules/event-stream/event-stream.settings.js'
import { DEFAULT_CONSOLE_SESSION_SETTINGS, type ConsoleSessionSettings } from './modules/sessions/session-settings.js'
import { DEFAULT_RETRY_SCHEDULE_SECONDS, DEFAULT_WEBHOOK_SETTINGS, DEFAULT_WORKER_STALE_AFTER_MS, MAX_HOST_BACKOFF_SECONDS, type WebhookSettings } from './modules/watchers/webhook-settings.js'

/**
 * Every environment variable the service reads, in one schema. `loadConfig` is called once by the
 * entry points in `src/main/`; everything else receives the frozen result, never `process.env`.
 * The configuration table in docs/configuration.md is written from this schema: keep them together.
 */
const EnvSchema = Type.Object({
  NODE_ENV: Type.Enum(['development', 'production', 'test'], { default: 'development' }),
  HOST: Type.String({ default: '127.0.0.1' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  DATA_DIR: Type.String({ default: './data', minLength: 1 }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  // How long a query waits for a pooled connection (a new one connecting, or a busy pool's turn) before 503.
  DATABASE_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 5000 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  TOKEN_SIGNING_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  SSN_ENCRYPTION_KEYS: Type.Optional(Type.String({ minLength: 1 })),
  SSN_HASH_KEY: Type.Optional(Type.String({ minLength: 1 })),
  RATE_LIMIT_MAX: Type.Integer({ minimum: 1, default: 1500 }),
  RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 300 }),
  API_KEY_CACHE_SECONDS: Type.Integer({ minimum: 0, maximum: 60, default: 5 }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 16 * 1024 * 1024 }),
  HTTP_HEADERS_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: DEFAULT_SERVER_LIMITS.headersTimeoutMs }),
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: DEFAULT_SERVER_LIMITS.requestTimeoutMs }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 600_000, default: DEFAULT_SERVER_LIMITS.keepAliveTimeoutMs }),
  HTTP_MAX_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: DEFAULT_SERVER_LIMITS.maxConnections }),
  WORKER: Type.Enum(['in-process', 'off'], { default: 'in-process' }),
  WORKER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 4 }),
  WORKER_POLL_MS: Type.Integer({ minimum: 10, default: 1000 }),
  WORKER_STALE_AFTER_MS: Type.Integer({ minimum: 1000, default: DEFAULT_WORKER_STALE_AFTER_MS }),
  WORKER_HEARTBEAT_MS: Type.Integer({ minimum: 50, maximum: 60_000, default: DEFAULT_WORKER_HEARTBEAT_MS }),
  WORKER_DEAD_AFTER_MS: Type.Integer({ minimum: 150, maximum: 3_600_000, default: DEFAULT_WORKER_DEAD_AFTER_MS }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: DEFAULT_WEBHOOK_SETTINGS.timeoutMs }),
  WEBHOOK_RETRY_SCHEDULE_SECONDS: Type.String({ pattern: '^\\s*\\d+(\\s*,\\s*\\d+)*\\s*$', default: DEFAULT_RETRY_SCHEDULE_SECONDS.join(',') }),
  // Unset: loopback receivers only, and only in embedded development (see webhookAddressAllowance).
  WEBHOOK_ALLOW_PRIVATE_URLS: Type.Optional(Type.Boolean()),
  WEBHOOK_SECRET_OVERLAP_SECONDS: Type.Integer({ minimum: 0, maximum: 7 * 86_400, default: DEFAULT_WEBHOOK_SETTINGS.secretOverlapSeconds }),
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 256, default: DEFAULT_WEBHOOK_SETTINGS.concurrency }),
  WATCHERS_PER_ACCOUNT_LIMIT: Type.Integer({ minimum: 1, maximum: 10_000, default: DEFAULT_WEBHOOK_SETTINGS.watchersPerAccountLimit }),
  WEBHOOK_HOST_FAILURE_THRESHOLD: Type.Integer({ minimum: 1, maximum: 1000, default: DEFAULT_WEBHOOK_SETTINGS.hostFailureThreshold }),
  WEBHOOK_HOST_BACKOFF_SECONDS: Type.Integer({ minimum: 1, maximum: MAX_HOST_BACKOFF_SECONDS, default: DEFAULT_WEBHOOK_SETTINGS.hostBackoffSeconds }),
  EVENT_STREAM_POLL_MS: Type.Integer({ minimum: 50, maximum: 60_000, default: DEFAULT_EVENT_STREAM_SETTINGS.pollMs }),
  EVENT_STREAMS_PER_ACCOUNT: Type.Integer({ minimum: 1, maximum: 10_000, default: DEFAULT_EVENT_STREAM_SETTINGS.streamsPerAccount }),
  EVENT_LOG_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: DEFAULT_EVENT_LOG_RETENTION_DAYS }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  TRUST_PROXY: Type.Boolean({ default: false }),
  // Comma-separated browser origins allowed to call the API cross-origin; unset: CORS is off.
  CORS_ORIGINS: Type.Optional(Type.String()),
  CARRIERS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  OUTBOUND_DIR: Type.Optional(Type.String({ minLength: 1 })),
  TRANSACTION_BATCH_DELAY_MS: Type.Integer({ minimum: 0, maximum: 3_600_000, default: DEFAULT_CARRIER_SETTINGS.transactionBatchDelayMs }),
  SANDBOX_CARRIER_DELAY_MS: Type.Integer({ minimum: 0, maximum: 86_400_000, default: DEFAULT_CARRIER_SETTINGS.sandboxDelayMs }),
  FILE_BUILD_HEAP_GROWING_PERCENT: Type.Integer({ minimum: 0, maximum: 1000, default: DEFAULT_CARRIER_SETTINGS.fileBuildHeapGrowingPercent }),
  CENSUS_HEAP_GROWING_PERCENT: Type.Integer({ minimum: 0, maximum: 1000, default: DEFAULT_CARRIER_SETTINGS.censusHeapGrowingPercent }),
  EDI_SENDER_QUALIFIER: Type.String({ pattern: '^[0-9A-Z]{2}$', default: DEFAULT_CARRIER_SETTINGS.ediSenderQualifier }),
  EDI_SENDER_ID: Type.String({ pattern: '^[0-9A-Za-z ]{1,15}$', default: DEFAULT_CARRIER_SETTINGS.ediSenderId }),
  CENSUS_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1024 * 1024 * 1024 }),
  SESSION_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 30 * 86_400, default: DEFAULT_CONSOLE_SESSION_SETTINGS.ttlSeconds }),
  SIGN_IN_MAX_FAILURES: Type.Integer({ minimum: 1, maximum: 1000, default: DEFAULT_CONSOLE_SESSION_SETTINGS.maxFailuresPerEmail }),
  SIGN_IN_MAX_FAILURES_PER_ADDRESS: Type.Integer({ minimum: 1, maximum: 100_000, default: DEFAULT_CONSOLE_SESSION_SETTINGS.maxFailuresPerAddress }),
  SIGN_IN_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: DEFAULT_CONSOLE_SESSION_SETTINGS.failureWindowSeconds }),
  PASSWORD_LINK_TTL_SECONDS: Type.Integer({ minimum: 300, maximum: 30 * 86_400, default: DEFAULT_CONSOLE_SESSION_SETTINGS.passwordLinkTtlSeconds }),
})

type Env = Static<typeof EnvSchema>

/**
 * Which internal addresses watchers may call. Set, WEBHOOK_ALLOW_PRIVATE_URLS decides for every
 * internal range. Unset, a newcomer on the embedded database outside production may point a
 * watcher at a receiver on the same machine (loopback only: private networks and cloud metadata
 * stay refused), so the guides need no restart; with DATABASE_URL or in production, nothing
 * internal is called unless the deployment says so.
 */
function webhookAddressAllowance(env: Env): { allowPrivateUrls: boolean; allowLoopbackUrls: boolean } {
  if (env.WEBHOOK_ALLOW_PRIVATE_URLS !== undefined) {
    return { allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS, allowLoopbackUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS }
  }
  return { allowPrivateUrls: false, allowLoopbackUrls: env.DATABASE_URL === undefined && env.NODE_ENV !== 'production' }
}

export type DatabaseConfig =
  | { kind: 'embedded'; dataDir: string }
  | { kind: 'postgres'; url: string; poolSize: number; connectTimeoutMs?: number }

export interface Config {
  readonly env: Env['NODE_ENV']
  readonly host: string
  readonly port: number
  readonly dataDir: string
  readonly database: DatabaseConfig
  readonly redisUrl: string | undefined
  /** Undefined only in embedded mode, where the service keeps a generated secret in DATA_DIR. */
  readonly tokenSigningSecret: string | undefined
  /**
   * `id:base64key,...` (AES-256-GCM, the first seals) and the base64 HMAC key for SSNs. Undefined
   * only in embedded mode, where generated keys are kept in DATA_DIR/secrets.json.
   */
  readonly ssnKeys: { readonly encryptionKeys: string; readonly hashKey: string } | undefined
  readonly rateLimit: { readonly max: number; readonly windowSeconds: number }
  readonly apiKeyCacheSeconds: number
  readonly bodyLimitBytes: number
  /** Header, whole-request and keep-alive timeouts and the per-process connection cap. */
  readonly serverLimits: Readonly<ServerLimits>
  readonly worker: {
    readonly mode: Env['WORKER']
    readonly concurrency: number
    readonly pollMs: number
    /** A running job older than this, held by a worker without a heartbeat, is presumed orphaned and run again. */
    readonly staleAfterMs: number
    /** How often a worker records that it is alive. */
    readonly heartbeatMs: number
    /** A worker silent this long is presumed dead; its running jobs are released. */
    readonly deadAfterMs: number
  }
  /** Webhook delivery: timeout, retry schedule, private addresses, secret overlap, slots. */
  readonly webhooks: WebhookSettings
  /** GET /events/stream: how often the log is read and how many streams an account may open. */
  readonly eventStream: Readonly<EventStreamSettings>
  /** Events older than this many days are deleted from the event log by housekeeping. */
  readonly eventLogRetentionDays: number
  readonly logLevel: Env['LOG_LEVEL']
  readonly trustProxy: boolean
  /** Origins whose pages may call the API from a browser (CORS); empty: no CORS headers at all. */
  readonly corsOrigins: readonly string[]
  /** A JSON file listing the deployment's carriers; the built-in list when undefined. */
  readonly carriersFile: string | undefined
  /** Outbound directory, batching window, sandbox delay, EDI sender identity. */
  readonly carrierSide: CarrierSettings
  /** A census (thousands of families, or an 834 file) is larger than other bodies. */
  readonly censusBodyLimitBytes: number
  /** Console session lifetime, the failed sign-in limits and the set-password link lifetime. */
  readonly consoleSessions: Readonly<ConsoleSessionSettings>
}

export class ConfigError extends Error {}

const checkEnv = Compile(EnvSchema)

// Value.Convert reads "80.5" as 80, "true" as 1 and "yes" as true: an integer variable must be
// written as one, a boolean as true or false.
const STRICT_TEXT: Record<string, RegExp> = { integer: /^\s*[+-]?\d+\s*$/, boolean: /^\s*(true|false)\s*$/ }
const STRICT_VARIABLES = Object.entries(EnvSchema.properties)
  .map(([name, schema]) => [name, STRICT_TEXT[String((schema as { type?: unknown }).type)]] as const)
  .filter((entry): entry is readonly [string, RegExp] => entry[1] !== undefined)

export function loadConfig(source: Record<string, string | undefined>): Config {
  const known = Object.fromEntries(
    Object.keys(EnvSchema.properties)
      .filter((name) => source[name] !== undefined && source[name] !== '')
      .map((name) => [name, source[name]]),
  )
  const env = Value.Convert(EnvSchema, Value.Default(EnvSchema, known)) as Record<string, unknown>
  for (const [name, pattern] of STRICT_VARIABLES) {
    const text = source[name]
    if (text && !pattern.test(text)) env[name] = text
  }
  if (!checkEnv.Check(env)) {
    const problems = checkEnv.Errors(env).map((e) => `${e.instancePath.slice(1) || 'environment'} ${e.message}`)
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`)
  }
  if (env.NODE_ENV === 'production' && !env.DATABASE_URL) {
    // The embedded database is single-process and meant for development and trials.
    throw new ConfigError('DATABASE_URL is required in production (the embedded database is for development)')
  }
  if (env.DATABASE_URL && !env.TOKEN_SIGNING_SECRET) {
    // Outside the embedded development mode there are no secret defaults: every instance of a
    // cluster must sign and verify tokens with the same secret.
    throw new ConfigError('TOKEN_SIGNING_SECRET (at least 32 characters) is required when DATABASE_URL is set')
  }
  if (env.DATABASE_URL && (!env.SSN_ENCRYPTION_KEYS || !env.SSN_HASH_KEY)) {
    // Sealed SSNs must open on every instance and outlive any one of them: no generated default.
    throw new ConfigError('SSN_ENCRYPTION_KEYS (id:base64key of 32 bytes, comma-separated) and SSN_HASH_KEY (base64, at least 32 bytes) are required when DATABASE_URL is set')
  }
  if (Boolean(env.SSN_ENCRYPTION_KEYS) !== Boolean(env.SSN_HASH_KEY)) {
    throw new ConfigError('SSN_ENCRYPTION_KEYS and SSN_HASH_KEY are set together or not at all')
  }
  if (env.SSN_ENCRYPTION_KEYS && env.SSN_HASH_KEY) {
    try {
      SsnProtection.fromConfig(env.SSN_ENCRYPTION_KEYS, env.SSN_HASH_KEY)
    } catch (error) {
      // The messages name the variable and the entry, never the key material.
      if (error instanceof SsnKeyError) throw new ConfigError(`Invalid SSN keys (SSN_ENCRYPTION_KEYS / SSN_HASH_KEY): ${error.message}`)
      throw error
    }
  }
  const retrySchedule = env.WEBHOOK_RETRY_SCHEDULE_SECONDS.split(',').map((part) => Number.parseInt(part.trim(), 10))
  if (retrySchedule.length > 20) throw new ConfigError('WEBHOOK_RETRY_SCHEDULE_SECONDS lists at most 20 attempts')
  // The first attempt is queued with the change that caused the event, to run at once.
  if (retrySchedule[0] !== 0) throw new ConfigError('WEBHOOK_RETRY_SCHEDULE_SECONDS must start with 0 (the first attempt is immediate)')
  if (env.WORKER_STALE_AFTER_MS <= env.WEBHOOK_TIMEOUT_MS + 1000) {
    // A delivery still waiting for its receiver would be taken for orphaned and sent twice at once.
    throw new ConfigError('WORKER_STALE_AFTER_MS must exceed WEBHOOK_TIMEOUT_MS by more than 1000')
  }
  if (env.WORKER_DEAD_AFTER_MS < 3 * env.WORKER_HEARTBEAT_MS) {
    // A live worker whose beat is late once or twice (a busy event loop, a slow query) must not be
    // taken for dead: its jobs would run twice at once.
    throw new ConfigError('WORKER_DEAD_AFTER_MS must be at least three times WORKER_HEARTBEAT_MS')
  }
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    // The headers are part of the request: Node refuses to start with the opposite.
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS')
  }
  const cors = parseCorsOrigins(env.CORS_ORIGINS)
  if ('problem' in cors) throw new ConfigError(cors.problem)
  const database: DatabaseConfig = env.DATABASE_URL
    ? { kind: 'postgres', url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE, connectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS }
    : { kind: 'embedded', dataDir: env.DATA_DIR }
  Object.freeze(database)
  return Object.freeze({
    env: env.NODE_ENV,
    host: env.HOST,
    port: env.PORT,
    dataDir: env.DATA_DIR,
    database,
    redisUrl: env.REDIS_URL,
    tokenSigningSecret: env.TOKEN_SIGNING_SECRET,
    ssnKeys:
      env.SSN_ENCRYPTION_KEYS && env.SSN_HASH_KEY
        ? Object.freeze({ encryptionKeys: env.SSN_ENCRYPTION_KEYS, hashKey: env.SSN_HASH_KEY })
        : undefined,
    rateLimit: Object.freeze({ max: env.RATE_LIMIT_MAX, windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS }),
    apiKeyCacheSeconds: env.API_KEY_CACHE_SECONDS,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    serverLimits: Object.freeze({
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: env.HTTP_MAX_CONNECTIONS,
    }),
    worker: Object.freeze({ mode: env.WORKER, concurrency: env.WORKER_CONCURRENCY, pollMs: env.WORKER_POLL_MS, staleAfterMs: env.WORKER_STALE_AFTER_MS, heartbeatMs: env.WORKER_HEARTBEAT_MS, deadAfterMs: env.WORKER_DEAD_AFTER_MS }),
    webhooks: Object.freeze({
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      retryScheduleSeconds: Object.freeze(retrySchedule),
      ...webhookAddressAllowance(env),
      secretOverlapSeconds: env.WEBHOOK_SECRET_OVERLAP_SECONDS,
      concurrency: env.WEBHOOK_CONCURRENCY,
      watchersPerAccountLimit: env.WATCHERS_PER_ACCOUNT_LIMIT,
      hostFailureThreshold: env.WEBHOOK_HOST_FAILURE_THRESHOLD,
      hostBackoffSeconds: env.WEBHOOK_HOST_BACKOFF_SECONDS,
    }),
    eventStream: Object.freeze({ ...DEFAULT_EVENT_STREAM_SETTINGS, pollMs: env.EVENT_STREAM_POLL_MS, streamsPerAccount: env.EVENT_STREAMS_PER_ACCOUNT }),
    eventLogRetentionDays: env.EVENT_LOG_RETENTION_DAYS,
    logLevel: env.LOG_LEVEL,
    trustProxy: env.TRUST_PROXY,
    corsOrigins: Object.freeze(cors.origins),
    carriersFile: env.CARRIERS_FILE,
    carrierSide: Object.freeze({
      outboundDirectory: env.OUTBOUND_DIR ?? `${env.DATA_DIR}/outbound`,
      transactionBatchDelayMs: env.TRANSACTION_BATCH_DELAY_MS,
      sandboxDelayMs: env.SANDBOX_CARRIER_DELAY_MS,
      ediSenderQualifier: env.EDI_SENDER_QUALIFIER,
      ediSenderId: env.EDI_SENDER_ID,
      fileBuildHeapGrowingPercent: env.FILE_BUILD_HEAP_GROWING_PERCENT,
      censusHeapGrowingPercent: env.CENSUS_HEAP_GROWING_PERCENT,
      secrets: Object.freeze({ ...source }),
    }),
    censusBodyLimitBytes: env.CENSUS_BODY_LIMIT_BYTES,
    consoleSessions: Object.freeze({
      ttlSeconds: env.SESSION_TTL_SECONDS,
      maxFailuresPerEmail: env.SIGN_IN_MAX_FAILURES,
      maxFailuresPerAddress: env.SIGN_IN_MAX_FAILURES_PER_ADDRESS,
      failureWindowSeconds: env.SIGN_IN_WINDOW_SECONDS,
      passwordLinkTtlSeconds: env.PASSWORD_LINK_TTL_SECONDS,
    }),
  })
}
