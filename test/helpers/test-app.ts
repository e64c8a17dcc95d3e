import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import { buildApp, type AppDeps, type Services } from '../../src/app.js'
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js'
import { migrate } from '../../src/db/migrator.js'
import type { Db } from '../../src/db/schema.js'
import type { App } from '../../src/http/app-types.js'
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js'
import { systemActor } from '../../src/lib/actor.js'
import { SsnProtection } from '../../src/lib/ssn-protection.js'
import type { CredentialCache } from '../../src/modules/auth/credential-cache.js'

export const TEST_TOKEN_SECRET = 'test-signing-secret-that-is-long-enough-0123456789'
/** Fixed SSN keys, so tests can open what the service sealed (never used outside tests). */
export const TEST_SSN_ENCRYPTION_KEYS = `test-k1:${Buffer.alloc(32, 0x5a).toString('base64')}`
export const TEST_SSN_HASH_KEY = Buffer.alloc(32, 0xa5).toString('base64')
export const testSsnProtection = () => SsnProtection.fromConfig(TEST_SSN_ENCRYPTION_KEYS, TEST_SSN_HASH_KEY)

/** PostgreSQL when DATABASE_URL is set (CI runs both), else a fresh in-memory PGlite. */
export async function openTestDatabase(): Promise<DatabaseHandle> {
  const url = process.env.DATABASE_URL
  const handle = url ? await openDatabase({ kind: 'postgres', url, poolSize: 5 }) : await openDatabase({ kind: 'memory' })
  await migrate(handle.db)
  return handle
}

export interface Credential {
  accountId: string
  apiKeyId: string
  apiKey: string
}

export interface TestApp {
  app: App
  db: Db
  database: DatabaseHandle
  services: Services
  credentials: CredentialCache
  /** A fresh operator (service) account with one key. */
  newOperator(): Promise<Credential>
  /** A fresh partner account with one key: tests never share data. */
  newPartner(name?: string): Promise<Credential>
  close(): Promise<void>
}

/** The service itself acting, as jobs do: for setting up accounts without a key. */
export { systemActor }

/**
 * One app per test file over its own database handle. Rate limits are high unless a test asks
 * for its own; pass `database` to share one between two apps (two "instances").
 */
export async function startTestApp(overrides: Partial<AppDeps> & { database?: DatabaseHandle } = {}): Promise<TestApp> {
  const ownDatabase = !overrides.database
  const database = overrides.database ?? (await openTestDatabase())
  const { app, services, credentials } = await buildApp({
    db: database.db,
    pingDatabase: database.ping,
    tokenSigningSecret: TEST_TOKEN_SECRET,
    ssnProtection: testSsnProtection(),
    rateLimitStore: new MemoryRateLimitStore(),
    rateLimit: { max: 100_000, windowSeconds: 300 },
    apiKeyCacheSeconds: 5,
    bodyLimitBytes: 1024 * 1024,
    logger: false,
    ...overrides,
  })
  const newAccount = async (kind: 'partner' | 'service', name: string): Promise<Credential> => {
    const account = await services.accounts.createAccount(systemActor(name), { name, kind })
    const key = await services.accounts.createApiKey(systemActor(account.id), account.id, `${name} key`)
    return { accountId: account.id, apiKeyId: key.id, apiKey: key.key }
  }
  return {
    app,
    db: database.db,
    database,
    services,
    credentials,
    newOperator: () => newAccount('service', 'Test operator'),
    newPartner: (name = 'Test partner') => newAccount('partner', name),
    async close() {
      await app.close()
      if (ownDatabase) await database.close()
    },
  }
}

/** app.inject with the key header and JSON body filled in. */
export function call(
  app: App,
  credential: Pick<Credential, 'apiKey'> | null,
  method: InjectOptions['method'],
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: { ...(credential ? { 'service-api-key': credential.apiKey } : {}), ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  })
}

/** The answer is the problem+json of `code` (api-contract.md section 1), naming the request in `instance`. */
export function expectProblem(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(res.json()).toMatchObject({ type: `urn:enrollsync:problem:${code}`, status, code, instance: res.headers['x-request-id'] })
}
