import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { reportDatabaseOutage } from '../db/database-outage.js'
import { isDatabaseUnavailable } from '../db/sql-errors.js'
import { DomainError, type FieldProblem } from '../lib/domain-error.js'
import { errorTable, problemType, type ErrorCode } from './error-table.js'
import { fieldProblemsFromValidation } from './validation.js'

export interface ProblemBody {
  type: string
  title: string
  status: number
  detail: string
  instance: string
  code: ErrorCode
  errors?: FieldProblem[]
}

export function problem(request: FastifyRequest, code: ErrorCode, detail: string, errors?: readonly FieldProblem[]): ProblemBody {
  const entry = errorTable[code]
  const body: ProblemBody = { type: problemType(code), title: entry.title, status: entry.status, detail, instance: request.id, code }
  if (errors && errors.length > 0) body.errors = [...errors]
  return body
}

/**
 * Every 503 says when to come back (RFC 9110 section 10.2.3), so clients and load balancers back
 * off for a moment instead of hammering an instance that is starting, draining or cut off from
 * its database. A handler that knows better sets its own value first.
 */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5

export function sendProblem(reply: FastifyReply, body: ProblemBody): FastifyReply {
  // Also where no onRequest hook ran (Fastify's framework errors): every answer names its request.
  reply.header('X-Request-Id', body.instance)
  reply.header('X-Content-Type-Options', 'nosniff')
  if (body.status === 503 && !reply.hasHeader('retry-after')) reply.header('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS))
  return reply.code(body.status).type('application/problem+json; charset=utf-8').send(body)
}

/** A failure raised outside a domain (auth, limits, idempotency) with its code. */
export function httpError(code: ErrorCode, detail: string, errors?: readonly FieldProblem[]): DomainError<ErrorCode> {
  return new DomainError(code, detail, errors)
}

function isKnownCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorTable, code)
}

/** Maps every error that reaches Fastify to a problem; anything unrecognised is a bare 500. */
export function toProblem(error: FastifyError | Error, request: FastifyRequest): ProblemBody {
  if (error instanceof DomainError && isKnownCode(error.code)) {
    return problem(request, error.code, error.message, error.fieldProblems)
  }
  // A database that is restarting or cut off is the service's trouble, not a fault in it: 503
  // with Retry-After (sendProblem), so clients retry instead of reporting a bug.
  if (isDatabaseUnavailable(error)) {
    reportDatabaseOutage(request.log, error)
    return problem(request, 'database_unavailable', 'The database is not reachable right now. Retry after Retry-After seconds.')
  }
  const fastifyError = error as FastifyError
  if (fastifyError.validation) {
    const part = fastifyError.validationContext ?? 'body'
    // A malformed id in the path can never name a resource: answer as for an unknown one.
    if (part === 'params') return problem(request, 'not_found', 'No resource has this id.')
    const errors = fieldProblemsFromValidation(fastifyError.validation, part)
    const where = part === 'body' ? 'The request body' : 'The query string'
    return problem(request, 'validation_failed', `${where} has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`, errors)
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem(request, 'unsupported_media_type', `Content-Type ${request.headers['content-type'] ?? '(none)'} is not supported; send application/json.`)
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(request, 'payload_too_large', 'The request body is larger than this service accepts.')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problem(request, 'malformed_request', 'Content-Length does not match the body.')
  }
  if (fastifyError.statusCode === 413) return problem(request, 'payload_too_large', 'The request body is larger than this service accepts.')
  return problem(request, 'internal_error', 'An unexpected error occurred. Quote the instance when reporting it.')
}
