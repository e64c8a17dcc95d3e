import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify'
import type { Actor } from '../lib/actor.js'

/**
 * Who may call a route. `none`: public (health, docs). `api_key`: only the Service-Api-Key header
 * (minting tokens). `any`: any valid credential. `service`: operator credentials only.
 */
export type AuthPolicy = 'none' | 'api_key' | 'any' | 'service'

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthPolicy
  }
  interface FastifyRequest {
    /** Set by the guard on every authenticated route; null on public ones. */
    actor: Actor | null
    /** The body exactly as received, for Idempotency-Key fingerprints. */
    rawBody: string | undefined
  }
}
