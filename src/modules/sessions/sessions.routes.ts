import { Type } from 'typebox'
import type { App } from '../../http/app-types.js'
import { requireActor, requireConsoleSession } from '../../http/guard.js'
import { SignInRateLimited } from './sessions.errors.js'
import { problemResponses, publicProblemResponses } from '../../http/schemas.js'
import { SessionResponse, SignInBody } from './sessions.schema.js'
import type { SessionsService } from './sessions.service.js'
import { clearedSessionCookie, SESSION_COOKIE, sessionCookie } from './session-cookie.js'

const COOKIE_RULES =
  `The cookie \`${SESSION_COOKIE}\` is HttpOnly, SameSite=Strict, Path=/, and Secure when the request came over HTTPS ` +
  '(directly, or through a proxy trusted with TRUST_PROXY).'

/**
 * Sign-in for the operations console (served by this service, same origin): the browser holds a
 * session cookie instead of an API key and calls the same API with it.
 */
export function sessionsRoutes(app: App, sessions: SessionsService): void {
  const tags = ['Console sessions']
  const { settings } = sessions

  app.post(
    '/session',
    {
      config: { auth: 'none' },
      schema: {
        operationId: 'createSession',
        summary: 'Sign in to the console',
        description:
          'Checks the email and password of a user who has a password (chosen through a set-password link, POST ' +
          '/users/{id}/password_links, or set with `users set-password` on the command line) and ' +
          `opens a session for ${settings.ttlSeconds} seconds (SESSION_TTL_SECONDS), set as a cookie. ${COOKIE_RULES} ` +
          'Every other API endpoint then accepts the cookie in place of an API key, for the user\'s account; requests that ' +
          'change something must also send `X-CSRF-Token` with the `csrf_token` answered here. An unknown email, a wrong ' +
          'password, a user without a password and a deactivated user all answer the same 401. After ' +
          `${settings.maxFailuresPerEmail} failed sign-ins for an email, or ${settings.maxFailuresPerAddress} from one address, ` +
          `within ${settings.failureWindowSeconds} seconds, sign-in answers 429 with Retry-After until the window ends, ` +
          'even with the right password.',
        tags,
        security: [],
        body: SignInBody,
        response: {
          201: SessionResponse,
          ...publicProblemResponses('sign_in_failed', 'sign_in_rate_limited', 'validation_failed', 'service_unavailable'),
        },
      },
    },
    async (request, reply) => {
      try {
        const { token, session } = await sessions.signIn({ ...request.body, address: request.ip, requestId: request.id })
        return reply
          .code(201)
          .header('Cache-Control', 'no-store')
          .header('Set-Cookie', sessionCookie(token, settings.ttlSeconds, request.protocol === 'https'))
          .send({ session })
      } catch (error) {
        if (error instanceof SignInRateLimited) reply.header('Retry-After', String(error.retryAfterSeconds))
        throw error
      }
    },
  )

  app.get(
    '/session',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'getSession',
        summary: 'Get the current console session',
        description:
          'The signed-in user, their account and the CSRF token again, so a reloaded console page can carry on. Reads the ' +
          'session cookie only (API keys are not sessions). A cookie that no longer works (expired, signed out, user ' +
          'deactivated or given a new password) answers 401 session_expired and is cleared.',
        tags,
        security: [{ SessionCookie: [] }],
        response: { 200: SessionResponse, ...problemResponses('session_expired') },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store')
      return { session: requireConsoleSession(request).view }
    },
  )

  app.delete(
    '/session',
    {
      config: { auth: 'session' },
      schema: {
        operationId: 'deleteSession',
        summary: 'Sign out of the console',
        description: 'Ends the session and clears the cookie. Needs `X-CSRF-Token` like every change made with a session.',
        tags,
        security: [{ SessionCookie: [] }],
        response: {
          204: Type.Null({ description: 'Signed out; the cookie is cleared (Max-Age=0)' }),
          ...problemResponses('session_expired', 'csrf_token_invalid'),
        },
      },
    },
    async (request, reply) => {
      await sessions.signOut(requireActor(request), requireConsoleSession(request).id)
      return reply.code(204).header('Set-Cookie', clearedSessionCookie(request.protocol === 'https')).send(null)
    },
  )
}
