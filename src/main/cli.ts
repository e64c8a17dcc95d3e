#!/usr/bin/env node
import type { CommandInput } from '../cli/commands.js'
import { USAGE, UsageError } from '../cli/usage.js'
import { dataDirHeldAdvice } from '../cli/data-dir-held.js'
import { DataDirLockedError } from '../db/data-dir-lock.js'
import { DomainError } from '../lib/domain-error.js'

// Only light modules are imported statically, so `--help` answers at once. The service's module
// graph (the app, TypeBox schemas, the database driver) takes most of a second to load and is
// imported below, once a command needs it.

// A password is one line; anything much longer is not one.
const STDIN_LIMIT_BYTES = 64 * 1024

/**
 * Standard input, for `users set-password`. A terminal is refused rather than prompted: the
 * password would be echoed, so it is piped instead (see USAGE).
 */
const processInput: CommandInput = {
  async readStdin() {
    if (process.stdin.isTTY) {
      throw new UsageError(`Pipe the password on standard input instead of typing it: printf '%s\\n' "$PASSWORD" | npm run cli -- users set-password USER_ID`)
    }
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of process.stdin) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
      size += buffer.length
      if (size > STDIN_LIMIT_BYTES) throw new UsageError('Standard input is too long for a password')
      chunks.push(buffer)
    }
    return Buffer.concat(chunks).toString('utf8')
  },
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || ['help', '--help', '-h'].includes(argv[0]!)) {
    console.log(USAGE)
    return argv.length === 0 ? 1 : 0
  }
  const [{ createServices }, { runCommand }, { loadConfig }, { openDatabase }, { migrate }] = await Promise.all([
    import('../app.js'),
    import('../cli/commands.js'),
    import('../config.js'),
    import('../db/database.js'),
    import('../db/migrator.js'),
  ])
  const config = loadConfig(process.env)
  const database = await openDatabase(config.database)
  try {
    const applied = await migrate(database.db)
    if (argv[0] === 'migrate') {
      console.log(JSON.stringify({ applied }, null, 2))
      return 0
    }
    const result = await runCommand(argv, createServices(database.db), processInput)
    console.log(JSON.stringify(result, null, 2))
    return 0
  } finally {
    await database.close()
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    // Loaded already whenever it could have thrown: this import is the cached module.
    const { ConfigError } = await import('../config.js')
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))) {
      console.error(`${error.message}\n\n${USAGE}`)
      process.exit(64)
    }
    if (error instanceof DomainError) {
      const fields = error.fieldProblems.map((p) => ` ${p.pointer ?? p.parameter}: ${p.detail}`).join(';')
      console.error(`${error.code}: ${error.message}${fields}`)
      process.exit(65)
    }
    if (error instanceof DataDirLockedError) {
      console.error(dataDirHeldAdvice(error, process.argv.slice(2)))
      process.exit(2)
    }
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exit(2)
    }
    console.error(error)
    process.exit(1)
  },
)
