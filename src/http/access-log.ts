import { maskSsn } from '../lib/ssn-protection.js'
import type { App } from './app-types.js'

// A path segment that is an SSN: nine digits, plain or grouped by dashes or spaces as free text
// may be (lib/free-text-masking.ts), percent-encoded or not. Ids in paths are UUIDs, so nothing
// legitimate looks like this; a client that puts an SSN where an id goes (a lookup by the wrong
// field) must not get it written to the log.
const SSN_SEGMENT = /(?<=^|\/)(\d{3})(-|%2d|%20)?(\d{2})\2(\d{4})(?=\/|$)/gi

/** The path with SSN-shaped segments masked the way answers show SSNs (`***-**-6789`): for logs and the 404/405 details. */
export function maskSsnPathSegments(path: string): string {
  return path.replace(SSN_SEGMENT, (_segment, _area, _dash, _group, lastFour: string) => maskSsn(lastFour))
}

/**
 * One access line per request. The path only: the query string (filters such as ?email=) and the
 * body may hold personal data, and SSN-shaped path segments are masked.
 */
export function registerAccessLog(app: App): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      { method: request.method, path: maskSsnPathSegments(request.url.split('?', 1)[0]!), status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request completed',
    )
    done()
  })
}
