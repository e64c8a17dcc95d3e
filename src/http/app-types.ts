import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify'
import type { Actor } from '../lib/actor.js'
import type { ConsoleSession } from '../modules/sessions/sessions.service.js'

/**
 * Who may call a route. `none`: public (health, docs, signing in). `api_key`: only the
 * Service-Api-Key header (minting tokens). `any`: any valid credential (key, token or console
 * session). `service`: operator credentials only (keys, tokens or sessions of a service account).
 * `account_admin`: operator credentials, or the session of a user with the admin role, for their
 * own account only (the service checks the account): API keys and set-password links. `session`: the console session cookie only.
 */
export type AuthPolicy = 'none' | 'api_key' | 'any' | 'service' | 'account_admin' | 'session'

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthPolicy
  }
  interface FastifyRequest {
    /** Set by the guard on every authenticated route; null on public ones. */
    actor: Actor | null
    /** The console session the request was authenticated with; null for keys, tokens and public routes. */
    consoleSession: ConsoleSession | null
    /** The body exactly as received, for Idempotency-Key fingerprints. */
    rawBody: string | undefined
    /** SHA-256 of a body too large to keep as text (a census written to a file): its fingerprint instead. */
    rawBodySha256: string | undefined
  }
}
