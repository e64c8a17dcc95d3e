#!/usr/bin/env node
import { createServices } from '../app.js'
import { runCommand, USAGE, UsageError } from '../cli/commands.js'
import { ConfigError, loadConfig } from '../config.js'
import { DataDirLockedError } from '../db/data-dir-lock.js'
import { openDatabase } from '../db/database.js'
import { migrate } from '../db/migrator.js'
import { DomainError } from '../lib/domain-error.js'

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || ['help', '--help', '-h'].includes(argv[0]!)) {
    console.log(USAGE)
    return argv.length === 0 ? 1 : 0
  }
  const config = loadConfig(process.env)
  const database = await openDatabase(config.database)
  try {
    const applied = await migrate(database.db)
    if (argv[0] === 'migrate') {
      console.log(JSON.stringify({ applied }, null, 2))
      return 0
    }
    const result = await runCommand(argv, createServices(database.db))
    console.log(JSON.stringify(result, null, 2))
    return 0
  } finally {
    await database.close()
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
      console.error(`${error.message}\n\n${USAGE}`)
      process.exit(64)
    }
    if (error instanceof DomainError) {
      const fields = error.fieldProblems.map((p) => ` ${p.pointer ?? p.parameter}: ${p.detail}`).join(';')
      console.error(`${error.code}: ${error.message}${fields}`)
      process.exit(65)
    }
    if (error instanceof ConfigError || error instanceof DataDirLockedError) {
      console.error(error.message)
      process.exit(2)
    }
    console.error(error)
    process.exit(1)
  },
)
