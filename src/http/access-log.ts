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

// A path segment that is a date, as a birth date typed where an id goes would be: YYYY-MM-DD (the
// API's form), MM-DD-YYYY, either with `/` (percent-encoded, so one segment), or CCYYMMDD (the
// 834's form) with a plausible century, month and day. Birth dates are PII as SSNs are (the
// contract: never in logs or problem details), and no path of this API holds a date.
const DATE_SEGMENT =
  /(?<=^|\/)(?:\d{4}(-|%2f)\d{1,2}\1\d{1,2}|\d{1,2}(-|%2f)\d{1,2}\2\d{4}|(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?=\/|$)/gi

/** The path with SSN- and date-shaped segments masked: what logs and the 404/405 details show. */
export function maskPiiPathSegments(path: string): string {
  return maskSsnPathSegments(path).replace(DATE_SEGMENT, '****-**-**')
}

/**
 * One access line per request. The path only: the query string (filters such as ?email=) and the
 * body may hold personal data, and SSN- and date-shaped path segments are masked.
 */
export function registerAccessLog(app: App): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      { method: request.method, path: maskPiiPathSegments(request.url.split('?', 1)[0]!), status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request completed',
    )
    done()
  })
}
