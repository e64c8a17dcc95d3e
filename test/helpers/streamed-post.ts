import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { App } from '../../src/http/app-types.js'

/**
 * A request sent over a real loopback connection in pieces, as a client uploading a large body
 * does (app.inject hands the body over whole). Without `contentLength` it goes chunked, so the
 * server cannot refuse it by its declared length and must count what arrives.
 */
export interface StreamedAnswer {
  statusCode: number
  headers: Record<string, string | string[] | undefined>
  body: string
  json(): any // eslint-disable-line @typescript-eslint/no-explicit-any -- a test reads whatever the answer holds
}

export async function listenOnLoopback(app: App): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  return `http://127.0.0.1:${port}`
}

/** Answers null only with `abortAfterBytes` or `leaveAfterSendingMs`, for the client that left. */
export function postStreamed(
  baseUrl: string,
  path: string,
  body: string | Buffer,
  options: { headers?: Record<string, string>; chunkBytes?: number; contentLength?: boolean; abortAfterBytes?: number; leaveAfterSendingMs?: number } = {},
): Promise<StreamedAnswer | null> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  const chunkBytes = options.chunkBytes ?? 64 * 1024
  return new Promise((resolve, reject) => {
    let answered = false
    const req = request(
      `${baseUrl}${path}`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(options.contentLength ? { 'content-length': String(bytes.length) } : { 'transfer-encoding': 'chunked' }),
          ...options.headers,
        },
      },
      (res) => {
        answered = true
        const pieces: Buffer[] = []
        res.on('data', (piece: Buffer) => pieces.push(piece))
        res.on('error', reject)
        res.on('end', () => {
          const text = Buffer.concat(pieces).toString('utf8')
          resolve({ statusCode: res.statusCode!, headers: res.headers, body: text, json: () => JSON.parse(text) })
        })
      },
    )
    // A server refusing the body early may close the connection while it is still being written.
    req.on('error', (error) => {
      if (!answered) reject(error)
    })
    let offset = 0
    const writeNext = () => {
      // A client that leaves mid-upload: answers null once the connection is gone.
      if (options.abortAfterBytes !== undefined && offset >= options.abortAfterBytes) {
        setTimeout(() => {
          req.destroy()
          resolve(null)
        }, 50)
        return
      }
      while (offset < bytes.length) {
        const piece = bytes.subarray(offset, offset + chunkBytes)
        offset += piece.length
        // Yield between pieces so they leave as separate writes rather than one buffer.
        if (!req.write(piece)) return void req.once('drain', writeNext)
        if (offset < bytes.length) return void setImmediate(writeNext)
      }
      req.end()
      // A client that sends the whole body and leaves before the answer.
      if (options.leaveAfterSendingMs !== undefined) {
        setTimeout(() => {
          req.destroy()
          resolve(null)
        }, options.leaveAfterSendingMs)
      }
    }
    writeNext()
  })
}
