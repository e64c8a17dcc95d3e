import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { FastifyRequest } from 'fastify'
import { PRIVATE_FILE_MODE } from '../lib/private-files.js'
import type { App } from './app-types.js'
import { httpError } from './problem.js'

/**
 * A body written to a private temporary file as it arrives instead of being held in memory:
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
 * Copies the body into a new private file, refusing it past `limit` bytes. The request stream is
 * only ever read, never destroyed: a stream pipeline would destroy it on the 413, and a request
 * whose stream was destroyed before its end reads as a client that left (app.ts's error handler
 * answers 400 malformed_request, on a connection being torn down). Left undestroyed, the rest of
 * the body is discarded by Node once the 413 is sent, as Fastify does for its own body limit.
 */
function writeLimited(payload: NodeJS.ReadableStream, path: string, limit: number, onChunk: (chunk: Buffer) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const file = createWriteStream(path, { mode: PRIVATE_FILE_MODE, flags: 'wx' })
    let bytes = 0
    let settled = false
    const stopReading = () => {
      payload.removeListener('data', onData)
      payload.removeListener('end', onEnd)
      payload.removeListener('error', fail)
      payload.removeListener('close', onClose)
    }
    function fail(error: Error) {
      if (settled) return
      settled = true
      stopReading()
      file.destroy()
      // Wait for the file to be closed, so the caller can remove it.
      if (file.closed) reject(error)
      else file.once('close', () => reject(error))
    }
    function onData(chunk: Buffer) {
      bytes += chunk.length
      if (bytes > limit) return fail(tooLarge(limit))
      onChunk(chunk)
      if (!file.write(chunk)) {
        payload.pause()
        file.once('drain', () => payload.resume())
      }
    }
    function onEnd() {
      stopReading()
      file.end(() => {
        if (settled) return
        settled = true
        resolve(bytes)
      })
    }
    // The client left before the end: nothing to answer, but the file goes.
    function onClose() {
      fail(Object.assign(new Error('the request closed before its end'), { code: 'ECONNRESET' }))
    }
    file.on('error', fail)
    payload.on('data', onData)
    payload.on('end', onEnd)
    payload.on('error', fail)
    payload.on('close', onClose)
  })
}

/**
 * In `scope`, bodies of these media types are spooled to a file no larger than `limit` bytes. The
 * file lives in a directory of its own (mkdtemp: 0700) as 0600, since a census holds SSNs, and is
 * removed once the answer is made. The body's SHA-256 is kept for Idempotency-Key fingerprints.
 */
export function spoolBodies(scope: App, mediaTypes: readonly string[], limit: number): void {
  for (const mediaType of mediaTypes) if (scope.hasContentTypeParser(mediaType)) scope.removeContentTypeParser(mediaType)
  scope.addContentTypeParser([...mediaTypes], async (request: FastifyRequest, payload: NodeJS.ReadableStream) => {
    const declared = Number(request.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit)
    const directory = await mkdtemp(join(tmpdir(), 'enrollsync-body-'))
    const body: SpooledBody = { spooled: true, path: join(directory, 'body'), bytes: 0 }
    const digest = createHash('sha256')
    let bytes: number
    try {
      bytes = await writeLimited(payload, body.path, limit, (chunk) => digest.update(chunk))
    } catch (error) {
      await discardSpooledBody(body)
      throw error
    }
    request.rawBodySha256 = digest.digest('hex')
    return { ...body, bytes }
  })
  // Removed as soon as the answer is made (onSend: the handler is done with the file), whether or
  // not the client is still there to receive it. onResponse alone never runs for a client that
  // left before the answer (the response never finishes), which left the census's SSNs on disk.
  scope.addHook('onSend', async (request, _reply, payload) => {
    if (isSpooledBody(request.body)) await discardSpooledBody(request.body)
    return payload
  })
  scope.addHook('onResponse', async (request) => {
    if (isSpooledBody(request.body)) await discardSpooledBody(request.body)
  })
}
