// Where a request's time goes: runs ONE scenario of the benchmark against a process started with
// `node --cpu-prof`, then sorts the profile's samples into buckets (our code, Kysely, pg, pino,
// jose, syscalls ...) and prints the CPU time of each per request.
//
//   npm run -s build && node bench/profile.mjs <scenario> [log level]
//   node bench/profile.mjs --summary <file.cpuprofile> <requests served>
//
// Scenarios: hello, floor, healthz, read-key, read-bearer, read-subscriber (GET /subscribers/{id}
// rotating through 1,000 subscribers created first by the 5,000-subscriber request, sent to a
// separate, unprofiled instance so the profile holds the reads only). Log level (service only): info (default)
// or any LOG_LEVEL. The profile is kept in bench/.tmp/ for Chrome DevTools or speedscope.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { DATABASE_URL, POOL_SIZE, TMP_DIR, expectOk, prepareDatabase, startBareServer, startService, stopAll, stopChild } from './lib.mjs'
import { buildBulkBody, createGroup, pickReadIds, rotatingRequests, sendBulk } from './members.mjs'

const CONNECTIONS = 50
const WARMUP_SECONDS = 3
const MEASURE_SECONDS = 10

// ---------------------------------------------------------------------------------------------
// Buckets: each sample goes to the innermost package (or file of ours) on its stack.

function packageOf(url) {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (dependency) return dependency[1]
  const ours = /\/dist\/(.+)$/.exec(url)
  if (ours) return `dist/${ours[1]}`
  const bench = /\/bench\/(.+)$/.exec(url)
  if (bench) return `bench/${bench[1]}`
  return null
}

const PG = /^(pg|pg-pool|pg-protocol|pg-types|pg-int8|postgres-date|postgres-array|postgres-bytea|postgres-interval|pg-connection-string)$/
const LOGGING = /^(pino|sonic-boom|@pinojs\/redact|fast-redact|pino-std-serializers|thread-stream|fast-copy|safe-stable-stringify|on-exit-leak-free|quick-format-unescaped|atomic-sleep)$/
const SYSCALL_WRITE = /^(writev|writeUtf8String|writeBuffer|writeLatin1String|writeAsciiString|writeString|writeSync)$/

function bucketOf(pkg) {
  if (pkg === 'dist/lib/ids.js') return 'request id: uuidv7 (randomBytes)'
  if (/^dist\/(http\/guard|http\/rate-limit|modules\/auth|lib\/api-key-secret)/.test(pkg)) return 'auth + rate limit (our code, sha256)'
  if (pkg === 'jose') return 'jose (JWT verify)'
  if (pkg === 'dist/http/validation.js' || pkg === 'typebox' || pkg === '@fastify/type-provider-typebox') return 'params validation (TypeBox)'
  if (LOGGING.test(pkg)) return 'logging (pino, redaction, serializers)'
  if (PG.test(pkg)) return 'pg driver (protocol, row parsing)'
  if (pkg === 'kysely') return 'Kysely (query build + compile, connection)'
  if (pkg === 'fast-json-stringify' || pkg === '@fastify/fast-json-stringify-compiler') return 'response serialization'
  if (pkg.startsWith('dist/')) return `our code: ${pkg.slice(5)}`
  if (/^(fastify|find-my-way|avvio|@fastify\/|light-my-request|fast-querystring|toad-cache|abstract-logging|rfdc)/.test(pkg)) return 'Fastify core'
  if (pkg.startsWith('bench/')) return 'bench server code'
  return `other package: ${pkg}`
}

export function summariseProfile(file, requests) {
  const profile = JSON.parse(readFileSync(file, 'utf8'))
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id)
  const buckets = new Map()
  let total = 0
  profile.samples.forEach((id, i) => {
    const t = profile.timeDeltas[i] ?? 0
    total += t
    const leaf = nodes.get(id).callFrame.functionName
    let bucket
    if (leaf === '(idle)') bucket = '(idle)'
    else if (leaf === '(garbage collector)') bucket = 'garbage collection'
    else if (leaf === '(program)') bucket = 'V8 / native (program)'
    else {
      let innermost = null
      let logging = false
      for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
        const pkg = packageOf(nodes.get(cur).callFrame.url)
        if (pkg && !innermost) innermost = pkg
        if (pkg && LOGGING.test(pkg)) logging = true
      }
      if (SYSCALL_WRITE.test(leaf)) {
        bucket = logging ? 'syscall: write log line' : innermost && PG.test(innermost) ? 'syscall: socket write to PostgreSQL' : 'syscall: socket write to HTTP client'
      } else if (logging) bucket = 'logging (pino, redaction, serializers)'
      else bucket = innermost ? bucketOf(innermost) : 'Node core (HTTP parser, net, streams, timers)'
    }
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + t)
  })
  const busy = total - (buckets.get('(idle)') ?? 0)
  const lines = [`${(total / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(1)} s busy, ${requests} requests: ${(busy / requests).toFixed(1)} µs busy per request`]
  for (const [name, t] of [...buckets].sort((a, b) => b[1] - a[1])) {
    if (name === '(idle)' || t / requests < 0.3) continue
    lines.push(`${(t / requests).toFixed(1).padStart(7)} µs/req ${((100 * t) / busy).toFixed(1).padStart(5)}%  ${name}`)
  }
  return lines.join('\n')
}

