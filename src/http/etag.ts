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

/** Reads that answer the ETag a conditional write needs (the writes are found by their If-Match parameter). */
const TAGGED_READS = new Set(['getGroup', 'getWatcher', 'getSubscriber', 'getMember'])

const ETAG_HEADER = {
  description: 'The version of this representation (strong, opaque); send it back in If-Match to update only this version.',
  schema: { type: 'string' },
  example: '"3q2-7w1VSOu8n2Zyq4rR_A"',
}

interface TaggableOperation {
  operationId?: string
  parameters?: { in?: string; name?: string }[]
  responses?: Record<string, { headers?: Record<string, unknown> }>
}

/**
 * Documents the ETag header on the 200 answers that carry one: every operation taking If-Match
 * and the reads in TAGGED_READS. Route schemas have no place for response headers that does not
 * also reach the response serializer, so the OpenAPI document gets them here, before its shared
 * answers are named (a tagged 200 then differs from the untagged 201 of a create, as it does).
 */
export function documentEntityTags<T extends { paths?: Record<string, Record<string, unknown>> }>(document: T): T {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item) as TaggableOperation[]) {
      if (typeof operation !== 'object' || operation === null || !operation.responses?.['200']) continue
      const takesIfMatch = operation.parameters?.some((parameter) => parameter.in === 'header' && parameter.name?.toLowerCase() === 'if-match')
      if (!takesIfMatch && !TAGGED_READS.has(operation.operationId ?? '')) continue
      const ok = operation.responses['200']
      operation.responses['200'] = { ...ok, headers: { ...ok.headers, ETag: ETAG_HEADER } }
    }
  }
  return document
}
