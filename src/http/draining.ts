import type { App } from './app-types.js'
import { problem, sendProblem } from './problem.js'

/**
 * Requests that arrive while the app is closing (on a keep-alive connection opened before)
 * answer 503 problem+json with Retry-After and `Connection: close`, so the client retries on
 * another instance. Fastify's own `return503OnClosing` answer is a fixed non-problem body with
 * no Retry-After and no way to add a header, hence this hook instead of it.
 */
export function registerDraining(app: App): void {
  let draining = false
  app.addHook('preClose', (done) => {
    draining = true
    done()
  })
  // Registered before every other hook, so a draining instance does no authentication work.
  // A callback hook, not an async one: on every request of a running instance it only reads a
  // flag, and an async hook would cost a promise and a microtask turn each time.
  app.addHook('onRequest', (request, reply, done) => {
    if (!draining) return done()
    reply.header('Connection', 'close')
    sendProblem(reply, problem(request, 'service_unavailable', 'This instance is shutting down. Retry: another instance will answer.'))
  })
}
