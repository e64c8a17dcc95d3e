import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'kysely'
import type { Config } from '../config.js'
import { openDatabase, type DatabaseHandle } from './database.js'
import type { Db } from './schema.js'

/** `migrations/` sits two levels above this file both in `src/db/` and in `dist/db/`. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url))

// Any constant shared by every instance; it names the lock two starting instances queue on.
const MIGRATION_LOCK_KEY = 4_823_190_117

interface MigrationFile {
  version: number
  name: string
  sql: string
  checksum: string
}

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8')
      return {
        version: Number.parseInt(file.slice(0, 4), 10),
        name: file,
        sql: text,
        checksum: createHash('sha256').update(text).digest('hex'),
      }
    })
}

/**
 * Applies the forward-only SQL files not yet recorded, in order, in one transaction. The
 * transaction-scoped advisory lock makes a second instance starting at the same moment wait and
 * then find nothing left to do. An applied file that was edited afterwards stops the start:
 * a migration that ran is history and is never changed.
 */
export async function migrate(db: Db, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = readMigrations(dir)
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(tx)
    await sql`
      create table if not exists schema_migrations (
        version    integer primary key,
        name       text not null,
        checksum   text not null,
        applied_at timestamptz not null default now()
      )`.execute(tx)
    const applied = await sql<{ version: number; name: string; checksum: string }>`
      select version, name, checksum from schema_migrations`.execute(tx)
    const appliedByVersion = new Map(applied.rows.map((row) => [row.version, row]))
    const newlyApplied: string[] = []
    for (const file of files) {
      const previous = appliedByVersion.get(file.version)
      if (previous) {
        if (previous.checksum !== file.checksum) {
          throw new Error(`Migration ${file.name} was changed after it was applied; add a new migration instead`)
        }
        continue
      }
      await sql.raw(file.sql).execute(tx)
      await sql`insert into schema_migrations (version, name, checksum)
                values (${file.version}, ${file.name}, ${file.checksum})`.execute(tx)
      newlyApplied.push(file.name)
    }
    return newlyApplied
  })
}

/** The database of the configuration, opened and migrated; closed again if migrating fails. */
export async function openMigratedDatabase(config: Config): Promise<DatabaseHandle> {
  const handle = await openDatabase(config.database)
  try {
    await migrate(handle.db)
    return handle
  } catch (error) {
    await handle.close()
    throw error
  }
}
