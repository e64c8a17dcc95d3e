import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { findChromium, flagIsOn } from '../scripts/find-chromium.mjs'

// How `npm test` finds the browser for test/console-browser.test.ts, on fake PATH directories
// holding fake executables: nothing here needs a real browser.

const root = mkdtempSync(join(tmpdir(), 'enrollsync-browser-discovery-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

let directories = 0
/** A new directory holding the named files; executable unless `mode` says otherwise. */
function binDirectory(names: string[], mode = 0o755): string {
  const directory = join(root, `bin-${directories++}`)
  mkdirSync(directory)
  for (const name of names) {
    writeFileSync(join(directory, name), '#!/bin/sh\n')
    chmodSync(join(directory, name), mode)
  }
  return directory
}
const path = (...dirs: string[]) => dirs.join(delimiter)

describe('finding a browser for the browser tests', () => {
  it('when CHROMIUM_PATH names an executable, then it is used even when PATH has another browser', () => {
    const own = join(binDirectory(['my-chrome']), 'my-chrome')
    const onPath = binDirectory(['chromium'])
    expect(findChromium({ CHROMIUM_PATH: own, PATH: onPath })).toEqual({ kind: 'found', path: own, from: 'CHROMIUM_PATH' })
  })

  it('when CHROMIUM_PATH names no executable file, then the run fails with a message naming it, even outside CI', () => {
    const notExecutable = join(binDirectory(['chromium'], 0o644), 'chromium')
    for (const CHROMIUM_PATH of [join(root, 'nowhere', 'chromium'), notExecutable, root]) {
      const found = findChromium({ CHROMIUM_PATH, PATH: binDirectory(['chromium']) })
      expect(found).toMatchObject({ kind: 'missing', required: true })
      expect(found.kind === 'missing' && found.message).toContain(`CHROMIUM_PATH is ${CHROMIUM_PATH}`)
    }
  })

  it('when CHROMIUM_PATH is not set, then the usual names are searched on PATH, chromium first, in PATH order', () => {
    const chrome = binDirectory(['google-chrome'])
    const both = binDirectory(['chromium-browser', 'chromium'])
    const empty = binDirectory([])
    expect(findChromium({ PATH: path(empty, chrome, both) })).toEqual({ kind: 'found', path: join(both, 'chromium'), from: 'PATH' })
    expect(findChromium({ PATH: path(chrome, empty) })).toEqual({ kind: 'found', path: join(chrome, 'google-chrome'), from: 'PATH' })
    const stable = binDirectory(['google-chrome-stable'])
    expect(findChromium({ CHROMIUM_PATH: '', PATH: path(stable) })).toEqual({ kind: 'found', path: join(stable, 'google-chrome-stable'), from: 'PATH' })
  })

  it('when a file on PATH has the name but may not be executed, then it is passed over', () => {
    const notExecutable = binDirectory(['chromium'], 0o644)
    const executable = binDirectory(['chromium'])
    expect(findChromium({ PATH: path(notExecutable, executable) })).toEqual({ kind: 'found', path: join(executable, 'chromium'), from: 'PATH' })
  })

  it('when no browser is found outside CI, then the browser tests are skipped with one line saying how to enable them', () => {
    const found = findChromium({ PATH: path(binDirectory(['node'])) })
    expect(found).toMatchObject({ kind: 'missing', required: false })
    const message = found.kind === 'missing' ? found.message : ''
    expect(message).not.toContain('\n')
    expect(message).toMatch(/^Browser tests skipped: .*install Chromium \(apt-get install chromium\) or set CHROMIUM_PATH/)
    expect(findChromium({}).kind).toBe('missing')
  })

  it('when no browser is found and CI or REQUIRE_BROWSER is set, then the run fails, naming the switch', () => {
    const PATH = path(binDirectory([]))
    for (const [name, env] of [
      ['CI', { CI: 'true' }],
      ['CI', { CI: '1' }],
      ['CI', { CI: 'woodpecker' }],
      ['REQUIRE_BROWSER', { REQUIRE_BROWSER: '1' }],
    ] as const) {
      const found = findChromium({ PATH, ...env })
      expect(found).toMatchObject({ kind: 'missing', required: true })
      expect(found.kind === 'missing' && found.message).toContain(`${name} is set`)
    }
  })

  it('when CI or REQUIRE_BROWSER is empty, 0 or false, then a missing browser is a skip, not a failure', () => {
    const PATH = path(binDirectory([]))
    for (const value of ['', '0', 'false', 'FALSE']) {
      expect(flagIsOn(value)).toBe(false)
      expect(findChromium({ PATH, CI: value, REQUIRE_BROWSER: value })).toMatchObject({ kind: 'missing', required: false })
    }
    expect(flagIsOn(undefined)).toBe(false)
  })
})
