import { Type } from 'typebox'
import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { problemResponses, Timestamp } from '../../http/schemas.js'
import { TOKEN_LIFETIME_SECONDS, type TokenService } from './tokens.js'

const TokenResponse = Type.Object(
  {
    token: Type.String({ description: 'A JWT to send as Authorization: Bearer <token>' }),
    token_type: Type.Literal('Bearer'),
    expires_at: Timestamp,
    expires_in: Type.Integer({ description: 'Seconds until expires_at' }),
  },
  {
    additionalProperties: false,
    description: 'A token valid for one day',
    examples: [{ token: 'eyJhbGciOiJIUzI1NiJ9...', token_type: 'Bearer', expires_at: '2026-11-23T09:30:00.000Z', expires_in: 86400 }],
  },
)

export function authRoutes(app: App, tokens: TokenService): void {
  app.post(
    '/auth/token',
    {
      config: { auth: 'api_key' },
      schema: {
        operationId: 'createToken',
        summary: 'Exchange an API key for a token',
        description:
          'Send the API key in Service-Api-Key and no body. The token is valid for one day; ' +
          'revoking the key ends it at once. Requesting one per call, per session or per batch are all fine.',
        tags: ['Authentication'],
        security: [{ ApiKey: [] }],
        response: { 201: TokenResponse, ...problemResponses() },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request)
      const issued = await tokens.issue({
        accountId: actor.accountId,
        accountKind: actor.accountKind,
        apiKeyId: actor.apiKeyId!,
        apiKeyName: actor.apiKeyName!,
      })
      return reply
        .code(201)
        .header('Cache-Control', 'no-store')
        .send({ token: issued.token, token_type: 'Bearer' as const, expires_at: issued.expiresAt.toISOString(), expires_in: TOKEN_LIFETIME_SECONDS })
    },
  )
}
