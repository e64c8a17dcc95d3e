import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify'
import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import type { FieldProblem } from '../lib/domain-error.js'
import { escapePointerToken } from '../lib/json-pointer.js'

type Part = 'body' | 'querystring' | 'params' | 'headers'

function describe(error: FastifySchemaValidationError): { code: string; detail: string } {
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'format':
      return { code: 'invalid_format', detail: `must be a valid ${String(params.format)}` }
    case 'enum': {
      const allowed = (params.allowedValues ?? params.allowedValue) as unknown[] | undefined
      return { code: 'invalid_value', detail: allowed ? `must be one of: ${allowed.join(', ')}` : 'is not an allowed value' }
    }
    case 'const':
      return { code: 'invalid_value', detail: `must be ${JSON.stringify(params.allowedValue)}` }
    case 'type':
      return { code: 'invalid_type', detail: error.message ?? 'has the wrong type' }
    case 'pattern':
      return { code: 'invalid_format', detail: 'does not have the expected format' }
    default:
      return { code: `invalid_${error.keyword}`.replace(/[^a-z_]/gi, '_').toLowerCase(), detail: error.message ?? 'is invalid' }
  }
}

/**
 * Turns schema violations into one problem per offending field. Unknown and missing fields
 * get the pointer of the field itself (not of its parent object), which is where a client looks.
 * The offending value is never repeated: it may be an SSN or a birth date.
 */
export function fieldProblemsFromValidation(errors: readonly FastifySchemaValidationError[], part: Part): FieldProblem[] {
  const seen = new Set<string>()
  const problems: FieldProblem[] = []
  const add = (path: string, code: string, detail: string) => {
    const key = `${path} ${code}`
    if (seen.has(key)) return
    seen.add(key)
    if (part === 'body') problems.push({ pointer: path, detail, code })
    else problems.push({ parameter: path.split('/').filter(Boolean).join('.') || part, detail, code })
  }
  for (const error of errors) {
    const params = error.params as Record<string, unknown>
    // "schema is false" is how TypeBox reports each field additionalProperties refuses, one error per
    // field and before the additionalProperties error itself. TypeBox stops at 8 errors (its
    // maxErrors), so with many unknown fields only these arrive: name them, or the problem would
    // say "0 invalid fields". The additionalProperties error, when it comes, adds nothing new.
    if (error.keyword === 'boolean') {
      add(error.instancePath, 'unknown_field', 'is not a known field')
      continue
    }
    if (error.keyword === 'additionalProperties') {
      const names = (params.additionalProperties as string[] | undefined) ?? [String(params.additionalProperty)]
      for (const name of names) add(`${error.instancePath}/${escapePointerToken(name)}`, 'unknown_field', 'is not a known field')
      continue
    }
    if (error.keyword === 'required') {
      const names = (params.requiredProperties as string[] | undefined) ?? [String(params.missingProperty)]
      for (const name of names) add(`${error.instancePath}/${escapePointerToken(name)}`, 'required', 'is required')
      continue
    }
    const { code, detail } = describe(error)
    add(error.instancePath || '', code, detail)
  }
  return problems
}

/**
 * A compiled stand-in for Value.Default + Value.Convert on a flat object of query or path values:
 * integers written as digits become numbers, true/false become booleans, missing keys with a
 * default get it. The dynamic TypeBox functions walk the schema on every call, which profiles put
 * at about a tenth of a list request's CPU (`?per_page=100` arrives as text on every page). A
 * value this does not settle is left to them, so behaviour and error reporting stay theirs.
 */
