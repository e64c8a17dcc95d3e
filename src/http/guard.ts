import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { isAccountAdmin, type Actor } from '../lib/actor.js'
import { looksLikeApiKey } from '../lib/api-key-secret.js'
import type { DomainError } from '../lib/domain-error.js'
import type { CredentialCache } from '../modules/auth/credential-cache.js'
import type { TokenService } from '../modules/auth/tokens.js'
import { adminRoleRequired, csrfTokenInvalid, sessionExpired } from '../modules/sessions/sessions.errors.js'
import type { ConsoleSession, SessionLookup } from '../modules/sessions/sessions.service.js'
import { clearedSessionCookie, CSRF_HEADER, csrfTokenMatches, readSessionCookie, SESSION_COOKIE } from '../modules/sessions/session-cookie.js'
import type { App, AuthPolicy } from './app-types.js'
import type { ErrorCode } from './error-table.js'
import { httpError } from './problem.js'
import { RateLimiter } from './rate-limit.js'

export const DOCS_PREFIX = '/docs'

type Identity = Omit<Actor, 'requestId'>
type Authentication =
  | { identity: Identity; session?: ConsoleSession }
  | { failure: DomainError<ErrorCode>; sessionEnded?: boolean }

export interface GuardDeps {
  credentials: CredentialCache
  tokens: TokenService
  limiter: RateLimiter
  /** Looks up the console session a cookie names. */
  sessions: { authenticate(token: string): Promise<SessionLookup> }
}

// The scheme is case-insensitive (RFC 9110); tested on the header as sent, which for a token is a few hundred characters.
const BEARER_PREFIX = /^bearer /i

// Methods that change nothing: a console session needs no CSRF token for them.
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

async function authenticateSession(request: FastifyRequest, deps: GuardDeps, sessionOnly: boolean): Promise<Authentication> {
  const token = readSessionCookie(request.headers.cookie)
  if (token === undefined) {
    const detail = sessionOnly
      ? `Sign in with POST /session first: this endpoint reads the console session cookie (${SESSION_COOKIE}) only.`
      : 'Send your API key in the Service-Api-Key header, or a token from POST /auth/token in Authorization: Bearer, or sign in to the console with POST /session.'
    return { failure: httpError('missing_credentials', detail) }
  }
  const lookup = await deps.sessions.authenticate(token)
  if (lookup.status !== 'live') return { failure: sessionExpired(), sessionEnded: true }
  return { identity: lookup.session.actor, session: lookup.session }
}

async function authenticate(request: FastifyRequest, deps: GuardDeps, policy: AuthPolicy): Promise<Authentication> {
  if (policy === 'session') return authenticateSession(request, deps, true)
  // API clients are unaffected by cookies: whoever sends either header is authenticated by it alone.
  const sendsApiCredentials = request.headers['service-api-key'] !== undefined || request.headers.authorization !== undefined
  if (!sendsApiCredentials && policy !== 'api_key') return authenticateSession(request, deps, false)

  const allowBearer = policy !== 'api_key'
  const apiKey = singleHeader(request.headers['service-api-key'])?.trim()
  const authorization = singleHeader(request.headers.authorization)
  const bearer = allowBearer && authorization !== undefined && BEARER_PREFIX.test(authorization) ? authorization.slice(7).trim() : undefined

  if (!apiKey && !bearer) {
    const detail = allowBearer
      ? 'Send your API key in the Service-Api-Key header, or a token from POST /auth/token in Authorization: Bearer.'
      : 'Send your API key in the Service-Api-Key header.'
    return { failure: httpError('missing_credentials', detail) }
  }

  let fromKey: Identity | null = null
  if (apiKey) {
    const cached = deps.credentials.cachedBySecret(apiKey)
    const principal = cached !== undefined ? cached : looksLikeApiKey(apiKey) ? await deps.credentials.bySecret(apiKey) : null
    if (!principal) return { failure: httpError('invalid_credentials', 'The API key in Service-Api-Key is not valid or has been revoked.') }
    fromKey = { ...principal, channel: 'api' }
  }
  if (!bearer) return { identity: fromKey! }

  const verified = deps.tokens.verifiedBefore(bearer) ?? (await deps.tokens.verify(bearer))
  if (!verified.ok) {
    return verified.reason === 'expired'
      ? { failure: httpError('token_expired', 'The bearer token has expired. Request a new one from POST /auth/token.') }
      : { failure: httpError('invalid_credentials', 'The bearer token is not valid.') }
  }
  const cachedKey = deps.credentials.cachedByKeyId(verified.apiKeyId)
  const fromToken = cachedKey !== undefined ? cachedKey : await deps.credentials.byKeyId(verified.apiKeyId)
  if (!fromToken || fromToken.accountId !== verified.accountId) {
    return { failure: httpError('invalid_credentials', 'The API key this token was issued from has been revoked.') }
  }
  if (fromKey && fromKey.accountId !== fromToken.accountId) {
    return { failure: httpError('credentials_mismatch', 'Service-Api-Key and the bearer token belong to different accounts.') }
  }
  return { identity: fromKey ?? { ...fromToken, channel: 'api' } }
}

