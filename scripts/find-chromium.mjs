// Finds the Chromium that the console's browser tests (and bench/console.mjs) drive through
// playwright-core. Nothing is downloaded: the browser is the machine's own (Debian's `chromium`
// package; .ci/run installs it). Plain Node, no dependencies, so the benchmarks can use it too.
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'

/** Executable names searched on PATH, in this order, when CHROMIUM_PATH is not set. */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']

export const HOW_TO_ENABLE = 'install Chromium (apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome executable'

/**
 * CI and REQUIRE_BROWSER are flags: set to anything but '', '0' or 'false', they are on. CI
 * systems set CI=true (or 1); CI=false is how a shell turns an inherited flag off.
 */
export function flagIsOn(value) {
  return value !== undefined && value !== '' && !['0', 'false'].includes(value.trim().toLowerCase())
}

/** A regular file (symbolic links followed) that this user may execute. */
export function isExecutableFile(path) {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/**
 * Where the browser is, or why the browser tests cannot run and whether that fails the run.
 *
 * - CHROMIUM_PATH, when set, is the browser: if it is not an executable file, that is an error
 *   whatever the flags say, since someone asked for that browser and would not expect a skip.
 * - Otherwise the first of CHROMIUM_NAMES found on PATH.
 * - None found: the browser tests are skipped, unless CI or REQUIRE_BROWSER is on, where a
 *   missing browser fails the run, so CI can never skip them silently.
 *
 * @param {{ CHROMIUM_PATH?: string, PATH?: string, CI?: string, REQUIRE_BROWSER?: string }} env
 * @param {(path: string) => boolean} [isExecutable]
 */
export function findChromium(env, isExecutable = isExecutableFile) {
  if (env.CHROMIUM_PATH) {
    if (isExecutable(env.CHROMIUM_PATH)) return { kind: 'found', path: env.CHROMIUM_PATH, from: 'CHROMIUM_PATH' }
    return { kind: 'missing', required: true, message: `CHROMIUM_PATH is ${env.CHROMIUM_PATH}, which is not an executable file: point it at a Chromium or Chrome executable, or unset it to search PATH.` }
  }
  const directories = (env.PATH ?? '').split(delimiter).filter((directory) => directory !== '')
  for (const name of CHROMIUM_NAMES) {
    for (const directory of directories) {
      const path = join(directory, name)
      if (isExecutable(path)) return { kind: 'found', path, from: 'PATH' }
    }
  }
  const searched = `no ${CHROMIUM_NAMES.join(', ')} on PATH and CHROMIUM_PATH is not set`
  const required = flagIsOn(env.CI) ? 'CI' : flagIsOn(env.REQUIRE_BROWSER) ? 'REQUIRE_BROWSER' : undefined
  if (required) {
    return { kind: 'missing', required: true, message: `No browser for the console's browser tests (${searched}), and ${required} is set, so they must run: ${HOW_TO_ENABLE}.` }
  }
  return { kind: 'missing', required: false, message: `Browser tests skipped: ${searched}. To run them, ${HOW_TO_ENABLE}.` }
}