function compileTextCoercion(schema: TSchema): { coerce: (value: unknown) => unknown; keepNonDigitIntegers: (converted: unknown, original: unknown) => unknown } | undefined {
  const properties = (schema as { properties?: Record<string, TSchema & { type?: unknown; default?: unknown }> }).properties
  if ((schema as { type?: unknown }).type !== 'object' || !properties) return undefined
  const entries = Object.entries(properties)
  const integers = entries.filter(([, p]) => p.type === 'integer').map(([name]) => name)
  const booleans = entries.filter(([, p]) => p.type === 'boolean').map(([name]) => name)
  const defaults = entries.filter(([, p]) => p.default !== undefined && typeof p.default !== 'object').map(([name, p]) => [name, p.default] as const)
  const coerce = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return value
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) }
    for (const name of integers) {
      const text = out[name]
      if (typeof text === 'string' && /^-?\d{1,15}$/.test(text)) out[name] = Number(text)
    }
    for (const name of booleans) {
      if (out[name] === 'true') out[name] = true
      else if (out[name] === 'false') out[name] = false
    }
    for (const [name, fallback] of defaults) if (out[name] === undefined) out[name] = fallback
    return out
  }
  /**
   * After TypeBox's own conversion: an integer given as text that is not digits stays the text it
   * was, so it is refused as not an integer. Value.Convert reads `1.5` as 1, `0x10` as 16 and
   * `1e3` as 1000, so `per_page=1.5` answered a page of one instead of the 422 a client needs to
   * see its mistake.
   */
  const keepNonDigitIntegers = (converted: unknown, original: unknown) => {
    if (typeof converted !== 'object' || converted === null || typeof original !== 'object' || original === null) return converted
    const given = original as Record<string, unknown>
    const out = converted as Record<string, unknown>
    for (const name of integers) {
      const text = given[name]
      if (typeof text === 'string' && !/^-?\d+$/.test(text)) out[name] = text
    }
    return out
  }
  return { coerce, keepNonDigitIntegers }
}

/**
 * Lower-cases the uuid-format values of a flat object of path or query values. The uuid format
 * takes either case and the database answers lower case; code that compares an id from the URL
 * with one from a row as text (watchers matched to events, the live stream's filters, a bulk
 * assignment's lookups) missed an upper-case id. Canonical at the edge, every module sees the
 * id as the database writes it.
 */
function compileIdLowering(schema: TSchema): (value: unknown) => unknown {
  const properties = (schema as { properties?: Record<string, { format?: unknown }> }).properties
  const ids = properties ? Object.entries(properties).filter(([, p]) => p.format === 'uuid').map(([name]) => name) : []
  if (ids.length === 0) return (value) => value
  return (value) => {
    if (typeof value !== 'object' || value === null) return value
    const given = value as Record<string, unknown>
    let out: Record<string, unknown> | undefined
    for (const name of ids) {
      const id = given[name]
      if (typeof id === 'string' && /[A-F]/.test(id)) (out ??= { ...given })[name] = id.toLowerCase()
    }
    return out ?? value
  }
}

/**
 * Request validation with TypeBox. Defaults are filled in everywhere (page, per_page, empty
 * arrays); strings are converted to numbers and booleans only outside the body, where
 * everything arrives as text. A JSON body is taken as typed: "5" is not a number there.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const checker = Compile(schema)
  const coerceText = httpPart === 'body' ? undefined : compileTextCoercion(schema)
  const canonicalIds = httpPart === 'params' || httpPart === 'querystring' ? compileIdLowering(schema) : (value: unknown) => value
  return (value: unknown) => {
    // Most requests are already complete and typed: check first, fill in and convert only if not.
    if (checker.Check(value)) return { value: canonicalIds(value) }
    if (coerceText) {
      const coerced = coerceText.coerce(value)
      if (checker.Check(coerced)) return { value: canonicalIds(coerced) }
    }
    // As given: Value.Default and Value.Convert may change the object they are handed.
    const given = coerceText && typeof value === 'object' && value !== null ? { ...(value as Record<string, unknown>) } : value
    let candidate = Value.Default(schema, value)
    if (httpPart !== 'body') candidate = Value.Convert(schema, candidate)
    if (coerceText) candidate = coerceText.keepNonDigitIntegers(candidate, given)
    if (checker.Check(candidate)) return { value: canonicalIds(candidate) }
    return { error: checker.Errors(candidate) as unknown as FastifySchemaValidationError[] }
  }
}

/**
 * Body validation outside Fastify's, for a body read in pieces (a census's subscribers, one at a
 * time): the value (defaults filled in) or its problems, pointers prefixed with where it sits.
 */
export function compileBodyValidator(schema: TSchema): (value: unknown, pointer: string) => { value: unknown; problems?: undefined } | { problems: FieldProblem[] } {
  const validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '' }) as (value: unknown) => { value?: unknown; error?: FastifySchemaValidationError[] }
  return (value, pointer) => {
    const result = validate(value)
    if (!result.error) return { value: result.value }
    return { problems: fieldProblemsFromValidation(result.error.map((error) => ({ ...error, instancePath: pointer + error.instancePath })), 'body') }
  }
}
