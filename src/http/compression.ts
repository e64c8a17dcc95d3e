import fastifyCompress from '@fastify/compress'
import type { App } from './app-types.js'

/**
 * Answers of 1 KB and more travel compressed when the client accepts it (brotli preferred, then
 * gzip): lists, the OpenAPI document and the /docs scripts shrink five- to tenfold. Smaller
 * answers (most single resources, probes, errors) are sent as they are: compressing them costs
 * more CPU than the bytes it saves. Brotli runs at quality 4 (the plugin's default), about gzip's
 * speed. Answers that are already encoded (the console's precompressed files) pass untouched.
 *
 * Register after every plugin that adds onSend hooks per route (idempotency stores the answer
 * as text): hooks added by onRoute run in registration order, so compression comes last.
 */
export async function registerCompression(app: App): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    // Request bodies stay plain JSON: a compressed body is refused (415/400) rather than inflated,
    // which keeps BODY_LIMIT_BYTES a limit on what the client sent.
    globalDecompression: false,
  })
}
