import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { IdParams, problemResponses, publicProblemResponses } from '../../http/schemas.js'
import { PasswordLinkRateLimited } from './password-links.errors.js'
import { PasswordLinkRedeemedResponse, PasswordLinkResponse, RedeemPasswordLinkBody } from './password-links.schema.js'
import type { PasswordLinksService } from './password-links.service.js'

/**
 * Set-password links: created for a user by an administrator of the account (a console session
 * with the admin role) or an operator for any account, redeemed by whoever the link was handed
 * to, without signing in. Partner API keys may not create them (see the `account_admin` policy).
 */
export function passwordLinksRoutes(app: App, links: PasswordLinksService): void {
  const tags = ['Console sessions']
  const ttl = links.settings.passwordLinkTtlSeconds

  app.post(
    '/users/:id/password_links',
    {
      config: { auth: 'account_admin' },
      // The answer holds the token, and the Idempotency-Key store keeps answers in the clear for
      // replays: the key is dropped before the store's hook (added after this one) reads it.
      // Retrying without it is safe: a newer link replaces the older one.
      preHandler: async (request) => {
        delete request.headers['idempotency-key']
      },
      schema: {
        operationId: 'createPasswordLink',
        summary: 'Create a set-password link for a user',
        description:
          'Answers, once, a link that lets the user choose their console password (also to reset a forgotten one): no mail ' +
          `is sent, hand the link over yourself. It works once, for ${ttl} seconds (PASSWORD_LINK_TTL_SECONDS), and a newer ` +
          'link for the same user replaces it. Only the SHA-256 of its token is stored, so it cannot be shown again: create ' +
          'another if it is lost. Using it sets the password and ends the user\'s open console sessions. A console user with ' +
          "the admin role creates links for users of their account, an operator (key, token or session) for users of any " +
          'account; other console users answer 403 admin_role_required and partner API keys 403 forbidden (a key could ' +
          "otherwise make itself a console administrator). Another account's user answers 404. Idempotency-Key is not " +
          'stored for this endpoint (the answer is a secret); retrying simply makes a newer link. The link points at the ' +
          'origin the request was made to (behind a proxy, set TRUST_PROXY so X-Forwarded-Proto and -Host are used).',
        tags,
        params: IdParams,
        response: {
          201: PasswordLinkResponse,
          ...problemResponses('forbidden', 'admin_role_required', 'user_not_found', 'user_deactivated', 'console_email_taken'),
        },
      },
    },
    async (request, reply) => {
      const origin = `${request.protocol}://${request.host}`
      const passwordLink = await links.createLink(requireActor(request), request.params.id, origin)
      return reply.code(201).header('Cache-Control', 'no-store').send({ password_link: passwordLink })
    },
  )

  app.post(
    '/password_links/redemption',
    {
      config: { auth: 'none' },
      schema: {
        operationId: 'redeemPasswordLink',
        summary: 'Set a password with a set-password link',
        description:
          'Public: the token of a set-password link is the credential. Sets the password of the link\'s user, uses the link ' +
          "up and ends the user's open console sessions; then sign in with POST /session. A link that is unknown, already " +
          'used, replaced by a newer one or expired (or whose user was deactivated) answers 404 password_link_invalid, ' +
          'whichever it is. A password that breaks the rules answers 422 and leaves the link usable. After ' +
          `${links.settings.maxFailuresPerAddress} links that did not work from one address within ${links.settings.failureWindowSeconds} ` +
          'seconds (SIGN_IN_MAX_FAILURES_PER_ADDRESS, SIGN_IN_WINDOW_SECONDS), it answers 429 with Retry-After until the window ends. ' +
          'The token travels in the body, never in a URL, so it stays out of access logs.',
        tags,
        security: [],
        body: RedeemPasswordLinkBody,
        response: {
          200: PasswordLinkRedeemedResponse,
          ...publicProblemResponses('password_link_invalid', 'password_link_rate_limited', 'validation_failed', 'password_rules_not_met', 'console_email_taken', 'service_unavailable'),
        },
      },
    },
    async (request, reply) => {
      try {
        const redeemed = await links.redeem(request.body, { address: request.ip, requestId: request.id })
        return reply.header('Cache-Control', 'no-store').send(redeemed)
      } catch (error) {
        if (error instanceof PasswordLinkRateLimited) reply.header('Retry-After', String(error.retryAfterSeconds))
        throw error
      }
    },
  )
}
