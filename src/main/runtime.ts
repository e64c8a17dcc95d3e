import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyServerOptions } from 'fastify'
import { REDACTED_LOG_PATHS } from '../app.js'
import type { Config } from '../config.js'
import { SsnProtection } from '../lib/ssn-protection.js'
import { MemoryRateLimitStore, type RateLimitStore } from '../http/rate-limit.js'

/**
 * DATA_DIR/secrets.json (mode 0600): the embedded mode's generated secrets, so tokens and sealed
 * SSNs survive a restart. Secrets a file lacks (one written by an older version) are added, and
 * the ones it has are never replaced: replacing an SSN key would make every sealed SSN unreadable.
 */
interface StoredSecrets {
  token_signing_secret?: unknown
  ssn_encryption_keys?: unknown
  ssn_hash_key?: unknown
}

function embeddedSecrets(config: Config): { tokenSigningSecret: string; ssnEncryptionKeys: string; ssnHashKey: string } {
  const path = join(config.dataDir, 'secrets.json')
  const stored: StoredSecrets = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as StoredSecrets) : {}
  let changed = false
  const keep = (name: keyof StoredSecrets, generate: () => string): string => {
    const value = stored[name]
    if (typeof value === 'string' && value !== '') return value
    changed = true
    return (stored[name] = generate())
  }
  const generatedSsn = SsnProtection.generateKeys()
  const secrets = {
    tokenSigningSecret: keep('token_signing_secret', () => randomBytes(48).toString('base64url')),
    ssnEncryptionKeys: keep('ssn_encryption_keys', () => generatedSsn.encryptionKeys),
    ssnHashKey: keep('ssn_hash_key', () => generatedSsn.hashKey),
  }
  if (changed) writeFileSync(path, JSON.stringify(stored, null, 2) + '\n', { mode: 0o600 })
  return secrets
}

/**
 * The token signing secret: from the environment, or in embedded mode generated once and kept
 * in DATA_DIR (mode 0600) so tokens survive a restart. PostgreSQL mode requires the variable.
 */
export function resolveTokenSecret(config: Config): string {
  return config.tokenSigningSecret ?? embeddedSecrets(config).tokenSigningSecret
}

/**
 * The SSN keys: from SSN_ENCRYPTION_KEYS and SSN_HASH_KEY, or in embedded mode generated on the
 * first start into DATA_DIR/secrets.json beside the token secret. PostgreSQL mode requires them.
 */
export function resolveSsnProtection(config: Config): SsnProtection {
  if (config.ssnKeys) return SsnProtection.fromConfig(config.ssnKeys.encryptionKeys, config.ssnKeys.hashKey)
  const secrets = embeddedSecrets(config)
  return SsnProtection.fromConfig(secrets.ssnEncryptionKeys, secrets.ssnHashKey)
}

/**
 * Redis only when configured; the client library is not even loaded otherwise. The store logs
 * Redis going away and coming back itself, once each (its own JSON lines beside the service's).
 */
export async function createRateLimitStore(config: Config): Promise<RateLimitStore> {
  if (!config.redisUrl) return new MemoryRateLimitStore()
  const [{ RedisRateLimitStore }, { pino }] = await Promise.all([import('../http/redis-rate-limit-store.js'), import('pino')])
  return new RedisRateLimitStore(config.redisUrl, undefined, pino({ level: config.logLevel }).child({ component: 'rate-limit-store' }))
}

/**
 * Where `npm start` writes its log: standard output, with the lines of one turn of the event loop
 * written together. pino's default makes one write(2) per line, and under load the access line
 * alone was a tenth of the subscriber read's CPU in profiles (issue 16); a busy instance completes
 * many requests per turn. The lines still go out in the same turn (setImmediate runs before the
 * loop waits for I/O again), synchronously, and what is pending is written when the process exits,
 * so only a `kill -9` in the middle of a turn can lose lines, those of that turn.
 */
export function stdoutLogStream(): { write(line: string): void } {
  let pending: string[] = []
  const flush = () => {
    const text = pending.join('')
    pending = []
    writeAllSync(1, Buffer.from(text, 'utf8'))
  }
  process.once('exit', () => {
    if (pending.length > 0) flush()
  })
  return {
    write(line: string) {
      if (pending.push(line) === 1) setImmediate(flush)
    },
  }
}

/** Writes the whole buffer, through partial writes and EAGAIN (standard output may be a non-blocking pipe that is full). */
function writeAllSync(fd: number, buffer: Buffer): void {
  let offset = 0
  while (offset < buffer.length) {
    try {
      offset += writeSync(fd, buffer, offset)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
      // The reader is behind: wait a moment rather than spin (what pino's own destination does).
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10)
    }
  }
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
