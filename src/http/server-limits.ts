import type { Server, ServerOptions } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'

/** How long a client may take and how many may connect (HTTP_* variables). */
export interface ServerLimits {
  /** From the first byte of a request to the end of its headers. */
  headersTimeoutMs: number
  /** From the first byte of a request to the end of its body; the handler's own time is not counted. */
  requestTimeoutMs: number
  /** How long a keep-alive connection may sit idle between requests. */
  keepAliveTimeoutMs: number
  /** Open connections per process; those beyond are closed as they arrive. */
  maxConnections: number
}

export const DEFAULT_SERVER_LIMITS: Readonly<ServerLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  // Longer than the 60 s idle timeout of common load balancers, so they close idle connections
  // first and never send a request on one this side is closing (a spurious 502). Fastify's default.
  keepAliveTimeoutMs: 72_000,
  maxConnections: 4096,
})

/**
 * The server options that apply the limits. Node checks header and request deadlines on a timer
 * (every 30 s by default, which would let a 10 s deadline run to 40 s): it runs at a tenth of the
 * header deadline here, at most once a second, a walk over the open connections.
 */
export function serverLimitOptions(limits: ServerLimits): { requestTimeout: number; keepAliveTimeout: number; http: ServerOptions } {
  const connectionsCheckingInterval = Math.max(10, Math.min(1000, Math.floor(limits.headersTimeoutMs / 10)))
  return {
    // Fastify sets these two on the server after creating it; both places must agree.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval },
  }
}

// One warning per interval at most: a flood of refused connections must not become a flood of log lines.
const DROP_LOG_INTERVAL_MS = 10_000

/** Caps open connections; Node closes the ones beyond the cap at once, and they are counted in the log. */
export function capConnections(server: Server, limits: ServerLimits, log: FastifyBaseLogger): void {
  server.maxConnections = limits.maxConnections
  let dropped = 0
  let lastLogged = 0
  server.on('drop', () => {
    dropped++
    const now = Date.now()
    if (now - lastLogged < DROP_LOG_INTERVAL_MS) return
    log.warn({ dropped, maxConnections: limits.maxConnections }, 'connections refused: HTTP_MAX_CONNECTIONS reached')
    lastLogged = now
    dropped = 0
  })
}
