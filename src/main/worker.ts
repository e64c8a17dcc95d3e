import pino from 'pino'
import { ConfigError, loadConfig } from '../config.js'
import { DataDirLockedError } from '../db/data-dir-lock.js'
import { openMigratedDatabase } from '../db/migrator.js'
import { CarrierCatalog, loadCarriers } from '../modules/carriers/carriers.catalog.js'
import { resolveSsnProtection } from './runtime.js'
import { createWorkers } from './workers.js'

/** `npm run worker`: a worker process without the API, for PostgreSQL deployments. */
async function main(): Promise<void> {
  const config = loadConfig(process.env)
  const log = pino({ level: config.logLevel })
  const database = await openMigratedDatabase(config)
  const worker = createWorkers({
    db: database.db,
    log,
    worker: config.worker,
    staleAfterMs: config.worker.staleAfterMs,
    webhooks: config.webhooks,
    eventLogRetentionDays: config.eventLogRetentionDays,
    carrierSide: { ssn: resolveSsnProtection(config), carriers: new CarrierCatalog(loadCarriers(config.carriersFile)), settings: config.carrierSide },
  })
  worker.start()
  log.info({ workerIds: worker.ids }, 'worker started')
  const stop = async () => {
    await worker.stop()
    await database.close()
    process.exit(0)
  }
  process.once('SIGTERM', () => void stop())
  process.once('SIGINT', () => void stop())
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof DataDirLockedError ? error.message : error)
  process.exit(error instanceof ConfigError || error instanceof DataDirLockedError ? 2 : 1)
})
