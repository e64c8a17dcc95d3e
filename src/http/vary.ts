import type { FastifyReply } from 'fastify'

/**
 * Adds header names to the answer's Vary, keeping the ones already there: `reply.header('Vary', …)`
 * replaces the field, and a Vary that loses `Origin` (set by the CORS hook) lets a shared cache
 * hand one origin's Access-Control-Allow-Origin to another. Names compare case-insensitively; a
 * `*` already there covers everything.
 */
export function appendVary(reply: FastifyReply, ...names: string[]): void {
  const current = reply.getHeader('Vary')
  const listed = (Array.isArray(current) ? current : current === undefined ? [] : [String(current)])
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '')
  if (listed.includes('*')) return
  const seen = new Set(listed.map((name) => name.toLowerCase()))
  for (const name of names) {
    if (seen.has(name.toLowerCase())) continue
    seen.add(name.toLowerCase())
    listed.push(name)
  }
  if (listed.length > 0) reply.header('Vary', listed.join(', '))
}
