#!/usr/bin/env node
// Builds the service (tsc into dist/) and the console (Vite into dist/console).
//
//   node scripts/build.mjs              everything, from scratch: `npm run build`, and `npm install`
//   node scripts/build.mjs --if-stale   only the parts whose sources changed since their last build,
//                                       compiling only what changed: `npm start`, `worker`, `migrate`,
//                                       `cli`, `demo`, the benchmarks and the test suite run this first
//
// Everything it prints goes to standard error, so `npm run cli` keeps standard output for JSON.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { BUILD_PARTS, whyBuild } from './build-parts.mjs'

const root = join(import.meta.dirname, '..')
const SERVER_BUILD_INFO = 'dist/.build/server.tsbuildinfo'

const STEPS = {
  server: (incremental) => {
    // tsc's record of what it compiled; without it (a full build) every file is emitted again.
    if (!incremental) rmSync(join(root, SERVER_BUILD_INFO), { force: true })
    run('tsc', 'node_modules/typescript/bin/tsc', ['-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', SERVER_BUILD_INFO])
    chmodSync(join(root, 'dist/main/cli.js'), 0o755)
  },
  console: () => {
    // A build is always production's: under NODE_ENV=test (Vitest) or development, Vite would
    // bundle React's development build, which is not what the service serves.
    run('vite build', 'node_modules/vite/bin/vite.js', ['build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'], { NODE_ENV: 'production' })
  },
}

class BuildFailed extends Error {}

function run(label, script, args, env = {}) {
  if (!existsSync(join(root, script))) throw new BuildFailed(`${script} is missing: install the dependencies first (npm install).`)
  // The tools' output goes to standard error too (file descriptor 2 for both).
  const result = spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 2, 2], env: { ...process.env, ...env } })
  if (result.status !== 0) throw new BuildFailed(`The build stopped: ${label} failed (see above). Fix the source, or check it with npm run typecheck.`)
}

function build(part, incremental) {
  const started = new Date()
  STEPS[part.name](incremental)
  const stamp = join(root, part.stamp)
  mkdirSync(dirname(stamp), { recursive: true })
  writeFileSync(stamp, `The ${part.name} was built from its sources as they were at this file's modification time (scripts/build.mjs).\n`)
  utimesSync(stamp, started, started)
  const seconds = ((Date.now() - started.getTime()) / 1000).toFixed(1)
  console.error(`Built the ${part.name} in ${seconds} s.`)
}

function main(args) {
  const unknown = args.filter((arg) => arg !== '--if-stale')
  if (unknown.length > 0) throw new BuildFailed(`Unknown argument ${unknown[0]}. Usage: node scripts/build.mjs [--if-stale]`)
  const ifStale = args.includes('--if-stale')
  for (const part of BUILD_PARTS) {
    if (!ifStale) {
      build(part, false)
      continue
    }
    const why = whyBuild(root, part)
    if (!why) continue
    console.error(`Building the ${part.name}: ${why.reason}.`)
    build(part, why.incremental)
  }
}

try {
  main(process.argv.slice(2))
} catch (error) {
  if (!(error instanceof BuildFailed)) throw error
  console.error(error.message)
  process.exit(1)
}
