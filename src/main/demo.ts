import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyServerOptions } from 'fastify'
import { buildApp } from '../app.js'
import { loadConfig, type Config } from '../config.js'
import type { DatabaseHandle } from '../db/database.js'
import { openMigratedDatabase } from '../db/migrator.js'
import type { App } from '../http/app-types.js'
import { CarrierCatalog } from '../modules/carriers/carriers.catalog.js'
import { bootstrapFirstStart, FIRST_OPERATOR_EMAIL, FIRST_PARTNER_EMAIL } from './bootstrap.js'
import { DemoApi, DemoFailure, line, plural, step } from './demo-client.js'
import { runWalkthrough, type DemoSummary } from './demo-steps.js'
import { createRateLimitStore, loggerOptions, resolveSsnProtection, resolveTokenSecret } from './runtime.js'
import { createWorkers, type Workers } from './workers.js'

/**
 * `npm run demo`: the whole life cycle on one machine. Starts the service exactly as `npm start`
 * does (API, in-process worker, embedded database, the built-in sandbox carriers) but in a fresh
 * temporary DATA_DIR, so the user's ./data is never touched, with short sandbox delays; then
 * drives the real HTTP API step by step and prints what each step did, the 834 file segment by
 * segment. `--keep` keeps the directory, so `DATA_DIR=<it> npm start` opens the result in the
 * console; the closing lines say how.
 */
const USAGE = 'usage: npm run demo [-- --keep]'
// Far beyond a normal run (about ten seconds); only a stuck step gets here.
const WATCHDOG_MS = 120_000

/** The environment of the demo's service: fixed, so nothing from the caller's (DATABASE_URL, PORT ...) leaks in. */
function demoConfig(dataDir: string): Config {
  return loadConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    WORKER_POLL_MS: '100',
    TRANSACTION_BATCH_DELAY_MS: '500',
    SANDBOX_CARRIER_DELAY_MS: '1000',
  })
}

/** The service's JSON log lines (warnings only) go to stderr, away from the narration. */
function demoLogger(config: Config): FastifyServerOptions['logger'] {
  return { ...(loggerOptions(config) as object), stream: process.stderr } as FastifyServerOptions['logger']
}

