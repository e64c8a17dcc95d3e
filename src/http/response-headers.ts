import type { App } from './app-types.js'
import { NOSNIFF_HEADER } from './client-errors.js'

/**
 * Headers every answer carries: its request id (logs join on it) and `nosniff`, so a browser
 * never runs a JSON answer (or an echoed upload) as a script or page. Registered before every
 * other hook, so answers sent from a hook (draining, CORS, the guard) carry them too; problems
 * sent where no hook runs (Fastify's framework errors) get them from sendProblem.
 */
export function registerResponseHeaders(app: App): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id)
    reply.header(NOSNIFF_HEADER, 'nosniff')
    done()
  })
}
