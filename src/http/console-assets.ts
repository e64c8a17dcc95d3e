import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from './app-types.js'
import { httpError } from './problem.js'
import { appendVary } from './vary.js'

export const CONSOLE_PREFIX = '/console'

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
}

// The console talks only to its own origin; nothing inline, nothing framed.
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

interface Asset {
  type: string
  body: Buffer
  gzip?: Buffer
  brotli?: Buffer
  /** Vite names everything under assets/ by content hash, so those never change. */
  immutable: boolean
}

// Compressed copies the build writes beside a file (console/precompress.ts).
const COMPRESSED_COPIES: Record<string, 'brotli' | 'gzip'> = { '.br': 'brotli', '.gz': 'gzip' }

/**
 * Reads the built console (dist/console, from `vite build`) once at start, with the brotli and
 * gzip copies the build wrote: a few hundred kilobytes kept in memory, so every request is a map
 * lookup and no request or start pays for compression.
 */
export function loadConsoleAssets(directory: string): Map<string, Asset> | undefined {
  if (!existsSync(join(directory, 'index.html'))) return undefined
  const assets = new Map<string, Asset>()
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name)
      if (statSync(path).isDirectory()) {
        walk(path)
        continue
      }
      const extension = extname(name)
      if (extension in COMPRESSED_COPIES) continue
      const body = readFileSync(path)
      const urlPath = relative(directory, path).split(sep).join('/')
      const asset: Asset = { type: CONTENT_TYPES[extension] ?? 'application/octet-stream', body, immutable: urlPath.startsWith('assets/') }
      for (const [suffix, encoding] of Object.entries(COMPRESSED_COPIES)) {
        if (existsSync(`${path}${suffix}`)) asset[encoding] = readFileSync(`${path}${suffix}`)
      }
      assets.set(urlPath, asset)
    }
  }
  walk(directory)
  return assets
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  const accepted = String(request.headers['accept-encoding'] ?? '')
  reply.header('Content-Type', asset.type)
  // Added to, not replaced: the CORS hook's Vary: Origin must stay on the answer.
  appendVary(reply, 'Accept-Encoding')
  reply.header('X-Content-Type-Options', 'nosniff')
  reply.header('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
  if (asset.type.startsWith('text/html')) {
    reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    reply.header('Referrer-Policy', 'same-origin')
    reply.header('X-Frame-Options', 'DENY')
  }
  if (asset.brotli && /\bbr\b/.test(accepted)) return reply.header('Content-Encoding', 'br').send(asset.brotli)
  if (asset.gzip && /\bgzip\b/.test(accepted)) return reply.header('Content-Encoding', 'gzip').send(asset.gzip)
  return reply.send(asset.body)
}

/**
 * Serves the console at /console. Files are answered as built; any other path under /console is
 * a page of the single-page app, so it gets index.html and the app's router shows the page (or
 * its own "not found"). When the console has not been built, /console says how to build it.
 */
export function consoleRoutes(app: App, directory: string): void {
  const assets = loadConsoleAssets(directory)
  const options = { config: { auth: 'none' as const }, schema: { hide: true } }

  app.get('/', options, (_request, reply) => reply.redirect(`${CONSOLE_PREFIX}/`))
  app.get(CONSOLE_PREFIX, options, (_request, reply) => reply.redirect(`${CONSOLE_PREFIX}/`))
  app.get(`${CONSOLE_PREFIX}/*`, options, (request, reply) => {
    if (!assets) {
      throw httpError('console_not_built', 'The console has not been built on this server: run `npm run build` (npm start does it), then restart.')
    }
    const path = (request.params as { '*': string })['*']
    const file = assets.get(path)
    if (file) return send(request, reply, file)
    // A missing hashed file is a real 404 (an old tab asking for a replaced bundle), not a page.
    if (path.startsWith('assets/')) return reply.code(404).type('text/plain').send('Not found')
    return send(request, reply, assets.get('index.html')!)
  })
}
