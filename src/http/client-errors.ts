import { STATUS_CODES, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import { uuidv7 } from '../lib/ids.js'
import { errorTable, problemType, type ErrorCode } from './error-table.js'
import type { ProblemBody } from './problem.js'

/** Headers every answer carries, the ones written on a bare socket below included. */
export const NOSNIFF_HEADER = 'X-Content-Type-Options'

interface ClientFailure {
  code: ErrorCode
  detail: string
}

// llhttp's codes for framing a client got wrong; anything else it refuses is a generic bad request.
const FRAMING_DETAILS: Record<string, string> = {
  HPE_INVALID_CHUNK_SIZE: 'A chunk size of the chunked body is not valid.',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not a valid number.',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length and Transfer-Encoding: chunked were both sent.',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding is not valid.',
  HPE_INVALID_METHOD: 'The request line does not start with an HTTP method.',
  HPE_INVALID_HEADER_TOKEN: 'A header name or value holds a character HTTP does not allow.',
}

function failureOf(error: NodeJS.ErrnoException): ClientFailure {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { code: 'request_timeout', detail: 'The request did not arrive completely in time; the connection is closed.' }
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { code: 'request_header_too_large', detail: 'The request line and headers are larger than this service accepts.' }
  }
  return { code: 'malformed_request', detail: FRAMING_DETAILS[error.code ?? ''] ?? 'The request is not valid HTTP/1.1.' }
}

/** The raw HTTP answer: problem+json, a fresh request id (none was parsed), nosniff, and the connection closed. */
export function rawProblemAnswer(code: ErrorCode, detail: string, requestId: string): string {
  const entry = errorTable[code]
  const body: ProblemBody = { type: problemType(code), title: entry.title, status: entry.status, detail, instance: requestId, code }
  const text = JSON.stringify(body)
  return [
    `HTTP/1.1 ${entry.status} ${STATUS_CODES[entry.status] ?? 'Error'}`,
    'Content-Type: application/problem+json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    `X-Request-Id: ${requestId}`,
    `${NOSNIFF_HEADER}: nosniff`,
    'Connection: close',
    '',
    text,
  ].join('\r\n')
}

/**
 * What Node's HTTP parser refuses before Fastify sees a request (headers over 16 KB, broken
 * framing, the header and request timeouts) is answered like every other failure: problem+json
 * with a request id, instead of Fastify's default `application/json` without one. Then the
 * connection is closed, as Node does: after broken framing nothing more on it can be trusted.
 * Fastify calls it with the app as `this`.
 */
export function answerClientError(this: { log: FastifyBaseLogger }, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  // The response in progress on this socket, if any (Node's own handler checks the same
  // internal field): once its headers are out, another answer would corrupt the stream.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  if (socket.writable && !inFlight?.headersSent) {
    const { code, detail } = failureOf(error)
    const requestId = uuidv7()
    this.log.info({ requestId, status: errorTable[code].status, reason: error.code }, 'connection answered before a complete request')
    socket.write(rawProblemAnswer(code, detail, requestId))
  }
  socket.destroy(error)
}
