// `npm run bench:startup`: issue 12's start-up targets, measured as a person meets them, through
// npm, on a built tree, with the embedded database:
//   1. `npm start` on an empty temporary DATA_DIR: the first start creates the database and the
//      two first accounts. Reported; no target.
//   2. `npm start` again on that data directory, RUNS times, each timed from spawning npm to the
//      service's line "Enrollsync is listening on", then stopped (SIGTERM, waiting for it to exit:
//      the embedded database allows one process at a time). Target: under 3 s.
//   3. `npm run cli -- --help`, RUNS times, each timed from spawning npm to its exit. Target:
//      under 1.5 s.
// Every time includes npm itself and the build check that `npm start` and `npm run cli` run first
// (scripts/build.mjs --if-stale). A run during which a source changed, so that it had to build,
// is reported as such and left out of the verdict. Appends a dated section to bench/RESULTS.md.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const BENCH_DIR = dirname(fileURLToPath(import.meta.url))
const ROOT = dirname(BENCH_DIR)
const RESULTS_FILE = join(BENCH_DIR, 'RESULTS.md')
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 7)
const START_TARGET_MS = 3_000
const HELP_TARGET_MS = 1_500
const LISTENING = /Enrollsync is listening on (\S+)/

const dataRoot = mkdtempSync(join(os.tmpdir(), 'enrollsync-bench-startup-'))

/** The environment of a person's shell: npm's own variables (this runs under npm) left out. */
function userEnvironment() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')))
  delete env.DATABASE_URL // the embedded database, as on a fresh machine
  // PORT=0: any free port, so a service already running on 3000 does not get in the way.
  return { ...env, DATA_DIR: join(dataRoot, 'data'), HOST: '127.0.0.1', PORT: '0' }
}

let running
/** npm runs the script in a shell: the whole process group is signalled, so none is left behind. */
function spawnNpm(args) {
  const child = spawn('npm', args, { cwd: ROOT, env: userEnvironment(), stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  running = child
  child.once('exit', () => (running = undefined))
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  return { child, output: () => output }
}
function stopGroup(child, signal = 'SIGTERM') {
  try {
    process.kill(-child.pid, signal)
  } catch {
    // already gone
  }
}
process.on('exit', () => running && stopGroup(running, 'SIGKILL'))

/** One `npm start`: milliseconds until it is listening, and whether it had to build first. */
async function timeStart() {
  const started = performance.now()
  const { child, output } = spawnNpm(['start'])
  const exited = once(child, 'exit')
  const deadline = started + 120_000
  let listeningAfter
  while (listeningAfter === undefined) {
    if (LISTENING.test(output())) listeningAfter = performance.now() - started
    else if (child.exitCode !== null) throw new Error(`npm start exited (code ${child.exitCode}) before listening:\n${output().slice(-4000)}`)
    else if (performance.now() > deadline) throw new Error(`npm start was not listening after 120 s:\n${output().slice(-4000)}`)
    else await new Promise((resolve) => setTimeout(resolve, 5))
  }
  stopGroup(child)
  await exited
  await groupGone(child)
  return { ms: Math.round(listeningAfter), built: /Building the /.test(output()) }
}

/**
 * npm may exit before the service it started has closed the database: the next start would then
 * find the data directory still held. Waits until no process of the group is left.
 */
async function groupGone(child) {
  const deadline = performance.now() + 30_000
  for (;;) {
    try {
      process.kill(-child.pid, 0)
    } catch {
      return // ESRCH: the group is empty
    }
    if (performance.now() > deadline) throw new Error('npm start did not stop within 30 s of SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function timeHelp() {
  const started = performance.now()
  const { child, output } = spawnNpm(['run', 'cli', '--', '--help'])
  const [code] = await once(child, 'exit')
  const ms = Math.round(performance.now() - started)
  if (code !== 0 || !output().includes('Usage: enrollsync')) throw new Error(`npm run cli -- --help failed (code ${code}):\n${output()}`)
  return { ms, built: /Building the /.test(output()) }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : Math.round((sorted[middle - 1] + sorted[middle]) / 2)
}

function summarise(runs, target) {
  const counted = runs.filter((run) => !run.built).map((run) => run.ms)
  const worst = counted.length ? Math.max(...counted) : undefined
  return { runs, counted, median: counted.length ? median(counted) : undefined, worst, pass: worst !== undefined && worst < target }
}

function machine(loadBefore) {
  const cpus = os.cpus()
  const npmVersion = execFileSync('npm', ['--version'], { cwd: ROOT, encoding: 'utf8' }).trim()
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
  const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).trim() !== ''
  return `${cpus.length} CPUs (${cpus[0]?.model.trim()}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GB RAM, Node ${process.version}, npm ${npmVersion}; load average before the run ${loadBefore}; commit ${commit}${dirty ? ' (with uncommitted changes)' : ''}`
}

async function main() {
  const started = new Date()
  const loadBefore = os.loadavg().map((x) => x.toFixed(2)).join(' ')
  // The tree must be built before the clock starts: this is what a second start meets.
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' })

  console.log('first npm start (creates the database) ...')
  const first = await timeStart()
  console.log(`  ${first.ms} ms`)
  const starts = []
  for (let i = 0; i < RUNS; i++) {
    starts.push(await timeStart())
    console.log(`second npm start, run ${i + 1}: ${starts.at(-1).ms} ms${starts.at(-1).built ? ' (had to build: not counted)' : ''}`)
  }
  const helps = []
  for (let i = 0; i < RUNS; i++) {
    helps.push(await timeHelp())
    console.log(`npm run cli -- --help, run ${i + 1}: ${helps.at(-1).ms} ms${helps.at(-1).built ? ' (had to build: not counted)' : ''}`)
  }
  const start = summarise(starts, START_TARGET_MS)
  const help = summarise(helps, HELP_TARGET_MS)
  const shown = (runs) => runs.map((run) => `${run.ms}${run.built ? ' (built)' : ''}`).join(', ')
  const verdict = (pass) => (pass ? 'PASS' : 'FAIL')
  const section = [
    '',
    `## ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC: start-up (issue 12)`,
    '',
    `Machine: ${machine(loadBefore)}. Embedded database (PGlite) in a temporary DATA_DIR, PORT=0, everything else at its default; each time is taken through npm, as typed, on a built tree (the build check included).`,
    '',
    `First \`npm start\` (creates the database and the first accounts): ${first.ms} ms.`,
    '',
    `Second \`npm start\`, to "Enrollsync is listening" (ms): ${shown(starts)}.`,
    '',
    `\`npm run cli -- --help\`, to exit (ms): ${shown(helps)}.`,
    '',
    '| Target | Measured | Verdict |',
    '|---|---:|---:|',
    `| A second \`npm start\` on the embedded database listening < 3 s | median ${start.median} ms, worst ${start.worst} ms (${start.counted.length} runs) | ${verdict(start.pass)} |`,
    `| \`npm run cli -- --help\` answers < 1.5 s | median ${help.median} ms, worst ${help.worst} ms (${help.counted.length} runs) | ${verdict(help.pass)} |`,
    '',
  ].join('\n')
  console.log(section)
  appendFileSync(RESULTS_FILE, section)
}

try {
  await main()
} finally {
  rmSync(dataRoot, { recursive: true, force: true })
}
