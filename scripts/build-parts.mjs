// What `npm run build` makes, from what, and how to tell that a part needs building again.
// Plain Node, no dependencies: it runs before every `npm start`, so it must cost milliseconds.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The two parts of the build. A part's stamp is a file written when its build succeeds, with the
 * modification time of the moment that build started: a source saved during a build is newer
 * than the stamp, so the next start builds again.
 */
export const BUILD_PARTS = [
  {
    name: 'server',
    stamp: 'dist/.build/server',
    // package-lock.json: a dependency that changed may change what compiles.
    inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'],
    outputs: ['dist/main/serve.js', 'dist/main/worker.js', 'dist/main/migrate.js', 'dist/main/cli.js', 'dist/main/demo.js'],
  },
  {
    name: 'console',
    stamp: 'dist/.build/console',
    inputs: ['console', 'package.json', 'package-lock.json'],
    outputs: ['dist/console/index.html'],
  },
]

/**
 * The most recently changed of the inputs, files and directories alike, searched recursively.
 * Directories count because adding, removing or renaming a file changes its directory's time
 * and nothing else. Names starting with a dot (editor swap files, caches) are not sources.
 *
 * @param {string} root
 * @param {readonly string[]} inputs paths relative to root; missing ones are ignored
 * @returns {{ path: string, mtimeMs: number } | undefined}
 */
export function newestInput(root, inputs) {
  let newest
  const visit = (relative) => {
    let stats
    try {
      stats = statSync(join(root, relative))
    } catch {
      return // removed while we looked, or an optional input (package-lock.json) that is absent
    }
    if (!newest || stats.mtimeMs > newest.mtimeMs) newest = { path: relative, mtimeMs: stats.mtimeMs }
    if (!stats.isDirectory()) return
    for (const name of readdirSync(join(root, relative))) {
      if (!name.startsWith('.') && name !== 'node_modules') visit(join(relative, name))
    }
  }
  for (const input of inputs) visit(input)
  return newest
}

/**
 * Why the part must be built, or undefined when its last build is newer than all its sources.
 * `incremental` says whether the last build's outputs can be reused (the stamp and every
 * output are there), so only the changed files need compiling again.
 *
 * @param {string} root
 * @param {(typeof BUILD_PARTS)[number]} part
 * @returns {{ reason: string, incremental: boolean } | undefined}
 */
export function whyBuild(root, part) {
  if (!existsSync(join(root, part.stamp))) return { reason: `no build of the ${part.name} is recorded in ${part.stamp}`, incremental: false }
  const missing = part.outputs.find((output) => !existsSync(join(root, output)))
  if (missing) return { reason: `${missing} is missing`, incremental: false }
  const built = statSync(join(root, part.stamp)).mtimeMs
  const newest = newestInput(root, part.inputs)
  if (newest && newest.mtimeMs > built) return { reason: `${newest.path} changed since the last build`, incremental: true }
  return undefined
}
