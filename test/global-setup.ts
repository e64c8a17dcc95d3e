import { execFileSync } from 'node:child_process'

/**
 * The end-to-end tests start `dist/main/serve.js` exactly as `npm start` does, so the build must
 * match the source under test: compile once before any test file runs.
 */
export default function setup(): void {
  // Pure unit tests need no build: SKIP_BUILD=1 lets them run while other source is mid-edit.
  if (process.env.SKIP_BUILD === '1') return
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
}
