import type { FastifyReply } from 'fastify'

/**
 * Sends JSON text PostgreSQL already built, as is: a string with a JSON content type skips the
 * response serializer, whose schema then only documents the shape (tests check the answers
 * against it). Such answers concern members, so they carry `Cache-Control: no-store`.
 */
export function sendJsonText(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').header('Cache-Control', 'no-store').send(text)
}
