import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import type { Db } from '../src/db/schema.js'
import { registerGuard } from '../src/http/guard.js'
import { MemoryRateLimitStore, RateLimiter } from '../src/http/rate-limit.js'
import { CredentialCache } from '../src/modules/auth/credential-cache.js'
import { TokenService } from '../src/modules/auth/tokens.js'
import { TEST_TOKEN_SECRET } from './helpers/test-app.js'

function guardedApp() {
  const app = Fastify().withTypeProvider<TypeBoxTypeProvider>()
  // No query runs in these tests: routes are only registered, never called.
  const unusedDb = {} as Db
  registerGuard(app, {
    credentials: new CredentialCache(unusedDb, 0),
    tokens: new TokenService(TEST_TOKEN_SECRET),
    limiter: new RateLimiter(new MemoryRateLimitStore(), 10, 60),
  })
  return app
}

describe('route authentication policies', () => {
  it('when a route is registered without config.auth, then registration fails instead of the route being public', () => {
    const app = guardedApp()
    expect(() => app.get('/forgotten', async () => ({}))).toThrow(/GET \/forgotten declares no auth policy/)
  })

  it('when a route declares its policy, or lives under /docs, then it registers', () => {
    const app = guardedApp()
    expect(() => app.get('/declared', { config: { auth: 'any' } }, async () => ({}))).not.toThrow()
    expect(() => app.get('/docs/static/x', async () => ({}))).not.toThrow()
  })
})
