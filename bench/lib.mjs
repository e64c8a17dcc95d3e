// Shared by run.mjs and profile.mjs: the processes under test, the benchmark database, CPU and
// memory readings from /proc. Importing this module installs handlers that kill every child
// process on exit, on SIGINT/SIGTERM and on failure: none may outlive the benchmark.
import { spawn, execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import pg from 'pg'

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url))
export const ROOT = dirname(BENCH_DIR)
export const TMP_DIR = join(BENCH_DIR, '.tmp') // git-ignored: service logs, profiles

const env = process.env
export const PG_SERVER = env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432'
// BENCH_DB: a database of your own when others bench on the same PostgreSQL at the same time.
export const BENCH_DB = env.BENCH_DB ?? 'enrollsync_bench'
export const DATABASE_URL = `${PG_SERVER}/${BENCH_DB}`
// Another build of the service to measure instead of dist/ (a copy with an optimisation tried out).
export const SERVICE_DIST = env.BENCH_SERVICE_DIST ? resolve(env.BENCH_SERVICE_DIST) : join(ROOT, 'dist')
export const POOL_SIZE = Number(env.BENCH_POOL_SIZE ?? 10) // the service's default DATABASE_POOL_SIZE
const FILLER_USERS = 10_000 // so the primary-key lookup is not into a one-row table
const TOKEN_SIGNING_SECRET = 'bench-only-signing-secret-0123456789abcdef'
// Bench-only SSN keys (SSN_ENCRYPTION_KEYS and SSN_HASH_KEY are required with DATABASE_URL).
const SSN_ENCRYPTION_KEYS = `bench-k1:${Buffer.alloc(32, 1).toString('base64')}`
const SSN_HASH_KEY = Buffer.alloc(32, 2).toString('base64')

// ---------------------------------------------------------------------------------------------
// Child processes: every one is tracked and killed on the way out, whatever happens.

const children = new Set()

