import { ConfigError, loadConfig } from '../config.js'
import { DataDirLockedError } from '../db/data-dir-lock.js'
import { openMigratedDatabase } from '../db/migrator.js'

/** `npm start`: the API and, unless WORKER=off, an in-process worker. */
async function main(): Promise<void> {
  const config = loadConfig(process.env)
  // The database opens (PGlite reads its files and compiles its WebAssembly) while the service's
  // modules load, which also wait on files and compilation: started together, each works while
  // the other waits, and the service listens about 0.4 s sooner on two cores (issue 12).
  const [database, { buildApp }, { CarrierCatalog, loadCarriers }, { bootstrapFirstStart }, runtime, { createWorkers }] = await Promise.all([
    openMigratedDatabase(config),
    import('../app.js'),
    import('../modules/carriers/carriers.catalog.js'),
    import('./bootstrap.js'),
    import('./runtime.js'),
    import('./workers.js'),
  ])
  const { createRateLimitStore, loggerOptions, resolveSsnProtection, resolveTokenSecret, stdoutLogStream } = runtime
  const tokenSigningSecret = resolveTokenSecret(config)
  const carriers = new CarrierCatalog(loadCarriers(config.carriersFile))
  const ssnProtection = resolveSsnProtection(config)
  const { app, services } = await buildApp({
    db: database.db,
    pingDatabase: database.ping,
    tokenSigningSecret,
    ssnProtection,
    rateLimitStore: await createRateLimitStore(config),
    rateLimit: config.rateLimit,
    apiKeyCacheSeconds: config.apiKeyCacheSeconds,
    bodyLimitBytes: config.bodyLimitBytes,
    logger: { ...(loggerOptions(config) as object), stream: stdoutLogStream() } as Parameters<typeof buildApp>[0]['logger'],
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    carriers,
    webhooks: config.webhooks,
    carrierSide: config.carrierSide,
    censusBodyLimitBytes: config.censusBodyLimitBytes,
    consoleSessions: config.consoleSessions,
    serverLimits: config.serverLimits,
    eventStream: config.eventStream,
  })

  const worker =
    config.worker.mode === 'in-process'
      ? createWorkers({ db: database.db, log: app.log.child({ component: 'worker' }), worker: config.worker, staleAfterMs: config.worker.staleAfterMs, webhooks: config.webhooks, eventLogRetentionDays: config.eventLogRetentionDays, carrierSide: { ssn: ssnProtection, carriers, settings: config.carrierSide } })
      : undefined

  const firstStart = database.kind === 'embedded' ? await bootstrapFirstStart(database.db, services, config.dataDir) : undefined
  const address = await app.listen({ host: config.host, port: config.port })
  worker?.start()

  const url = address.replace('://[::1]', '://localhost')
  // One write, so whoever reads the output line by line sees the whole banner at once.
  const banner = [
    `Enrollsync is listening on ${url} (${database.kind === 'embedded' ? `embedded database in ${config.dataDir}` : 'PostgreSQL'})`,
    `Console: ${url}/console   API reference: ${url}/docs   OpenAPI document: ${url}/openapi.json`,
  ]
  if (firstStart) {
    banner.push(
      '',
      'First start: created two accounts. Their API keys and console sign-ins are shown once here',
      `and kept in ${config.dataDir}/credentials.json (readable only by you):`,
      `  operator (service) key: ${firstStart.service.api_key}`,
      `  demo partner key:       ${firstStart.partner.api_key}`,
      `  console, operator:      ${firstStart.service.console.email}  password ${firstStart.service.console.password}`,
      `  console, demo partner:  ${firstStart.partner.console.email}  password ${firstStart.partner.console.password}`,
      `Try: curl -H "Service-Api-Key: ${firstStart.partner.api_key}" ${url}/groups   or open ${url}/console`,
      '',
    )
  }
  console.log(banner.join('\n'))

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'draining in-flight requests and jobs')
    // Past this, something is stuck: exit rather than hang the orchestrator.
    setTimeout(() => process.exit(1), 30_000).unref()
    await app.close()
    await worker?.stop()
    await database.close()
    process.exit(0)
  }
  process.once('SIGTERM', () => void stop('SIGTERM'))
  process.once('SIGINT', () => void stop('SIGINT'))
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    console.error(error.message)
    process.exit(2)
  }
  console.error('Enrollsync could not start:', error)
  process.exit(1)
})
