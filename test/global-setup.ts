import { execFileSync } from 'node:child_process'
import type { TestProject } from 'vitest/node'
import { findChromium, type ChromiumSearch } from '../scripts/find-chromium.mjs'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The browser test/console-browser.test.ts drives, or why there is none. */
    chromium: ChromiumSearch
  }
}

const BROWSER_TEST_FILE = 'console-browser.test.ts'

/**
 * Runs once before any test file, in the main Vitest process.
 *
 * The end-to-end tests start `dist/main/serve.js` exactly as `npm start` does, and the browser
 * tests load the console from dist/console, so the build must match the source under test:
 * anything changed since the last build is compiled and bundled before any test file runs.
 *
 * It also finds the browser (scripts/find-chromium.mjs) for test/console-browser.test.ts: without
 * one, those tests are skipped with one line after the summary, or fail when CI or
 * REQUIRE_BROWSER is set (the failure is the browser file's, so the rest of the run still reports).
 */
export default function setup(project: TestProject): (() => void) | undefined {
  const chromium = findChromium(process.env)
  project.provide('chromium', chromium)

  // Pure unit tests need no build: SKIP_BUILD=1 lets them run while other source is mid-edit.
  // Otherwise the parts whose sources changed are built, as `npm start` does (and, as there, the
  // console is built for production although Vitest sets NODE_ENV=test).
  if (process.env.SKIP_BUILD !== '1') execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' })

  // Printed at teardown, so the line stands under the summary that counts the skipped file, and
  // only when that file was part of the run.
  if (chromium.kind === 'found' || chromium.required) return undefined
  return () => {
    const ranBrowserTests = project.vitest.state.getFiles().some((file) => file.filepath.endsWith(BROWSER_TEST_FILE))
    if (ranBrowserTests) console.log(chromium.message)
  }
}

