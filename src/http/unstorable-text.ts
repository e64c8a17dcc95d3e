import type { FastifyRequest } from 'fastify'
import type { FieldProblem } from '../lib/domain-error.js'
import { containsUnstorableText, isStorableText, UNSTORABLE_TEXT_DETAIL, unstorableTextProblems } from '../lib/storable-text.js'
import type { App } from './app-types.js'
import { httpError } from './problem.js'

// As many as schema validation names (TypeBox's cap): a body of a million bad strings is one answer, not a megabyte.
const MAX_PROBLEMS = 8

/**
 * Whether the raw JSON text can only parse to storable strings. JSON text cannot carry a raw NUL
 * (control characters must be escaped), and a string decoded from UTF-8 bytes has no unpaired
 * surrogate, so without a `\u` escape and with storable text, every parsed string (keys too) is
 * storable: the usual body skips the walk.
 */
function jsonTextIsSurelyStorable(raw: string | undefined): boolean {
  return raw !== undefined && !raw.includes('\\u') && isStorableText(raw)
}

/** Query and path values: a name, or for a repeated query parameter a list of values. */
function parameterProblems(values: unknown, where: 'query' | 'path', problems: FieldProblem[]): void {
  if (typeof values !== 'object' || values === null) return
  for (const [name, value] of Object.entries(values)) {
    if (problems.length >= MAX_PROBLEMS) return
    // A bad name is not echoed: the part stands for it, as schema validation does for a whole part.
    if (!isStorableText(name)) problems.push({ parameter: where === 'query' ? 'querystring' : 'params', detail: `a ${where} parameter name ${UNSTORABLE_TEXT_DETAIL}`, code: 'invalid_character' })
    else if (containsUnstorableText(value)) problems.push({ parameter: name, detail: `${UNSTORABLE_TEXT_DETAIL} (${where})`, code: 'invalid_character' })
  }
}

function bodyProblems(request: FastifyRequest, problems: FieldProblem[]): void {
  const body = request.body
  if (body === undefined || body === null || problems.length >= MAX_PROBLEMS) return
  // A text body (an X12 acknowledgement) is one value: the pointer to the whole document.
  if (typeof body === 'string') {
    if (!isStorableText(body)) problems.push({ pointer: '', detail: `the body ${UNSTORABLE_TEXT_DETAIL}`, code: 'invalid_character' })
    return
  }
  if (jsonTextIsSurelyStorable(request.rawBody)) return
  unstorableTextProblems(body, '', problems, MAX_PROBLEMS)
}

/**
 * One rule for every route, schemas or not, public or not: a NUL character or an unpaired UTF-16
 * surrogate in any string the request carries (body values and field names at any depth, text
 * bodies, query and path values) answers 422 invalid_character at its pointer or parameter,
 * before schema validation and the handler, so PostgreSQL (which refuses both) never sees one.
 * Runs after authentication: an anonymous caller learns nothing a 401 would not tell.
 */
export function registerUnstorableTextCheck(app: App): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const problems: FieldProblem[] = []
    parameterProblems(request.params, 'path', problems)
    parameterProblems(request.query, 'query', problems)
    bodyProblems(request, problems)
    done(problems.length === 0 ? undefined : unstorableTextError(problems))
  })
}

/** The 422 for values that cannot be stored, also raised by routes that read their body in pieces (a census). */
export function unstorableTextError(problems: readonly FieldProblem[]) {
  const count = problems.length >= MAX_PROBLEMS ? `at least ${MAX_PROBLEMS}` : String(problems.length)
  return httpError('invalid_character', `${count} value${problems.length === 1 ? ' of the request holds' : 's of the request hold'} a NUL character or an unpaired surrogate, which cannot be stored.`, problems)
}

export { MAX_PROBLEMS as MAX_UNSTORABLE_TEXT_PROBLEMS }
