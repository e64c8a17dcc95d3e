import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BUILD_PARTS, whyBuild, type BuildPart } from '../scripts/build-parts.mjs'

// How `npm start` (and worker, migrate, cli, demo, the tests) decide whether to build first
// (scripts/build.mjs --if-stale), on a small tree in a temporary directory whose modification
// times are set explicitly: nothing here waits or depends on the clock.

const BEFORE_BUILD = new Date('2026-01-01T00:00:00Z')
const BUILT_AT = new Date('2026-01-02T00:00:00Z')
const AFTER_BUILD = new Date('2026-01-03T00:00:00Z')

const part = (name: string): BuildPart => BUILD_PARTS.find((p) => p.name === name)!
const server = part('server')
const consolePart = part('console')

let root: string
const at = (relative: string) => join(root, relative)
function write(relative: string, time: Date): void {
  mkdirSync(dirname(at(relative)), { recursive: true })
  writeFileSync(at(relative), 'x')
  utimesSync(at(relative), time, time)
}
/** Files and their folders dated before the build; outputs and stamps at the build. */
function builtTree(): void {
  for (const source of ['src/app.ts', 'src/main/serve.ts', 'console/src/main.tsx', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json']) write(source, BEFORE_BUILD)
  for (const directory of ['src/main', 'src', 'console/src', 'console']) utimesSync(at(directory), BEFORE_BUILD, BEFORE_BUILD)
  for (const built of [server, consolePart]) {
    for (const output of built.outputs) write(output, BUILT_AT)
    write(built.stamp, BUILT_AT)
  }
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'enrollsync-build-'))
  builtTree()
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('building only what changed', () => {
  it('when every source is older than the last build, then nothing is built', () => {
    expect(whyBuild(root, server)).toBeUndefined()
    expect(whyBuild(root, consolePart)).toBeUndefined()
  })

  it('when a source file is saved after the build, then that part is built again, incrementally, and names the file', () => {
    utimesSync(at('src/main/serve.ts'), AFTER_BUILD, AFTER_BUILD)
    expect(whyBuild(root, server)).toEqual({ reason: `${join('src', 'main', 'serve.ts')} changed since the last build`, incremental: true })
    // The console is built from other sources: it stays as it is.
    expect(whyBuild(root, consolePart)).toBeUndefined()
  })

  it('when a console source or the dependencies change, then the console is built again', () => {
    utimesSync(at('console/src/main.tsx'), AFTER_BUILD, AFTER_BUILD)
    expect(whyBuild(root, consolePart)?.reason).toContain('main.tsx')
    builtTree()
    utimesSync(at('package-lock.json'), AFTER_BUILD, AFTER_BUILD)
    expect(whyBuild(root, consolePart)?.reason).toBe('package-lock.json changed since the last build')
    expect(whyBuild(root, server)?.reason).toBe('package-lock.json changed since the last build')
  })

  it('when a source file is deleted or added, then its folder has changed and the part is built again', () => {
    rmSync(at('src/app.ts'))
    expect(whyBuild(root, server)?.reason).toBe('src changed since the last build')
    builtTree()
    writeFileSync(at('src/main/new-entry.ts'), 'x')
    expect(whyBuild(root, server)?.incremental).toBe(true)
  })

  it('when no build is recorded, or an output is missing, then the part is built from scratch', () => {
    rmSync(at(server.stamp))
    expect(whyBuild(root, server)).toEqual({ reason: `no build of the server is recorded in ${server.stamp}`, incremental: false })
    builtTree()
    rmSync(at('dist/console/index.html'))
    expect(whyBuild(root, consolePart)).toEqual({ reason: 'dist/console/index.html is missing', incremental: false })
  })

  it('when only a dot file (an editor swap file) is newer, then nothing is built', () => {
    write('src/.app.ts.swp', AFTER_BUILD)
    utimesSync(at('src'), BEFORE_BUILD, BEFORE_BUILD)
    expect(whyBuild(root, server)).toBeUndefined()
  })
})
