import type { FastifyBaseLogger } from 'fastify'

/** While the database is away every request fails alike: one line per interval tells as much as thousands. */
const REPORT_INTERVAL_MS = 10_000

/**
 * Logs, at most once per interval, that requests are answered 503 because the database is not
 * reachable, with how many such answers the interval saw. The cause is a connection failure,
 * whose message names no row data.
 */
export function createDatabaseOutageReporter(now: () => number = Date.now) {
  let lastReportAt = -Infinity
  let unreported = 0
  return (log: Pick<FastifyBaseLogger, 'warn'>, error: unknown): void => {
    unreported += 1
    const at = now()
    if (at - lastReportAt < REPORT_INTERVAL_MS) return
    log.warn({ err: error, requestsAnswered503: unreported }, 'database unreachable: answering 503 database_unavailable')
    lastReportAt = at
    unreported = 0
  }
}

export const reportDatabaseOutage = createDatabaseOutageReporter()
