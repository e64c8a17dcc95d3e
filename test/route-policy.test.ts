import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import type { Db } from '../src/db/schema.js'
import type { AuthPolicy } from '../src/http/app-types.js'
import { authorize, registerGuard } from '../src/http/guard.js'
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
    sessions: { authenticate: async () => ({ status: 'ended' as const }) },
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
    for (const auth of ['none', 'api_key', 'service', 'account_admin', 'session'] as const) {
      expect(() => app.get(`/declared/${auth}`, { config: { auth } }, async () => ({}))).not.toThrow()
    }
  })
})

type Caller = 'partnerKey' | 'operatorKey' | 'partnerSession' | 'partnerAdminSession' | 'operatorSession' | 'operatorAdminSession'

const IDENTITIES: Record<Caller, Parameters<typeof authorize>[1]> = {
  partnerKey: { accountId: 'p', accountKind: 'partner', apiKeyId: 'k', apiKeyName: 'key', channel: 'api' },
  operatorKey: { accountId: 'o', accountKind: 'service', apiKeyId: 'k', apiKeyName: 'key', channel: 'api' },
  partnerSession: { accountId: 'p', accountKind: 'partner', apiKeyId: null, apiKeyName: null, channel: 'console', user: { id: 'u', email: 'u@x.io', roleNames: ['viewer'] } },
  partnerAdminSession: { accountId: 'p', accountKind: 'partner', apiKeyId: null, apiKeyName: null, channel: 'console', user: { id: 'u', email: 'u@x.io', roleNames: ['admin'] } },
  operatorSession: { accountId: 'o', accountKind: 'service', apiKeyId: null, apiKeyName: null, channel: 'console', user: { id: 'u', email: 'u@x.io', roleNames: [] } },
  operatorAdminSession: { accountId: 'o', accountKind: 'service', apiKeyId: null, apiKeyName: null, channel: 'console', user: { id: 'u', email: 'u@x.io', roleNames: ['admin'] } },
}

// Every policy (the compiler rejects a policy without a row) against every kind of caller:
// undefined is allowed, else the code of the refusal. Which credentials reach a policy at all
// (api_key ignores sessions, session ignores keys) is the guard's authentication, tested end to end.
const EXPECTED: Record<AuthPolicy, Record<Caller, string | undefined>> = {
  none: { partnerKey: undefined, operatorKey: undefined, partnerSession: undefined, partnerAdminSession: undefined, operatorSession: undefined, operatorAdminSession: undefined },
  api_key: { partnerKey: undefined, operatorKey: undefined, partnerSession: undefined, partnerAdminSession: undefined, operatorSession: undefined, operatorAdminSession: undefined },
  any: { partnerKey: undefined, operatorKey: undefined, partnerSession: undefined, partnerAdminSession: undefined, operatorSession: undefined, operatorAdminSession: undefined },
  session: { partnerKey: undefined, operatorKey: undefined, partnerSession: undefined, partnerAdminSession: undefined, operatorSession: undefined, operatorAdminSession: undefined },
  service: { partnerKey: 'forbidden', operatorKey: undefined, partnerSession: 'forbidden', partnerAdminSession: 'forbidden', operatorSession: undefined, operatorAdminSession: undefined },
  account_admin: {
    partnerKey: 'forbidden',
    operatorKey: undefined,
    partnerSession: 'admin_role_required',
    partnerAdminSession: undefined,
    operatorSession: 'admin_role_required',
    operatorAdminSession: undefined,
  },
}

describe('route authorization by policy', () => {
  for (const [policy, byCaller] of Object.entries(EXPECTED) as [AuthPolicy, Record<Caller, string | undefined>][]) {
    it(`when the route policy is ${policy}, then each kind of caller is let through or refused as the table says`, () => {
      const outcome = Object.fromEntries((Object.keys(IDENTITIES) as Caller[]).map((caller) => [caller, authorize(policy, IDENTITIES[caller])?.code]))
      expect(outcome).toEqual(byCaller)
    })
  }
})
