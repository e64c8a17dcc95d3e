import { readFileSync, writeFileSync } from 'node:fs'
import { extname, join } from 'node:path'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import type { Plugin } from 'vite'

/** What is worth compressing: text, and more than a packet's worth of it. */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json'])
const MIN_COMPRESSED_BYTES = 1024

/**
 * Writes `<file>.br` and `<file>.gz` beside every compressible file of the build, at the highest
 * levels: compressing once here costs the build under a second, where compressing at start cost
 * every server start (and every test app) as much. src/http/console-assets.ts serves them.
 */
export function precompress(): Plugin {
  return {
    name: 'enrollsync-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      const outDir = options.dir!
      for (const fileName of Object.keys(bundle)) {
        if (!COMPRESSIBLE.has(extname(fileName))) continue
        const path = join(outDir, fileName)
        const body = readFileSync(path)
        if (body.length <= MIN_COMPRESSED_BYTES) continue
        writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }))
        writeFileSync(`${path}.br`, brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }))
      }
    },
  }
}
