import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../src/db/database.js'
import { migrate, readMigrations } from '../src/db/migrator.js'
import type { Db } from '../src/db/schema.js'
import { openTestDatabase } from './helpers/test-app.js'

const postgresUrl = process.env.DATABASE_URL

/**
 * A database of its own for each test, so migration files written here never meet the shared
 * schema: a fresh in-memory PGlite, or on PostgreSQL a throwaway database dropped afterwards.
 */
class Scratch {
  private readonly handles: DatabaseHandle[] = []
  private name: string | undefined
  private url: string | undefined

  /** A new connection pool to this test's database (PostgreSQL: any number; PGlite: one). */
  async open(): Promise<Db> {
    if (!postgresUrl) {
      if (this.handles.length > 0) throw new Error('PGlite in memory has one connection per database')
      const handle = await openDatabase({ kind: 'memory' })
      this.handles.push(handle)
      return handle.db
    }
    if (!this.url) {
      this.name = `enrollsync_migrate_${randomBytes(6).toString('hex')}`
      await admin((client) => client.query(`create database ${this.name}`))
      const url = new URL(postgresUrl)
      url.pathname = `/${this.name}`
      this.url = url.toString()
    }
    const handle = await openDatabase({ kind: 'postgres', url: this.url, poolSize: 2 })
    this.handles.push(handle)
    return handle.db
  }

  async dispose(): Promise<void> {
    for (const handle of this.handles.splice(0)) await handle.close()
    if (this.name) await admin((client) => client.query(`drop database if exists ${this.name} with (force)`))
  }
}

async function admin(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl })
  await client.connect()
  try {
    await work(client)
  } finally {
    await client.end()
  }
}

/** A temporary migrations directory, given without a trailing separator. */
function migrationsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'enrollsync-migrations-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function tableExists(db: Db, name: string): Promise<boolean> {
  const result = await sql<{ found: string | null }>`select to_regclass(${name})::text as found`.execute(db)
  return result.rows[0]?.found != null
}

async function appliedVersions(db: Db): Promise<Array<{ version: number; name: string }>> {
  if (!(await tableExists(db, 'schema_migrations'))) return []
  const result = await sql<{ version: number; name: string }>`select version, name from schema_migrations order by version`.execute(db)
  return result.rows
}

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function scratch(): Scratch {
  const s = new Scratch()
  cleanups.push(() => s.dispose())
  return s
}

const FIRST = 'create table mig_a (id integer primary key);\n'
const SECOND = "create table mig_b (id integer primary key);\ninsert into mig_b values (1);\n"

// Each test opens a new embedded database: 3.5 to 9.3 s in CI, and up to 15 s on a loaded
// machine, against the 30 s default.
describe('migrate', { timeout: 60_000 }, () => {
  it("when the service's own migrations run on an already migrated database, then nothing is applied", async () => {
    const handle = await openTestDatabase()
    cleanups.push(() => handle.close())
    expect(await migrate(handle.db)).toEqual([])
    expect(readMigrations().map((m) => m.name)).toContain('0001_init.sql')
  })

  it('when migrate runs twice, then the second run applies nothing and no statement runs twice', async () => {
    const db = await scratch().open()
    const dir = migrationsDir({ '0001_first.sql': FIRST, '0002_second.sql': SECOND })
    expect(await migrate(db, dir)).toEqual(['0001_first.sql', '0002_second.sql'])
    expect(await migrate(db, dir)).toEqual([])
    expect(await appliedVersions(db)).toEqual([
      { version: 1, name: '0001_first.sql' },
      { version: 2, name: '0002_second.sql' },
    ])
    const rows = await sql<{ count: number }>`select count(*)::int as count from mig_b`.execute(db)
    expect(rows.rows[0]?.count).toBe(1)
  })

  it('when a new file is added after a run, then only that file is applied, in version order', async () => {
    const db = await scratch().open()
    const dir = migrationsDir({ '0001_first.sql': FIRST })
    expect(await migrate(db, dir)).toEqual(['0001_first.sql'])
    writeFileSync(join(dir, '0003_third.sql'), 'create table mig_c (id integer);\n')
    writeFileSync(join(dir, '0002_second.sql'), SECOND)
    expect(await migrate(db, dir)).toEqual(['0002_second.sql', '0003_third.sql'])
  })

  it('when files do not follow the NNNN_name.sql pattern, then they are ignored', async () => {
    const db = await scratch().open()
    const dir = migrationsDir({ '0001_first.sql': FIRST, 'README.md': 'not sql', '0002-Second.sql': 'this is not sql;', '0003_third.sql.bak': 'nor this;' })
    expect(await migrate(db, dir)).toEqual(['0001_first.sql'])
  })

  it('when an applied migration file was changed, then migrate refuses with a message naming it and applies nothing', async () => {
    const db = await scratch().open()
    const dir = migrationsDir({ '0001_first.sql': FIRST })
    await migrate(db, dir)
    writeFileSync(join(dir, '0001_first.sql'), 'create table mig_a (id bigint primary key);\n')
    writeFileSync(join(dir, '0002_second.sql'), SECOND)

    await expect(migrate(db, dir)).rejects.toThrow('Migration 0001_first.sql was changed after it was applied; add a new migration instead')
    expect(await tableExists(db, 'mig_b')).toBe(false)
    expect(await appliedVersions(db)).toEqual([{ version: 1, name: '0001_first.sql' }])
  })

  it('when one migration of a run fails, then the whole run is rolled back', async () => {
    const db = await scratch().open()
    const dir = migrationsDir({ '0001_first.sql': FIRST, '0002_broken.sql': 'create table mig_b (id no_such_type);\n' })
    await expect(migrate(db, dir)).rejects.toThrow(/no_such_type/)
    expect(await tableExists(db, 'mig_a')).toBe(false)
    expect(await appliedVersions(db)).toEqual([])
  })
})

describe.runIf(!!postgresUrl)('migrate on PostgreSQL from two instances at once', () => {
  it('when two instances migrate the same database at the same moment, then both succeed and each migration is applied once', async () => {
    const database = scratch()
    const [one, two] = [await database.open(), await database.open()]
    // Not idempotent on purpose: a second application would fail, and the sleep widens the race.
    const dir = migrationsDir({
      '0001_first.sql': `${FIRST}select pg_sleep(0.3);\n`,
      '0002_second.sql': SECOND,
    })
    const results = await Promise.all([migrate(one, dir), migrate(two, dir)])
    expect(results.flat().sort()).toEqual(['0001_first.sql', '0002_second.sql'])
    expect(results.some((applied) => applied.length === 0)).toBe(true)
    expect(await appliedVersions(one)).toEqual([
      { version: 1, name: '0001_first.sql' },
      { version: 2, name: '0002_second.sql' },
    ])
    const rows = await sql<{ count: number }>`select count(*)::int as count from mig_b`.execute(two)
    expect(rows.rows[0]?.count).toBe(1)
  })
})
