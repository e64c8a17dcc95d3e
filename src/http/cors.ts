import type { App } from './app-types.js'
import { appendVary } from './vary.js'

/**
 * What a browser page on a listed origin may send: the credentials, bodies and conditions the API
 * reads, and the cursor an event stream client resumes with (GET /events/stream).
 */
const ALLOWED_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'Last-Event-ID', 'Service-Api-Key', 'X-Request-Id']
/** What its script may read beyond the CORS-safelisted headers: pagination, limits, versions, ids. */
const EXPOSED_RESPONSE_HEADERS = [
  'Allow',
  'ETag',
  'Idempotent-Replayed',
  'Link',
  'Location',
  'Page',
  'Per-Page',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Total',
  'X-Request-Id',
]
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE'
// Browsers cap this anyway (Chromium at 2 hours); 10 minutes keeps a config change quick to reach pages.
const PREFLIGHT_MAX_AGE_SECONDS = 600

/**
 * Cross-origin calls from browser pages, for the origins CORS_ORIGINS lists and no other; off
 * (no CORS header at all) when the list is empty. Preflights (OPTIONS with
 * Access-Control-Request-Method) are answered here, before authentication and routing: a
 * browser never sends credentials on a preflight. Credentials mode is not allowed: API clients
 * send a key or a bearer token in a header, and the console's cookie is SameSite=Strict, for its
 * own origin only.
 */
export function registerCors(app: App, origins: readonly string[]): void {
  if (origins.length === 0) return
  const listed = new Set(origins)
  const exposed = EXPOSED_RESPONSE_HEADERS.join(', ')
  const allowedHeaders = ALLOWED_REQUEST_HEADERS.join(', ')

  app.addHook('onRequest', async (request, reply) => {
    // The answer depends on Origin whenever CORS is on: shared caches must keep them apart.
    appendVary(reply, 'Origin')
    const origin = request.headers.origin
    if (origin === undefined || !listed.has(origin)) return
    reply.header('Access-Control-Allow-Origin', origin)
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      reply.header('Access-Control-Allow-Methods', ALLOWED_METHODS)
      reply.header('Access-Control-Allow-Headers', allowedHeaders)
      reply.header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS))
      return reply.code(204).send()
    }
    reply.header('Access-Control-Expose-Headers', exposed)
  })
}

/**
 * CORS_ORIGINS: comma-separated origins, each exactly as a browser sends it in Origin
 * (`https://app.example.com`, `http://localhost:5173`): scheme, host and a port only when it is
 * not the default one. Returns a reason when an entry is not such an origin.
 */
export function parseCorsOrigins(text: string | undefined): { origins: string[] } | { problem: string } {
  const entries = (text ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '')
  for (const entry of entries) {
    if (entry === '*') return { problem: 'CORS_ORIGINS lists origins exactly; "*" is not accepted (any web page could then call the API with a key it holds)' }
    let origin: string
    try {
      origin = new URL(entry).origin
    } catch {
      return { problem: `CORS_ORIGINS entry "${entry}" is not an origin such as https://app.example.com` }
    }
    if (origin !== entry) {
      return { problem: `CORS_ORIGINS entry "${entry}" is not an origin as browsers send it: write ${origin === 'null' ? 'scheme://host[:port]' : origin}` }
    }
  }
  return { origins: [...new Set(entries)] }
}
