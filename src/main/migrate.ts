import { ConfigError, loadConfig } from '../config.js'
import { DataDirLockedError } from '../db/data-dir-lock.js'
import { openDatabase } from '../db/database.js'
import { migrate } from '../db/migrator.js'

/** `npm run migrate`: applies pending migrations and exits. Start does the same by itself. */
async function main(): Promise<void> {
  const config = loadConfig(process.env)
  const database = await openDatabase(config.database)
  try {
    const applied = await migrate(database.db)
    console.log(applied.length === 0 ? 'Database is up to date.' : `Applied: ${applied.join(', ')}`)
  } finally {
    await database.close()
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof DataDirLockedError ? error.message : error)
  process.exit(error instanceof ConfigError || error instanceof DataDirLockedError ? 2 : 1)
})
