import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { FastifyRequest } from 'fastify'
import { PRIVATE_FILE_MODE } from '../lib/private-files.js'
import type { App } from './app-types.js'
import { httpError } from './problem.js'

/**
 * A JSON body written to a private temporary file as it arrives instead of being held in memory:
 * a census of 200,000 families is hundreds of megabytes, which the usual parser would keep as one
 * string and again as objects. The route reads it back in pieces (src/lib/json-stream.ts).
 */
export interface SpooledBody {
  readonly spooled: true
  readonly path: string
  readonly bytes: number
}

export function isSpooledBody(body: unknown): body is SpooledBody {
  return typeof body === 'object' && body !== null && (body as Partial<SpooledBody>).spooled === true
}

/** Removes the body's file (and its private directory); safe to call twice. */
export async function discardSpooledBody(body: SpooledBody): Promise<void> {
  await rm(dirname(body.path), { recursive: true, force: true })
}

function tooLarge(limit: number) {
  return httpError('payload_too_large', `The request body is larger than this route accepts (${limit} bytes).`)
}

/**
 * In `scope`, JSON bodies are spooled to a file no larger than `limit` bytes. The file lives in a
 * directory of its own (mkdtemp: 0700) as 0600, since a census holds SSNs, and is removed when the
 * answer has been sent. The body's SHA-256 is kept for Idempotency-Key fingerprints.
 */
export function spoolJsonBodies(scope: App, limit: number): void {
  scope.removeContentTypeParser('application/json')
  scope.addContentTypeParser('application/json', async (request: FastifyRequest, payload: NodeJS.ReadableStream) => {
    const declared = Number(request.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit)
    const directory = await mkdtemp(join(tmpdir(), 'enrollsync-body-'))
    const body: SpooledBody = { spooled: true, path: join(directory, 'body.json'), bytes: 0 }
    const digest = createHash('sha256')
    let bytes = 0
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length
        if (bytes > limit) return callback(tooLarge(limit))
        digest.update(chunk)
        callback(null, chunk)
      },
    })
    try {
      await pipeline(payload, measure, createWriteStream(body.path, { mode: PRIVATE_FILE_MODE, flags: 'wx' }))
    } catch (error) {
      await discardSpooledBody(body)
      throw error
    }
    request.rawBodySha256 = digest.digest('hex')
    return { ...body, bytes }
  })
  scope.addHook('onResponse', async (request) => {
    if (isSpooledBody(request.body)) await discardSpooledBody(request.body)
  })
}
