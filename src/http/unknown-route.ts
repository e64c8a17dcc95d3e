import type { HTTPMethods } from 'fastify'
import { maskPiiPathSegments } from './access-log.js'
import type { App } from './app-types.js'
import { problem, sendProblem } from './problem.js'

// Allow lists methods in this order, the way people read them.
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
const byReadingOrder = (a: string, b: string) => (METHOD_ORDER.indexOf(a) + 1 || 99) - (METHOD_ORDER.indexOf(b) + 1 || 99)

/**
 * Answers requests no route takes: a path that exists for other methods is 405 with `Allow`
 * (RFC 9110 section 15.5.6), anything else 404. Register before the routes: the method list is
 * collected from their onRoute events (HEAD routes included, which Fastify adds for each GET).
 */
export function registerUnknownRouteAnswers(app: App): void {
  const methods = new Set<HTTPMethods>()
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) methods.add(method.toUpperCase() as HTTPMethods)
  })

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]!
    // The details repeat the path, never an SSN or birth date typed into it (problems never carry one).
    const shown = maskPiiPathSegments(path)
    const notFound = () => sendProblem(reply, problem(request, 'route_not_found', `No endpoint answers ${request.method} ${shown}.`))
    // GET and HEAD are one method here: Fastify answers HEAD with the GET route.
    const asked = request.method === 'GET' || request.method === 'HEAD' ? ['GET', 'HEAD'] : [request.method]
    const answers = (method: string) => methods.has(method as HTTPMethods) && app.findRoute({ method: method as HTTPMethods, url: path }) !== null
    // A route for this very method took the request and found nothing (reply.callNotFound(), as
    // @fastify/static does for a missing file under /docs/static/*): the path is fine, the thing is not.
    if (asked.some(answers)) return notFound()
    // Only failed lookups pay for this: a handful of router lookups with the real path.
    const allowed = [...methods].filter((method) => !asked.includes(method) && answers(method)).sort(byReadingOrder)
    if (allowed.length === 0) return notFound()
    reply.header('Allow', allowed.join(', '))
    return sendProblem(reply, problem(request, 'method_not_allowed', `${shown} does not answer ${request.method}; it answers ${allowed.join(', ')}.`))
  })
}
