import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { entityTag, type IfMatch } from '../lib/etag.js'

/**
 * If-Match as sent (RFC 9110 section 13.1.1): `*`, or a comma-separated list of entity tags.
 * Absent or blank is no condition. Tags are kept as written, quotes included, for the strong
 * comparison in checkIfMatch.
 */
export function readIfMatch(request: FastifyRequest): IfMatch | undefined {
  const header = request.headers['if-match']
  const text = (Array.isArray(header) ? header.join(',') : header)?.trim()
  if (!text) return undefined
  if (text === '*') return '*'
  return text.match(/(?:W\/)?"[^"]*"/g) ?? [text]
}

/** Sets the ETag of the representation the reply carries. */
export function withEntityTag<T>(reply: FastifyReply, representation: T): T {
  reply.header('ETag', entityTag(representation))
  return representation
}

/** The If-Match header, for the OpenAPI of every PUT and PATCH. */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'The ETag you last read (from GET or the previous write). When the resource has changed since, the write is refused with 412 precondition_failed and nothing changes. `*` matches any current version.',
      examples: ['"3q2-7w1VSOu8n2Zyq4rR_A"'],
    }),
  ),
})

/** The ETag response header, for the OpenAPI of each answer that carries one. */
export const ETAG_RESPONSE_HEADER = {
  ETag: { description: 'The version of this representation; send it back in If-Match to update only this version.', schema: { type: 'string' } },
} as const
