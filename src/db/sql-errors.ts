/** SQLSTATE codes the repos translate into domain errors (PostgreSQL appendix A). */
export const SqlState = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  checkViolation: '23514',
  serializationFailure: '40001',
} as const

export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code
  }
  return undefined
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (sqlStateOf(error) !== SqlState.uniqueViolation) return false
  if (constraint === undefined) return true
  return typeof error === 'object' && error !== null && 'constraint' in error && error.constraint === constraint
}

/**
 * SQLSTATEs that say the server is not there for us right now, not that the request is wrong:
 * class 08 (connection exception: 08000, 08001, 08003, 08004, 08006 ...), the server shutting
 * down or starting (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now) and
 * 53300 too_many_connections.
 */
const UNAVAILABLE_SQL_STATES = new Set(['57P01', '57P02', '57P03', '53300'])

/** Socket failures on the way to the server (refused, reset, unroutable, name not resolved). */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/**
 * What node-postgres and its pool say, without a code, when a connection dies under a query, a
 * dead client is used, or no connection could be had within connectionTimeoutMillis; and the
 * pool that was ended as the process shuts down.
 */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /is not queryable$/,
  /^timeout exceeded when trying to connect$/,
  /^Cannot use a pool after calling end on the pool$/,
]

/**
 * True when the error means the database could not be reached or dropped the connection (an
 * outage, a restart, a failover, an unreachable host), so the answer is 503 and a retry later may
 * succeed; false for errors the query itself caused. Looks through `cause` chains and
 * AggregateErrors (Node reports a refused dual-stack connect as one).
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false
  const code = sqlStateOf(error)
  if (code !== undefined && (code.startsWith('08') || UNAVAILABLE_SQL_STATES.has(code))) return true
  // Only a socket's own failure (it names its syscall): a client aborting its upload also says ECONNRESET.
  if (code !== undefined && UNAVAILABLE_SOCKET_CODES.has(code) && 'syscall' in error) return true
  if (error instanceof Error && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(error.message))) return true
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true
  return 'cause' in error && isDatabaseUnavailable(error.cause, depth + 1)
}