export function track(child) {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

export function isRunning(child) {
  return child.exitCode === null && child.signalCode === null
}

export async function stopChild(child) {
  if (!isRunning(child)) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  const result = await Promise.race([exited.then(() => 'exited'), delay(5_000).then(() => 'timeout')])
  if (result === 'timeout' && isRunning(child)) {
    child.kill('SIGKILL')
    await exited
  }
}

export async function stopAll() {
  await Promise.all([...children].map(stopChild))
}

process.on('exit', () => {
  for (const child of children) if (isRunning(child)) child.kill('SIGKILL')
})
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping child processes`)
    void stopAll().finally(() => process.exit(130))
  })
}

/** Starts a bare server (floor or hello) and waits for the address it prints. */
export async function startBareServer(file, extraEnv, nodeOptions = []) {
  const child = track(
    spawn(process.execPath, [...nodeOptions, join(BENCH_DIR, file)], {
      cwd: ROOT,
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  )
  let output = ''
  const onData = (chunk) => (output += chunk)
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const deadline = Date.now() + 20_000
  for (;;) {
    const match = /listening on (\S+)/.exec(output)
    if (match) return { child, url: match[1] }
    if (!isRunning(child)) throw new Error(`${file} exited before listening:\n${output}`)
    if (Date.now() > deadline) throw new Error(`${file} did not start within 20 s:\n${output}`)
    await delay(50)
  }
}

/**
 * Starts the built service. Its stdout (the request log at `info`) goes to a file rather than a
 * pipe into this process, which also runs the load generator and must not pay for reading it.
 */
export async function startService(logLevel, { nodeOptions = [], poolSize = POOL_SIZE, dist = SERVICE_DIST, label = logLevel, extraEnv = {} } = {}) {
  mkdirSync(TMP_DIR, { recursive: true })
  const logFile = join(TMP_DIR, `service-${label}.log`)
  const fd = openSync(logFile, 'w')
  const serviceEnv = { ...env }
  for (const name of ['REDIS_URL', 'DATA_DIR', 'API_KEY_CACHE_SECONDS', 'TRUST_PROXY', 'BODY_LIMIT_BYTES']) delete serviceEnv[name]
  Object.assign(serviceEnv, {
    NODE_ENV: 'production',
    DATABASE_URL,
    DATABASE_POOL_SIZE: String(poolSize),
    TOKEN_SIGNING_SECRET,
    SSN_ENCRYPTION_KEYS,
    SSN_HASH_KEY,
    HOST: '127.0.0.1',
    PORT: '0',
    // Raised far above what the run sends, so the limiter counts every call but refuses none.
    RATE_LIMIT_MAX: '1000000000',
    RATE_LIMIT_WINDOW_SECONDS: '300',
    LOG_LEVEL: logLevel,
    WORKER: 'in-process', // as `npm start` runs it
    ...extraEnv,
  })
  const child = track(
    spawn(process.execPath, [...nodeOptions, join(dist, 'main/serve.js')], {
      cwd: ROOT,
      env: serviceEnv,
      stdio: ['ignore', fd, fd],
    }),
  )
  closeSync(fd)
  const deadline = Date.now() + 30_000
  for (;;) {
    const text = readFileSync(logFile, 'utf8')
    const match = /Enrollsync is listening on (\S+)/.exec(text)
    if (match) return { child, url: match[1], logFile }
    if (!isRunning(child)) throw new Error(`The service exited (code ${child.exitCode}) before listening:\n${text.slice(-4000)}`)
    if (Date.now() > deadline) throw new Error(`The service did not start within 30 s:\n${text.slice(-4000)}`)
    await delay(100)
  }
}

// ---------------------------------------------------------------------------------------------
// Database: a dedicated database, migrated and seeded through the service's own code.

/**
 * A worker process (`main/worker.js` of `dist`) on `databaseUrl`, with the bench's secrets,
 * loopback receivers allowed and `extraEnv`; answers once its log says it started. Its output
 * goes to TMP_DIR/`label`.log; times are Date.now() milliseconds.
 */
export async function startWorkerProcess({ label, databaseUrl, extraEnv = {}, dist = join(ROOT, 'dist') }) {
  mkdirSync(TMP_DIR, { recursive: true })
  const logFile = join(TMP_DIR, `${label}.log`)
  const fd = openSync(logFile, 'w')
  const workerEnv = {
    PATH: env.PATH,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    TOKEN_SIGNING_SECRET,
    SSN_ENCRYPTION_KEYS,
    SSN_HASH_KEY,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ...extraEnv,
  }
  const spawnedAt = Date.now()
  const child = track(spawn(process.execPath, [join(dist, 'main/worker.js')], { cwd: ROOT, env: workerEnv, stdio: ['ignore', fd, fd] }))
  closeSync(fd)
  const deadline = Date.now() + 30_000
  while (!readFileSync(logFile, 'utf8').includes('worker started')) {
    if (!isRunning(child)) throw new Error(`worker ${label} exited before starting:\n${readFileSync(logFile, 'utf8').slice(-3000)}`)
    if (Date.now() > deadline) throw new Error(`worker ${label} did not start within 30 s`)
    await delay(10)
  }
  return { child, logFile, spawnedAt, startedAt: Date.now() }
}

/** A module of the built service (dist/), for seeding through the service's own code. */
export function importDist(path) {
  const file = join(ROOT, 'dist', path)
  if (!existsSync(file)) throw new Error(`${file} is missing: run the benchmark through its npm script, which builds first`)
  return import(pathToFileURL(file).href)
}

/** The service itself acting for an account, as jobs do: how benchmarks seed without a key. */
export function systemActor(accountId) {
  return { accountId, accountKind: 'service', apiKeyId: null, apiKeyName: null, requestId: null, channel: 'system' }
}
/** The actor creating an account, before any account exists. */
const NO_ACCOUNT_YET = '00000000-0000-0000-0000-000000000000'

/** Drops and creates a database of the benchmark's own: nothing an earlier run left is seen or worked. */
export async function recreateDatabase(name) {
  const admin = new pg.Client({ connectionString: `${PG_SERVER}/postgres` })
  await admin.connect()
  try {
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.query(`create database ${name}`)
  } finally {
    await admin.end()
  }
}

/** Drops a benchmark's database at the end of its run. */
export async function dropDatabase(name) {
  const admin = new pg.Client({ connectionString: `${PG_SERVER}/postgres` })
  await admin.connect()
  try {
    await admin.query(`drop database if exists ${name} with (force)`)
  } finally {
    await admin.end()
  }
}

/** The service's database at `url`, migrated, with its use cases; close `handle` when done. */
export async function openServiceDatabase(url) {
  const { openDatabase } = await importDist('db/database.js')
  const { migrate } = await importDist('db/migrator.js')
  const { createServices } = await importDist('app.js')
  const handle = await openDatabase({ kind: 'postgres', url, poolSize: 2 })
  try {
    await migrate(handle.db)
  } catch (error) {
    await handle.close()
    throw error
  }
  return { handle, services: createServices(handle.db) }
}

/** A partner account with one API key, made through the service's own code. */
export async function createPartner(services, name) {
  const account = await services.accounts.createAccount(systemActor(NO_ACCOUNT_YET), { name, kind: 'partner' })
  const key = await services.accounts.createApiKey(systemActor(account.id), account.id, name)
  return { accountId: account.id, apiKey: key.key }
}

/** `count` error.created events of one account, as the errors module emits them (for emitEvents). */
export function errorCreatedEvents(accountId, count) {
  return Array.from({ length: count }, (_, n) => ({
    type: 'error.created',
    accountId,
    coveragePeriodId: null,
    groupId: null,
    data: { error_id: `0193a4b2-0000-7000-8000-${String(n).padStart(12, '0')}`, status: 'unresolved', assignee: 'partner' },
  }))
}

/**
 * The benchmark database (`name`, BENCH_DB by default), created if missing and migrated, with an
 * account, its API key and a user of its own, and the filler users. `fresh`: dropped first, so
 * the run measures only its own data (bench:queue's search reads every account's members).
 */
export async function prepareDatabase({ name = BENCH_DB, fresh = false } = {}) {
  const databaseUrl = `${PG_SERVER}/${name}`
  if (fresh) await dropDatabase(name)
  const admin = new pg.Client({ connectionString: `${PG_SERVER}/postgres` })
  await admin.connect().catch(async (error) => {
    throw new Error(`PostgreSQL does not answer at ${PG_SERVER} (${error.message}); is it running? (pg_isready -h 127.0.0.1)`)
  })
  let postgresVersion
  try {
    postgresVersion = (await admin.query('show server_version')).rows[0].server_version
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name])
    if (exists.rowCount === 0) await admin.query(`create database ${name}`)
  } finally {
    await admin.end()
  }

  const { handle, services } = await openServiceDatabase(databaseUrl)
  try {
    const system = systemActor
    const noAccountYet = NO_ACCOUNT_YET
    const stamp = new Date().toISOString()

    const account = await services.accounts.createAccount(system(noAccountYet), { name: `bench ${stamp}`, kind: 'partner' })
    const apiKey = await services.accounts.createApiKey(system(account.id), account.id, 'bench')
    const user = await services.users.createUser(system(account.id), { email: `reader-${Date.now()}@bench.example.com`, role_names: [] }, account.id)

    // Filler rows under an account of their own, created once.
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      const { rows } = await client.query('select count(*)::int as n from users')
      if (rows[0].n < FILLER_USERS) {
        const filler = await services.accounts.createAccount(system(noAccountYet), { name: 'bench filler', kind: 'partner' })
        await client.query(
          `insert into users (id, account_id, email, role_names)
           select gen_random_uuid(), $1, 'filler-' || n || '@bench.example.com', '{}' from generate_series(1, $2::int) as n`,
          [filler.id, FILLER_USERS - rows[0].n],
        )
      }
      await client.query('analyze users')
      const count = (await client.query('select count(*)::int as n from users')).rows[0].n
      return { databaseUrl, postgresVersion, accountId: account.id, apiKey: apiKey.key, userId: user.id, userCount: count }
    } finally {
      await client.end()
    }
  } finally {
    await handle.close()
  }
}

/** One request through fetch before any load, so a broken route fails the bench instead of being measured. */
export async function expectOk(label, url, init, check) {
  const response = await fetch(url, init)
  const text = await response.text()
  if (response.status < 200 || response.status > 299) throw new Error(`${label}: ${url} answered ${response.status}: ${text.slice(0, 500)}`)
  const body = text ? JSON.parse(text) : undefined
  if (check && !check(body)) throw new Error(`${label}: unexpected body from ${url}: ${text.slice(0, 500)}`)
  return body
}

// ---------------------------------------------------------------------------------------------
// CPU and memory, from /proc.

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
})()

function readOr(path, fallback) {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return fallback // the process has gone
  }
}

function cpuSecondsOf(stat) {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK // utime + stime, all threads
}

/** CPU seconds a process has used so far (utime + stime, all threads); 0 once it has gone. */
export function processCpuSeconds(pid) {
  const stat = readOr(`/proc/${pid}/stat`, undefined)
  return stat ? cpuSecondsOf(stat) : 0
}

/** CPU seconds so far: the measured server, every PostgreSQL process, this process, and the machine. */
export function cpuSnapshot(serverPid) {
  const postgres = new Map()
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || readOr(`/proc/${pid}/comm`, '').trim() !== 'postgres') continue
    const stat = readOr(`/proc/${pid}/stat`, undefined)
    if (stat) postgres.set(pid, cpuSecondsOf(stat))
  }
  const serverStat = readOr(`/proc/${serverPid}/stat`, undefined)
  const self = process.cpuUsage()
  return {
    server: serverStat ? cpuSecondsOf(serverStat) : 0,
    postgres,
    self: (self.user + self.system) / 1e6,
    machine: machineTicks().busy / CLK_TCK,
    at: performance.now(),
  }
}

export function cpuDelta(before, after) {
  let postgres = 0
  for (const [pid, seconds] of after.postgres) postgres += seconds - (before.postgres.get(pid) ?? 0)
  const server = after.server - before.server
  const loadgen = after.self - before.self
  return { server, postgres, loadgen, rest: Math.max(0, after.machine - before.machine - server - postgres - loadgen), wall: (after.at - before.at) / 1000 }
}

export function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 }
}

function machineTicks() {
  // First line of /proc/stat: user nice system idle iowait irq softirq steal ...
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const idle = ticks[3] + ticks[4]
  return { busy: ticks.slice(0, 8).reduce((a, b) => a + b, 0) - idle }
}

/** How many cores the whole machine keeps busy, sampled over `ms`. */
export async function machineBusyCores(ms = 2_000) {
  const before = machineTicks()
  await delay(ms)
  return (machineTicks().busy - before.busy) / CLK_TCK / (ms / 1000)
}

/**
 * Waits up to `seconds` for the machine to go quiet (under a quarter of a core busy elsewhere), then
 * says how busy it was: what a run's figures are read against.
 */
export async function waitForQuietMachine(seconds = 30) {
  let busy = await machineBusyCores(1_000)
  for (let waited = 0; busy > 0.25 && waited < seconds; waited += 2) {
    console.log(`  the machine is busy elsewhere (${busy.toFixed(2)} cores); waiting ...`)
    busy = await machineBusyCores(2_000)
  }
  return `${busy.toFixed(2)} cores busy (load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`
}

/** The machine a run was made on, for its record in RESULTS.md. */
export function machineDescription(postgres, loadBefore) {
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown'
  return { cpus: os.availableParallelism(), cpuModel, memoryMb: Math.round(os.totalmem() / 1048576), node: process.version, postgres, loadBefore }
}
