import type { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'

/*
 * Content negotiation of the list routes that also export CSV (the error queue, the work-order
 * queue): the same URL and filters, JSON by default, every matching row as CSV with
 * `Accept: text/csv`.
 */

/** Whether the client prefers CSV to JSON (Accept: text/csv, by its q-values; JSON on a tie, for a wildcard, or without). */
export function wantsCsv(request: FastifyRequest): boolean {
  const accept = request.headers.accept
  if (!accept || !accept.toLowerCase().includes('text/csv')) return false
  const quality = (type: string) => {
    let best = -1
    for (const range of accept.split(',')) {
      const [media, ...params] = range.trim().toLowerCase().split(';')
      if (media !== type && media !== `${type.split('/')[0]}/*` && media !== '*/*') continue
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
      const value = q ? Number(q.slice(2)) : 1
      // q=0 says "not acceptable" (RFC 9110, 12.4.2): such a range never chooses its type. Left
      // in, text/csv;q=0 won over a JSON the client had not named (quality -1) and got a file.
      if (!(value > 0)) continue
      // An exact type counts over a wildcard of the same weight.
      best = Math.max(best, value + (media === type ? 0.0001 : 0))
    }
    return best
  }
  return quality('text/csv') > quality('application/json')
}

/** Sends an export as a download named `<stem>-<UTC day>.csv`; no-store, since rows name people. */
export function sendCsv(reply: FastifyReply, csv: Readable, stem: string): FastifyReply {
  const day = new Date().toISOString().slice(0, 10)
  reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${stem}-${day}.csv"`)
    .header('Cache-Control', 'no-store')
  // HEAD gets the headers only. Given the stream, Fastify's HEAD twin of the route reads it to the
  // end and drops it: the whole export (100,000 errors, seconds of the database) ran for nothing.
  // Closed now, the export stops before its first page.
  if (reply.request.method === 'HEAD') {
    csv.destroy()
    return reply.send()
  }
  return reply.send(csv)
}

/**
 * Said of every export, since it changes values a program reading the file sees (lib/csv.ts): a
 * cell that a spreadsheet would run as a formula gets a leading apostrophe (OWASP CSV injection),
 * so a carrier value of -5 reads '-5. The README said so; the OpenAPI document, which client
 * developers read, did not.
 */
const FORMULA_NOTE = "A value starting with =, +, -, @, a tab or a carriage return is prefixed with ' so spreadsheets show it as text, not run it as a formula."

/**
 * The 200 answer of a list route that also exports CSV, both media types documented. The JSON
 * schema still serialises the JSON answer (Fastify picks it by content type); the CSV is a stream.
 */
export function listOrCsvResponse(json: TSchema, description: string, csvDescription: string): TSchema {
  return {
    description,
    content: {
      'application/json': { schema: json },
      'text/csv': { schema: { type: 'string', description: `${csvDescription} ${FORMULA_NOTE}` } },
    },
  } as unknown as TSchema
}
