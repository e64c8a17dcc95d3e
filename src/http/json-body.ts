import secureJson from 'secure-json-parse'
import { httpError } from './problem.js'

/**
 * Parses JSON a client sent: a `__proto__` or `constructor.prototype` key is refused rather than
 * honoured, and a syntax error answers 400 malformed_json. `where` says which text failed when a
 * body is read in pieces (the census's subscribers).
 */
export function parseClientJson(text: string, where = 'The body'): unknown {
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    // V8 quotes the text around an unexpected token (`Unexpected token ''', ..."ssn":'123-45-67"...`):
    // that text may be an SSN or a birth date, so only the part before the quote is kept.
    const reason = error instanceof SyntaxError ? error.message.replace(/,\s*(?:\.\.\.)?".*$/s, '') : 'forbidden prototype property'
    throw httpError('malformed_json', `${where} is not valid JSON: ${reason}`)
  }
}
