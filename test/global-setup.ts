import { execFileSync } from 'node:child_process'

/**
 * The end-to-end tests start `dist/main/serve.js` exactly as `npm start` does, and the browser
 * tests load the console from dist/console, so the build must match the source under test:
 * compile and bundle once before any test file runs.
 */
export default function setup(): void {
  // Pure unit tests need no build: SKIP_BUILD=1 lets them run while other source is mid-edit.
  if (process.env.SKIP_BUILD === '1') return
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
  // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build: the tests
  // must load the console exactly as `npm run build` makes it.
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'], {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  })
}
