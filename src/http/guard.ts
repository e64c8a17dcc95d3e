import type { FastifyRequest } from 'fastify'
import type { Actor, Principal } from '../lib/actor.js'
import { looksLikeApiKey } from '../lib/api-key-secret.js'
import type { DomainError } from '../lib/domain-error.js'
import type { CredentialCache } from '../modules/auth/credential-cache.js'
import type { TokenService } from '../modules/auth/tokens.js'
import type { App } from './app-types.js'
import type { ErrorCode } from './error-table.js'
import { httpError } from './problem.js'
import { RateLimiter } from './rate-limit.js'

export const DOCS_PREFIX = '/docs'

type Authentication = { principal: Principal } | { failure: DomainError<ErrorCode> }

export interface GuardDeps {
  credentials: CredentialCache
  tokens: TokenService
  limiter: RateLimiter
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

async function authenticate(request: FastifyRequest, deps: GuardDeps, allowBearer: boolean): Promise<Authentication> {
  const apiKey = singleHeader(request.headers['service-api-key'])?.trim()
  const authorization = singleHeader(request.headers.authorization)
  const bearer = allowBearer && authorization?.toLowerCase().startsWith('bearer ') ? authorization.slice(7).trim() : undefined

  if (!apiKey && !bearer) {
    const detail = allowBearer
      ? 'Send your API key in the Service-Api-Key header, or a token from POST /auth/token in Authorization: Bearer.'
      : 'Send your API key in the Service-Api-Key header.'
    return { failure: httpError('missing_credentials', detail) }
  }

  let fromKey: Principal | null = null
  if (apiKey) {
    fromKey = looksLikeApiKey(apiKey) ? await deps.credentials.bySecret(apiKey) : null
    if (!fromKey) return { failure: httpError('invalid_credentials', 'The API key in Service-Api-Key is not valid or has been revoked.') }
  }
  if (!bearer) return { principal: fromKey! }

  const verified = await deps.tokens.verify(bearer)
  if (!verified.ok) {
    return verified.reason === 'expired'
      ? { failure: httpError('token_expired', 'The bearer token has expired. Request a new one from POST /auth/token.') }
      : { failure: httpError('invalid_credentials', 'The bearer token is not valid.') }
  }
  const fromToken = await deps.credentials.byKeyId(verified.apiKeyId)
  if (!fromToken || fromToken.accountId !== verified.accountId) {
    return { failure: httpError('invalid_credentials', 'The API key this token was issued from has been revoked.') }
  }
  if (fromKey && fromKey.accountId !== fromToken.accountId) {
    return { failure: httpError('credentials_mismatch', 'Service-Api-Key and the bearer token belong to different accounts.') }
  }
  return { principal: fromKey ?? fromToken }
}

/**
 * One onRequest hook per request, in this order: set X-Request-Id, authenticate, count the call against the
 * account's limit (or the client address when authentication failed, so guessing keys is
 * limited too), then refuse what failed. Public routes (`auth: 'none'`) and unknown routes skip
 * all of it, which keeps health checks free of auth and limits.
 */
export function registerGuard(app: App, deps: GuardDeps): void {
  app.decorateRequest('actor', null)
  // Fail closed: a route without an explicit policy stops the start instead of being public.
  // Only the reference pages under /docs (registered by @fastify/swagger-ui) are public by default.
  app.addHook('onRoute', (route) => {
    if (route.config?.auth !== undefined) return
    if (route.url === DOCS_PREFIX || route.url.startsWith(`${DOCS_PREFIX}/`)) {
      route.config = { ...route.config, auth: 'none' }
      return
    }
    throw new Error(`Route ${String(route.method)} ${route.url} declares no auth policy (config.auth)`)
  })
  app.addHook('onRequest', async (request, reply) => {
    // Every response carries its request id; set here to spare the hot path a hook of its own.
    reply.header('X-Request-Id', request.id)
    const policy = request.routeOptions.config.auth
    if (request.is404 || policy === 'none') return

    const authentication = await authenticate(request, deps, policy !== 'api_key')
    const limitKey = 'principal' in authentication ? `account:${authentication.principal.accountId}` : `address:${request.ip}`
    const verdict = await consumeOrAllow(deps.limiter, limitKey, request)
    if (verdict) {
      reply.headers(deps.limiter.headers(verdict))
      if (!verdict.allowed) {
        reply.header('Retry-After', String(verdict.resetSeconds))
        throw httpError(
          'rate_limited',
          `More than ${verdict.limit} calls in ${verdict.windowSeconds} seconds. Retry after ${verdict.resetSeconds} seconds.`,
        )
      }
    }
    if ('failure' in authentication) throw authentication.failure
    const { principal } = authentication
    if (policy === 'service' && principal.accountKind !== 'service') {
      throw httpError('forbidden', 'This endpoint is for the operator of the service; partner credentials may not call it.')
    }
    request.actor = { ...principal, requestId: request.id, channel: 'api' }
  })
}

/** A broken rate-limit store must not take the API down: the call is let through and logged. */
async function consumeOrAllow(limiter: RateLimiter, key: string, request: FastifyRequest) {
  try {
    return await limiter.consume(key)
  } catch (error) {
    request.log.warn({ err: error }, 'rate limit store unavailable; request allowed')
    return undefined
  }
}

/** The actor of an authenticated route; the guard has set it before any handler runs. */
export function requireActor(request: FastifyRequest): Actor {
  if (!request.actor) throw new Error(`Route ${request.routeOptions.url} has no authentication policy`)
  return request.actor
}