// ---------------------------------------------------------------------------------------------

async function profileScenario(name, logLevel) {
  const dir = join(TMP_DIR, `profile-${name}${name === 'hello' || name === 'floor' ? '' : `-${logLevel}`}-${Date.now()}`)
  mkdirSync(dir, { recursive: true })
  const nodeOptions = ['--cpu-prof', `--cpu-prof-dir=${dir}`]
  const seed = await prepareDatabase()
  let target
  let url
  let headers = {}
  let requests
  if (name === 'hello') {
    target = await startBareServer('hello-server.mjs', {}, nodeOptions)
    url = `${target.url}/`
  } else if (name === 'floor') {
    target = await startBareServer('floor-server.mjs', { DATABASE_URL, DATABASE_POOL_SIZE: String(POOL_SIZE) }, nodeOptions)
    url = `${target.url}/users/${seed.userId}`
  } else if (name === 'read-subscriber') {
    const seeder = await startService(logLevel, { label: `${logLevel}-seeder` })
    const runTag = Date.now().toString(36)
    const { groupId, locationId } = await createGroup(seeder.url, seed.apiKey, runTag)
    const bulk = await sendBulk(seeder.url, seed.apiKey, groupId, buildBulkBody(locationId, runTag), seeder.child.pid)
    await stopChild(seeder.child)
    if (!process.env.BENCH_KEEP_LOGS) rmSync(seeder.logFile, { force: true })
    if (bulk.status !== 201) throw new Error(`The bulk request answered ${bulk.status}: ${bulk.errorText}`)
    const ids = pickReadIds(bulk.ids)
    target = await startService(logLevel, { nodeOptions })
    url = `${target.url}/subscribers/${ids[0]}`
    headers = { 'service-api-key': seed.apiKey }
    requests = () => rotatingRequests(ids)
  } else {
    target = await startService(logLevel, { nodeOptions })
    url = name === 'healthz' ? `${target.url}/healthz` : `${target.url}/users/${seed.userId}`
    headers = { 'service-api-key': seed.apiKey }
    if (name === 'read-bearer') {
      const { token } = await expectOk('token', `${target.url}/auth/token`, { method: 'POST', headers })
      headers = { authorization: `Bearer ${token}` }
    } else if (name === 'healthz') headers = {}
  }
  await expectOk(name, url, { headers })
  const warm = await autocannon({ url, headers, requests: requests?.(), connections: CONNECTIONS, duration: WARMUP_SECONDS })
  const run = await autocannon({ url, headers, requests: requests?.(), connections: CONNECTIONS, duration: MEASURE_SECONDS })
  await stopChild(target.child) // the profile is written as the process exits
  if (target.logFile && !process.env.BENCH_KEEP_LOGS) rmSync(target.logFile, { force: true })
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
  if (!file) throw new Error(`No profile was written in ${dir}`)
  console.log(`${name}${target.logFile ? ` (LOG_LEVEL=${logLevel})` : ''}: ${Math.round(run.requests.average)} req/s, p50 ${run.latency.p50} ms, p99 ${run.latency.p99} ms, non-2xx ${run.non2xx}, errors ${run.errors}`)
  console.log(`profile: ${join(dir, file)} (warm-up and measured run together)`)
  console.log(summariseProfile(join(dir, file), warm.requests.total + run.requests.total + 1))
}

const [first, second, third] = process.argv.slice(2)
try {
  if (first === '--summary') console.log(summariseProfile(second, Number(third)))
  else if (['hello', 'floor', 'healthz', 'read-key', 'read-bearer', 'read-subscriber'].includes(first)) await profileScenario(first, second ?? 'info')
  else {
    console.error('usage: node bench/profile.mjs hello|floor|healthz|read-key|read-bearer|read-subscriber [log level]\n       node bench/profile.mjs --summary <file.cpuprofile> <requests>')
    process.exitCode = 2
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
} finally {
  await stopAll()
}
