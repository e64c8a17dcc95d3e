import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyServerOptions } from 'fastify'
import { REDACTED_LOG_PATHS } from '../app.js'
import type { Config } from '../config.js'
import { openDatabase, type DatabaseHandle } from '../db/database.js'
import { migrate } from '../db/migrator.js'
import { MemoryRateLimitStore, type RateLimitStore } from '../http/rate-limit.js'

export async function openMigratedDatabase(config: Config): Promise<DatabaseHandle> {
  const handle = await openDatabase(config.database)
  try {
    await migrate(handle.db)
    return handle
  } catch (error) {
    await handle.close()
    throw error
  }
}

/**
 * The token signing secret: from the environment, or in embedded mode generated once and kept
 * in DATA_DIR (mode 0600) so tokens survive a restart. PostgreSQL mode requires the variable.
 */
export function resolveTokenSecret(config: Config): string {
  if (config.tokenSigningSecret) return config.tokenSigningSecret
  const path = join(config.dataDir, 'secrets.json')
  if (existsSync(path)) {
    const stored = JSON.parse(readFileSync(path, 'utf8')) as { token_signing_secret?: unknown }
    if (typeof stored.token_signing_secret === 'string') return stored.token_signing_secret
  }
  const secret = randomBytes(48).toString('base64url')
  writeFileSync(path, JSON.stringify({ token_signing_secret: secret }, null, 2) + '\n', { mode: 0o600 })
  return secret
}

/** Redis only when configured; the client library is not even loaded otherwise. */
export async function createRateLimitStore(config: Config): Promise<RateLimitStore> {
  if (!config.redisUrl) return new MemoryRateLimitStore()
  const { RedisRateLimitStore } = await import('../http/redis-rate-limit-store.js')
  return new RedisRateLimitStore(config.redisUrl)
}

export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
    serializers: {
      // pg errors carry `detail`/`where` with row values (possibly PII); keep only what locates the fault.
      err: (error: Error & { code?: string; constraint?: string }) => ({
        type: error.name,
        message: error.message,
        code: error.code,
        constraint: error.constraint,
        stack: error.stack ?? '',
      }),
    },
  }
}