/**
 * Whether an authenticated caller may call a route of this policy: undefined when it may, else the
 * problem to answer. Account administrators are let through here; that they act on their own
 * account only is checked by the service, so another account's resource answers 404.
 */
export function authorize(policy: AuthPolicy, identity: Identity): DomainError<ErrorCode> | undefined {
  switch (policy) {
    case 'none':
    case 'api_key':
    case 'any':
    case 'session':
      return undefined
    case 'service':
      return identity.accountKind === 'service'
        ? undefined
        : httpError('forbidden', 'This endpoint is for the operator of the service; partner credentials may not call it.')
    case 'account_admin':
      // A person (console session) needs the admin role, operators included, as for managing users.
      // A partner API key is refused: with it, a key could mint itself a console administrator
      // (a user with the admin role, then a set-password link) and so reach what keys may not.
      if (identity.user) return isAccountAdmin(identity.user) ? undefined : adminRoleRequired("manage the account's API keys and console passwords")
      if (identity.accountKind === 'service') return undefined
      return httpError(
        'forbidden',
        "Managing API keys and console passwords needs an operator credential or a console session of the account's administrator (admin role); a partner API key may not.",
      )
  }
}

/**
 * One onRequest hook per request, in this order (X-Request-Id is already set): authenticate, count the call against the
 * account's limit (or the client address when authentication failed, so guessing keys is
 * limited too), then refuse what failed, check the CSRF token of a console session and the route's
 * policy. Public routes (`auth: 'none'`) and unknown routes skip all of it, which keeps health
 * checks free of auth and limits.
 *
 * The hook is the route's own, added when the route is registered with its policy bound, rather
 * than one hook for every request that looks the policy up: `request.routeOptions` builds a
 * dozen-field object on each call, and public routes then run no guard code at all (issue 16).
 * Route hooks run after the app's (request id, draining, CORS), as the global hook did, and
 * before those other plugins add per route (compression), because this onRoute hook runs first.
 */
export function registerGuard(app: App, deps: GuardDeps): void {
  app.decorateRequest('actor', null)
  app.decorateRequest('consoleSession', null)
  // Fail closed: a route without an explicit policy stops the start instead of being public.
  // Only the reference pages under /docs (registered by @fastify/swagger-ui) are public by default.
  app.addHook('onRoute', (route) => {
    let policy = route.config?.auth
    if (policy === undefined) {
      if (route.url !== DOCS_PREFIX && !route.url.startsWith(`${DOCS_PREFIX}/`)) {
        throw new Error(`Route ${String(route.method)} ${route.url} declares no auth policy (config.auth)`)
      }
      policy = 'none'
      route.config = { ...route.config, auth: policy }
    }
    if (policy === 'none') return
    const routeHooks = route.onRequest === undefined ? [] : [route.onRequest].flat()
    route.onRequest = [guardFor(policy, deps), ...routeHooks]
  })
}

/** The guard of a route with this policy (not `none`). */
function guardFor(policy: Exclude<AuthPolicy, 'none'>, deps: GuardDeps): onRequestAsyncHookHandler {
  return async function guard(request, reply) {
    const authentication = await authenticate(request, deps, policy)
    const limitKey = 'identity' in authentication ? `account:${authentication.identity.accountId}` : `address:${request.ip}`
    const verdict = deps.limiter.consumeNow(limitKey) ?? (await consumeOrAllow(deps.limiter, limitKey, request))
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
    if ('failure' in authentication) {
      // The browser drops a cookie that no longer works, so the console starts from the sign-in page.
      if (authentication.sessionEnded) reply.header('Set-Cookie', clearedSessionCookie(request.protocol === 'https'))
      throw authentication.failure
    }
    const { identity, session } = authentication
    if (session && !SAFE_METHODS.has(request.method) && !csrfTokenMatches(request.headers[CSRF_HEADER], session.csrfToken)) {
      throw csrfTokenInvalid()
    }
    const refusal = authorize(policy, identity)
    if (refusal) throw refusal
    request.actor = { ...identity, requestId: request.id }
    request.consoleSession = session ?? null
  }
}

/**
 * A broken rate-limit store must not take the API down: the call is let through (fail-open) and
 * logged, unless the store has reported the outage itself (once, not once per request).
 */
async function consumeOrAllow(limiter: RateLimiter, key: string, request: FastifyRequest) {
  try {
    return await limiter.consume(key)
  } catch (error) {
    const reported = typeof error === 'object' && error !== null && 'reported' in error && error.reported === true
    if (!reported) request.log.warn({ err: error }, 'rate limit store unavailable; request allowed')
    return undefined
  }
}

/** The actor of an authenticated route; the guard has set it before any handler runs. */
export function requireActor(request: FastifyRequest): Actor {
  if (!request.actor) throw new Error(`Route ${request.routeOptions.url} has no authentication policy`)
  return request.actor
}

/** The console session of a route with the `session` policy; the guard has checked it. */
export function requireConsoleSession(request: FastifyRequest): ConsoleSession {
  if (!request.consoleSession) throw new Error(`Route ${request.routeOptions.url} is not a session route`)
  return request.consoleSession
}
