import { Type, type TSchema } from 'typebox'
import { errorTable, type ErrorCode } from './error-table.js'

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' })
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 timestamp, UTC, milliseconds' })
// Year 0000 passes the `date` format but not PostgreSQL's date type: refused here, as a 422.
export const IsoDate = Type.String({ format: 'date', pattern: '^(?!0000)[0-9]{4}-', description: 'Date, YYYY-MM-DD' })
export const Email = Type.String({
  format: 'email',
  maxLength: 254,
  description: 'Email address of the form text@text.text',
  examples: ['ops@example.com'],
})

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()])
}

export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false })

export const PaginationQuery = Type.Object(
  {
    // Bounded so the offset (page x per_page) always fits PostgreSQL's bigint.
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1 (at most 1,000,000)' }),
    per_page: Type.Integer({ minimum: 1, maximum: 100, default: 25, description: 'Items per page, at most 100' }),
  },
  { additionalProperties: false },
)

const FieldProblemSchema = Type.Object({
  pointer: Type.Optional(Type.String({ description: 'JSON pointer into the request body' })),
  parameter: Type.Optional(Type.String({ description: 'Query or path parameter' })),
  detail: Type.String(),
  code: Type.String(),
})

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI naming the problem type: urn:enrollsync:problem:<code>' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String({ description: 'The request id (also in X-Request-Id)' }),
    code: Type.String({ description: 'Stable error code; see docs/errors.md' }),
    errors: Type.Optional(Type.Array(FieldProblemSchema)),
  },
  { $id: 'Problem', title: 'Problem' },
)

const statusDescriptions: Record<number, string> = {
  400: 'Malformed request',
  401: 'Missing, invalid, expired or revoked credentials',
  403: 'The credential may not call this endpoint',
  404: 'Not found (or belongs to another account)',
  409: 'Conflict',
  413: 'Body too large',
  415: 'Body is not JSON',
  422: 'Validation failed',
  429: 'Rate limited',
  500: 'Unexpected error',
  503: 'Service unavailable',
}

/**
 * The problem responses of a route, each with an example of its most likely code, so the
 * OpenAPI document tells client developers what can go wrong where. The route's own codes come
 * first: a route with a 401 or 429 of its own (signing in) shows that code, not the generic one.
 */
function describeProblems(codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode>()
  for (const code of codes) {
    const status = errorTable[code].status
    if (!byStatus.has(status)) byStatus.set(status, code)
  }
  const responses: Record<number, TSchema> = {}
  for (const [status, code] of byStatus) {
    const entry = errorTable[code]
    const example = {
      type: `urn:enrollsync:problem:${code}`,
      title: entry.title,
      status,
      detail: entry.description,
      instance: '0193a4b2-7c1d-7e8f-9a0b-1c2d3e4f5a6b',
      code,
    }
    // Declared under the media type actually sent, so generated clients parse it as a problem.
    responses[status] = {
      description: statusDescriptions[status] ?? entry.title,
      content: { 'application/problem+json': { schema: Type.Ref('Problem'), example } },
    } as unknown as TSchema
  }
  return responses
}

/** The route's problems plus what any authenticated route can answer (credentials, rate limit, the unexpected). */
export function problemResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  return describeProblems([...codes, 'missing_credentials', 'rate_limited', 'internal_error'])
}

/** Same as problemResponses, for public routes, which have no credentials to get wrong and no rate limit. */
export function publicProblemResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  return describeProblems([...codes, 'internal_error'])
}