async function main(argv: string[]): Promise<number> {
  const unknown = argv.filter((arg) => arg !== '--keep')
  if (unknown.length > 0) {
    console.error(`unknown argument ${unknown[0]}\n${USAGE}`)
    return 64
  }
  const keep = argv.includes('--keep')
  const started = Date.now()
  const dataDir = mkdtempSync(join(tmpdir(), 'enrollsync-demo-'))
  const removeDataDir = () => {
    if (!keep) rmSync(dataDir, { recursive: true, force: true })
  }
  process.once('SIGINT', () => {
    removeDataDir()
    process.exit(130)
  })
  setTimeout(() => {
    console.error(`\nThe demo did not finish within ${WATCHDOG_MS / 1000} s.`)
    removeDataDir()
    process.exit(1)
  }, WATCHDOG_MS).unref()

  let database: DatabaseHandle | undefined
  let app: App | undefined
  let workers: Workers | undefined
  let code = 0
  try {
    const config = demoConfig(dataDir)
    database = await openMigratedDatabase(config)
    const carriers = new CarrierCatalog()
    const ssnProtection = resolveSsnProtection(config)
    const built = await buildApp({
      db: database.db,
      pingDatabase: database.ping,
      tokenSigningSecret: resolveTokenSecret(config),
      ssnProtection,
      rateLimitStore: await createRateLimitStore(config),
      rateLimit: config.rateLimit,
      apiKeyCacheSeconds: config.apiKeyCacheSeconds,
      bodyLimitBytes: config.bodyLimitBytes,
      logger: demoLogger(config),
      carriers,
      webhooks: config.webhooks,
      carrierSide: config.carrierSide,
      censusBodyLimitBytes: config.censusBodyLimitBytes,
    })
    app = built.app
    workers = createWorkers({
      db: database.db,
      log: app.log.child({ component: 'worker' }),
      worker: config.worker,
      staleAfterMs: config.worker.staleAfterMs,
      webhooks: config.webhooks,
      carrierSide: { ssn: ssnProtection, carriers, settings: config.carrierSide },
    })
    // The same first start as `npm start`: an operator and a demo partner, one key each, in credentials.json.
    const credentials = await bootstrapFirstStart(database.db, built.services, dataDir)
    if (!credentials) throw new DemoFailure('the fresh database already had accounts')
    const url = await app.listen({ host: config.host, port: config.port })
    workers.start()

    console.log('Enrollsync demo: the whole life cycle against the sandbox EDI carrier.')
    line(`service on ${url}, embedded database in ${dataDir} (${keep ? 'kept afterwards' : 'temporary'}), in-process worker`)
    line(`accounts: an operator (service) and a demo partner, one API key each (${join(dataDir, 'credentials.json')})`)
    line(`the sandbox carrier acts ${config.carrierSide.sandboxDelayMs / 1000} s after each file; member changes are batched for ${config.carrierSide.transactionBatchDelayMs / 1000} s`)

    const summary = await runWalkthrough({
      api: new DemoApi(url),
      partnerKey: credentials.partner.api_key,
      operatorKey: credentials.service.api_key,
      outboundDirectory: config.carrierSide.outboundDirectory,
    })
    printSummary(summary)
  } catch (error) {
    code = 1
    console.error(`\nDemo failed: ${error instanceof DemoFailure ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  } finally {
    await app?.close()
    await workers?.stop()
    await database?.close()
    removeDataDir()
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  console.log(code === 0 ? `\nDone in ${seconds} s; service, workers and database stopped${keep ? '' : ', temporary directory removed'}.` : `Stopped after ${seconds} s.`)
  if (code === 0) printConsoleHint(keep ? dataDir : undefined)
  return code
}

/** How to see what the demo did in the operations console: its data directory, opened by `npm start`. */
function printConsoleHint(keptDir: string | undefined): void {
  console.log('\nOpen the same data in the operations console:')
  if (!keptDir) {
    line('run the demo again keeping its data directory:  npm run demo -- --keep')
    line('it then prints the directory and the npm start command that opens it.')
    return
  }
  const credentials = join(keptDir, 'credentials.json')
  line(`1. DATA_DIR=${keptDir} npm start      (stop any other npm start first: port 3000)`)
  line('2. open http://127.0.0.1:3000/console and sign in')
  line(`   as ${FIRST_OPERATOR_EMAIL} (operator: the work order, every account's errors, the audit log),`)
  line(`   password:  jq -r '.service.console.password' ${credentials}`)
  line(`   or as ${FIRST_PARTNER_EMAIL} (the demo partner: its group, errors, watchers, keys, users),`)
  line(`   password:  jq -r '.partner.console.password' ${credentials}`)
  line(`   The API keys are there too (.service.api_key, .partner.api_key) for the README's guides.`)
}

function printSummary(summary: DemoSummary): void {
  step(7, 'Summary')
  line(`group ${summary.groupId} installed with sandbox_edi as ${summary.carrierGroupNumber}, coverage period ${summary.coveragePeriodId} in production`)
  line(`files sent: ${[...summary.deliveries].reverse().map((d) => `${d.kind} ${d.status} (${plural(d.member_count, 'member')})`).join(', ')}`)
  line(`census requests: ${summary.census.length}, all ${[...new Set(summary.census.map((c) => c.status))].join('/')}`)
  const byStatus = new Map<string, string[]>()
  for (const e of summary.errors) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e.discrepancy.parameter])
  line(`reconciliation errors: ${[...byStatus].map(([status, parameters]) => `${parameters.length} ${status} (${parameters.join(', ')})`).join('; ')}`)
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('Demo failed:', error)
    process.exit(1)
  },
)
