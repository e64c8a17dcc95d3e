import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config.js'

const SECRET = 'a-signing-secret-of-at-least-32-characters'
const SSN_KEY = Buffer.alloc(32, 7).toString('base64')
const SSN = { SSN_ENCRYPTION_KEYS: `k1:${SSN_KEY}`, SSN_HASH_KEY: Buffer.alloc(32, 8).toString('base64') }

function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`)
}

describe('loadConfig', () => {
  it('when nothing is set, then the embedded development defaults apply', () => {
    const config = loadConfig({})
    expect(config).toEqual({
      env: 'development',
      host: '127.0.0.1',
      port: 3000,
      dataDir: './data',
      database: { kind: 'embedded', dataDir: './data' },
      redisUrl: undefined,
      tokenSigningSecret: undefined,
      rateLimit: { max: 1500, windowSeconds: 300 },
      apiKeyCacheSeconds: 5,
      bodyLimitBytes: 16 * 1024 * 1024,
      serverLimits: { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 72_000, maxConnections: 4096 },
      worker: { mode: 'in-process', concurrency: 4, pollMs: 1000, staleAfterMs: 300_000, heartbeatMs: 5000, deadAfterMs: 30_000 },
      webhooks: { timeoutMs: 10_000, retryScheduleSeconds: [0, 5, 300, 1800, 7200, 18000, 36000, 36000], allowPrivateUrls: false, allowLoopbackUrls: true, secretOverlapSeconds: 86_400, concurrency: 64, watchersPerAccountLimit: 25, hostFailureThreshold: 5, hostBackoffSeconds: 30 },
      eventStream: { pollMs: 500, streamsPerAccount: 10, heartbeatMs: 15_000, retryMs: 3000, maxBufferedBytes: 1024 * 1024, maxPendingEvents: 10_000, pageSize: 500, maxStreamMs: 3_600_000 },
      eventLogRetentionDays: 7,
      logLevel: 'info',
      trustProxy: false,
      corsOrigins: [],
      carrierSide: {
        outboundDirectory: './data/outbound',
        transactionBatchDelayMs: 5000,
        sandboxDelayMs: 10_000,
        ediSenderQualifier: 'ZZ',
        ediSenderId: 'ENROLLSYNC',
        fileBuildHeapGrowingPercent: 100,
        censusHeapGrowingPercent: 100,
        secrets: {},
      },
      censusBodyLimitBytes: 1024 * 1024 * 1024,
      consoleSessions: { ttlSeconds: 43_200, maxFailuresPerEmail: 5, maxFailuresPerAddress: 20, failureWindowSeconds: 900, passwordLinkTtlSeconds: 86_400 },
    })
  })

  it('when CORS_ORIGINS lists origins, then they are kept; a wildcard or a URL that is not an origin stops the start with the entry named', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).corsOrigins).toEqual(['https://app.example.com', 'http://localhost:5173'])
    expect(configError({ CORS_ORIGINS: '*' }).message).toMatch(/CORS_ORIGINS/)
    expect(configError({ CORS_ORIGINS: 'https://app.example.com/' }).message).toContain('https://app.example.com/')
  })

  it('when the carrier variables are set, then they are parsed, and secrets named by carriers are read from the same environment', () => {
    const config = loadConfig({
      DATA_DIR: '/srv/es',
      TRANSACTION_BATCH_DELAY_MS: '250',
      SANDBOX_CARRIER_DELAY_MS: '0',
      EDI_SENDER_ID: 'ACMEBEN',
      EDI_SENDER_QUALIFIER: '30',
      CENSUS_HEAP_GROWING_PERCENT: '0',
      ACME_SFTP_PASSWORD: 'not-in-the-file',
    })
    expect(config.carrierSide).toMatchObject({ outboundDirectory: '/srv/es/outbound', transactionBatchDelayMs: 250, sandboxDelayMs: 0, ediSenderId: 'ACMEBEN', ediSenderQualifier: '30', censusHeapGrowingPercent: 0 })
    expect(config.carrierSide.secrets.ACME_SFTP_PASSWORD).toBe('not-in-the-file')
    expect(loadConfig({ OUTBOUND_DIR: '/mnt/out' }).carrierSide.outboundDirectory).toBe('/mnt/out')
    expect(() => loadConfig({ EDI_SENDER_ID: 'WAY-TOO-LONG-FOR-ISA06' })).toThrow(/EDI_SENDER_ID/)
    expect(() => loadConfig({ TRANSACTION_BATCH_DELAY_MS: '1.5' })).toThrow(/TRANSACTION_BATCH_DELAY_MS/)
    expect(() => loadConfig({ CENSUS_HEAP_GROWING_PERCENT: '1001' })).toThrow(/CENSUS_HEAP_GROWING_PERCENT/)
  })

  it('when WEBHOOK_ALLOW_PRIVATE_URLS is unset, then watchers may call loopback receivers on the embedded database outside production only', () => {
    const allowance = (env: Record<string, string>) => {
      const { allowPrivateUrls, allowLoopbackUrls } = loadConfig(env).webhooks
      return { allowPrivateUrls, allowLoopbackUrls }
    }
    // A newcomer's `npm start`: a receiver on the same machine works without a restart.
    expect(allowance({})).toEqual({ allowPrivateUrls: false, allowLoopbackUrls: true })
    expect(allowance({ NODE_ENV: 'test' })).toEqual({ allowPrivateUrls: false, allowLoopbackUrls: true })
    // PostgreSQL or production: nothing internal unless the deployment says so.
    const postgres = { DATABASE_URL: 'postgres://db/es', TOKEN_SIGNING_SECRET: SECRET, ...SSN }
    expect(allowance(postgres)).toEqual({ allowPrivateUrls: false, allowLoopbackUrls: false })
    expect(allowance({ ...postgres, NODE_ENV: 'production' })).toEqual({ allowPrivateUrls: false, allowLoopbackUrls: false })
    // Set, the variable decides for every internal range, loopback included.
    expect(allowance({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' })).toEqual({ allowPrivateUrls: false, allowLoopbackUrls: false })
    expect(allowance({ ...postgres, NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' })).toEqual({ allowPrivateUrls: true, allowLoopbackUrls: true })
  })

  it('when the webhook variables are set, then they are parsed', () => {
    expect(
      loadConfig({
        WEBHOOK_TIMEOUT_MS: '1500',
        WEBHOOK_RETRY_SCHEDULE_SECONDS: ' 0, 1 ,2',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_SECRET_OVERLAP_SECONDS: '0',
        WEBHOOK_CONCURRENCY: '4',
        WORKER_STALE_AFTER_MS: '3000',
      }),
    ).toMatchObject({
      webhooks: { timeoutMs: 1500, retryScheduleSeconds: [0, 1, 2], allowPrivateUrls: true, allowLoopbackUrls: true, secretOverlapSeconds: 0, concurrency: 4 },
      worker: { staleAfterMs: 3000 },
    })
  })

  it('when variables are set as strings, then numbers and booleans are parsed', () => {
    const config = loadConfig({
      PORT: '8080',
      DATA_DIR: '/var/lib/enrollsync',
      RATE_LIMIT_MAX: '20',
      RATE_LIMIT_WINDOW_SECONDS: '60',
      API_KEY_CACHE_SECONDS: '0',
      WORKER_CONCURRENCY: '16',
      WORKER: 'off',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'warn',
    })
    expect(config).toMatchObject({
      port: 8080,
      dataDir: '/var/lib/enrollsync',
      database: { kind: 'embedded', dataDir: '/var/lib/enrollsync' },
      rateLimit: { max: 20, windowSeconds: 60 },
      apiKeyCacheSeconds: 0,
      worker: { mode: 'off', concurrency: 16 },
      trustProxy: true,
      logLevel: 'warn',
    })
  })

  it('when a variable is set to an empty string, then it counts as unset', () => {
    expect(loadConfig({ PORT: '', DATA_DIR: '', DATABASE_URL: '' })).toMatchObject({ port: 3000, dataDir: './data', database: { kind: 'embedded' } })
  })

  it('when variables the service does not know are present, then they are ignored', () => {
    const config = loadConfig({ PATH: '/usr/bin', HOME: '/root', PORT: '3001' })
    expect(config.port).toBe(3001)
    expect(Object.keys(config)).not.toContain('PATH')
  })

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '80.5'],
    ['PORT', 'false'],
    ['RATE_LIMIT_MAX', '2.9'],
    ['RATE_LIMIT_MAX', 'true'],
    ['RATE_LIMIT_MAX', '0'],
    ['RATE_LIMIT_WINDOW_SECONDS', 'five'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_CONNECT_TIMEOUT_MS', '0'],
    ['WORKER', 'sometimes'],
    ['WORKER_CONCURRENCY', '1000'],
    ['LOG_LEVEL', 'verbose'],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['REDIS_URL', 'localhost:6379'],
    ['TOKEN_SIGNING_SECRET', 'too-short'],
    ['BODY_LIMIT_BYTES', '10'],
    ['TRUST_PROXY', 'yes'],
    ['WEBHOOK_TIMEOUT_MS', '1.5'],
    ['WEBHOOK_TIMEOUT_MS', '10'],
    ['WEBHOOK_RETRY_SCHEDULE_SECONDS', '0,5m'],
    ['WEBHOOK_RETRY_SCHEDULE_SECONDS', '5,10'],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', 'yes'],
    ['WEBHOOK_CONCURRENCY', '0'],
    ['WORKER_STALE_AFTER_MS', '10500'],
  ])('when %s is %j, then ConfigError names the variable', (name, value) => {
    const error = configError({ [name]: value, ...(name === 'DATABASE_URL' ? { TOKEN_SIGNING_SECRET: SECRET, ...SSN } : {}) })
    expect(error.message).toContain(name)
  })

  it('when an integer carries a sign or spaces, then it is still read as that integer', () => {
    expect(loadConfig({ PORT: ' 8080 ', RATE_LIMIT_MAX: '+20' })).toMatchObject({ port: 8080, rateLimit: { max: 20 } })
    expect(configError({ PORT: '-1' }).message).toContain('PORT')
  })

  it('when a secret is refused, then the message does not repeat its value', () => {
    const error = configError({ TOKEN_SIGNING_SECRET: 'short-secret-value' })
    expect(error.message).not.toContain('short-secret-value')
  })

  it('when DATABASE_URL is set without TOKEN_SIGNING_SECRET, then it is refused', () => {
    const error = configError({ DATABASE_URL: 'postgres://app@127.0.0.1:5432/enrollsync' })
    expect(error.message).toContain('TOKEN_SIGNING_SECRET')
    expect(error.message).toContain('DATABASE_URL')
  })

  it('when DATABASE_URL and TOKEN_SIGNING_SECRET are set, then PostgreSQL is used with the pool size', () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://app@127.0.0.1:5432/enrollsync', TOKEN_SIGNING_SECRET: SECRET, ...SSN, DATABASE_POOL_SIZE: '25' })
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgresql://app@127.0.0.1:5432/enrollsync', poolSize: 25, connectTimeoutMs: 5000 })
    expect(config.tokenSigningSecret).toBe(SECRET)
    expect(loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/x', TOKEN_SIGNING_SECRET: SECRET, ...SSN }).database).toMatchObject({ poolSize: 10 })
    const patient = loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/x', TOKEN_SIGNING_SECRET: SECRET, ...SSN, DATABASE_CONNECT_TIMEOUT_MS: '15000' })
    expect(patient.database).toMatchObject({ connectTimeoutMs: 15000 })
  })

  it('when DATABASE_URL is set without the SSN keys, then it is refused naming both variables', () => {
    const error = configError({ DATABASE_URL: 'postgres://127.0.0.1/x', TOKEN_SIGNING_SECRET: SECRET })
    expect(error.message).toContain('SSN_ENCRYPTION_KEYS')
    expect(error.message).toContain('SSN_HASH_KEY')
    expect(configError({ DATABASE_URL: 'postgres://127.0.0.1/x', TOKEN_SIGNING_SECRET: SECRET, SSN_ENCRYPTION_KEYS: SSN.SSN_ENCRYPTION_KEYS }).message).toContain('SSN_HASH_KEY')
  })

  it('when the SSN keys are malformed, then ConfigError says why without repeating the key', () => {
    const shortKey = Buffer.alloc(16, 1).toString('base64')
    const short = configError({ ...SSN, SSN_ENCRYPTION_KEYS: `k1:${shortKey}` })
    expect(short.message).toContain('32 bytes')
    expect(short.message).not.toContain(shortKey)
    expect(configError({ ...SSN, SSN_ENCRYPTION_KEYS: SSN_KEY }).message).toContain('id:base64key')
    expect(configError({ ...SSN, SSN_HASH_KEY: 'c2hvcnQ=' }).message).toContain('SSN_HASH_KEY')
  })

  it('when the SSN keys are set, then they are kept for the service to use', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/x', TOKEN_SIGNING_SECRET: SECRET, ...SSN })
    expect(config.ssnKeys).toEqual({ encryptionKeys: SSN.SSN_ENCRYPTION_KEYS, hashKey: SSN.SSN_HASH_KEY })
  })

  it('when the configuration is loaded, then it is frozen all the way down', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/x', TOKEN_SIGNING_SECRET: SECRET, ...SSN })
    expect(Object.isFrozen(config)).toBe(true)
    expect(Object.isFrozen(config.rateLimit)).toBe(true)
    expect(Object.isFrozen(config.worker)).toBe(true)
    expect(Object.isFrozen(config.database)).toBe(true)
    expect(() => {
      ;(config as { port: number }).port = 1
    }).toThrow(TypeError)
    expect(() => {
      ;(config.database as { url: string }).url = 'postgres://elsewhere/db'
    }).toThrow(TypeError)
    expect(config.database).toMatchObject({ url: 'postgres://127.0.0.1/x' })
  })

  it('when the source object changes after loading, then the configuration does not', () => {
    const env: Record<string, string> = { PORT: '4000' }
    const config = loadConfig(env)
    env.PORT = '5000'
    expect(config.port).toBe(4000)
  })
})
