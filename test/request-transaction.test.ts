import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { afterCommit, RequestTransaction } from '../src/db/request-transaction.js'
import type { Db } from '../src/db/schema.js'
import { startTestApp, type TestApp } from './helpers/test-app.js'

/**
 * The request transaction as services see it: the Db they hold follows it while work runs inside
 * it, and `db.transaction()` becomes a savepoint (src/db/request-transaction.ts).
 */
let t: TestApp
let accountId: string
beforeAll(async () => {
  t = await startTestApp()
  accountId = (await t.newPartner()).accountId
})
afterAll(async () => t?.close())

/** A row a service might write: a key of the test's account (any table would do). */
async function write(db: Db, key: string): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({ account_id: accountId, key, request_fingerprint: 'f', state: 'completed', expires_at: new Date(Date.now() + 60_000) })
    .execute()
}

async function kept(keys: string[]): Promise<string[]> {
  const rows = await t.db.selectFrom('idempotency_keys').select('key').where('key', 'in', keys).orderBy('key').execute()
  return rows.map((row) => row.key)
}

/** Keys no other test uses, one per label. */
function names<const L extends readonly string[]>(...labels: L): { [K in keyof L]: string } {
  const id = randomUUID()
  return labels.map((label) => `${label}-${id}`) as { [K in keyof L]: string }
}

describe('a request transaction', () => {
  it('when work inside it asks for an effect after commit, then the effect waits for COMMIT and is dropped by a rollback', async () => {
    const effects: string[] = []
    const committed = await RequestTransaction.begin(t.db)
    committed.run(() => afterCommit(() => effects.push('committed')))
    expect(effects).toEqual([])
    await committed.commit()
    expect(effects).toEqual(['committed'])

    const rolledBack = await RequestTransaction.begin(t.db)
    rolledBack.run(() => afterCommit(() => effects.push('rolled back')))
    await rolledBack.rollback()
    afterCommit(() => effects.push('outside'))
    expect(effects).toEqual(['committed', 'outside'])
  })

  it('when an effect after commit throws, then the commit still succeeds and the next effects run', async () => {
    const effects: string[] = []
    const request = await RequestTransaction.begin(t.db)
    request.run(() => {
      afterCommit(() => {
        throw new Error('a cache that failed')
      })
      afterCommit(() => effects.push('next'))
    })
    await expect(request.commit()).resolves.toBeUndefined()
    expect(effects).toEqual(['next'])
  })

  it('when a db.transaction() inside it throws, then only that savepoint is undone and the rest commits', async () => {
    const [before, undone, after] = names('before', 'undone', 'after')
    const request = await RequestTransaction.begin(t.db)
    await request.run(async () => {
      await write(t.db, before)
      await expect(
        t.db.transaction().execute(async (tx) => {
          await write(tx, undone)
          throw new Error('refused by a business rule')
        }),
      ).rejects.toThrow('refused by a business rule')
      await t.db.transaction().execute((tx) => write(tx, after))
    })
    expect(request.fault).toBeUndefined()
    await request.commit()
    expect(await kept([before, undone, after])).toEqual([after, before].sort())
  })

  it('when it rolls back, then everything written in it is gone, committed savepoints, connection() and sql included', async () => {
    const [plain, savepoint, onConnection, raw] = names('plain', 'savepoint', 'connection', 'raw')
    const request = await RequestTransaction.begin(t.db)
    const seen = await request.run(async () => {
      await write(t.db, plain)
      await t.db.transaction().execute((tx) => write(tx, savepoint))
      await t.db.connection().execute((connection) => write(connection, onConnection))
      await sql`insert into idempotency_keys (account_id, key, request_fingerprint, state, expires_at)
                values (${accountId}, ${raw}, 'f', 'completed', now() + interval '1 minute')`.execute(t.db)
      // Inside, the request sees its own writes.
      const rows = await t.db.selectFrom('idempotency_keys').select('key').where('key', 'in', [plain, savepoint, onConnection, raw]).execute()
      return rows.length
    })
    expect(seen).toBe(4)
    await request.rollback()
    expect(await kept([plain, savepoint, onConnection, raw])).toEqual([])
  })

  it('when a statement fails outside any transaction of the request, then the request has a fault and must not commit', async () => {
    const request = await RequestTransaction.begin(t.db)
    await request.run(async () => {
      await expect(sql`select 1 / 0`.execute(t.db)).rejects.toThrow()
    })
    expect(request.fault?.message).toMatch(/failed outside a transaction/)
    await request.rollback()
  })

  it('when a statement fails inside a db.transaction() of the request, then only that transaction fails and the request may commit', async () => {
    const [kept1] = names('kept')
    const request = await RequestTransaction.begin(t.db)
    await request.run(async () => {
      await expect(t.db.transaction().execute((tx) => sql`select 1 / 0`.execute(tx))).rejects.toThrow()
      await write(t.db, kept1)
    })
    expect(request.fault).toBeUndefined()
    await request.commit()
    expect(await kept([kept1])).toEqual([kept1])
  })

  it('when two db.transaction() run side by side in one request, then it is refused as a fault instead of ending each other', async () => {
    const request = await RequestTransaction.begin(t.db)
    // The first ends while the second is still open: its savepoint is not the innermost.
    let secondOpened!: () => void
    let firstEnded!: () => void
    const opened = new Promise<void>((resolve) => (secondOpened = resolve))
    const ended = new Promise<void>((resolve) => (firstEnded = resolve))
    const results = await request.run(() => {
      const first = t.db.transaction().execute(() => opened)
      const second = t.db.transaction().execute(async () => {
        secondOpened()
        await ended
      })
      return Promise.allSettled([first.finally(firstEnded), second])
    })
    expect(results[0]?.status).toBe('rejected')
    expect(request.fault?.message).toMatch(/side by side/)
    await request.rollback()
  })

  it('when a transaction asks for an isolation level inside it, then it is refused rather than silently weaker', async () => {
    const request = await RequestTransaction.begin(t.db)
    await expect(request.run(() => t.db.transaction().setIsolationLevel('repeatable read').execute(async () => 1))).rejects.toThrow(/isolation level/)
    await request.rollback()
  })

  it('when work the request started goes on after it ended, then it uses the pool', async () => {
    const [afterCommit, afterRollback] = names('after-commit', 'after-rollback')
    // Work started inside the request that only gets to the database after the request ended.
    const startLateWork = (request: RequestTransaction, key: string) => {
      let go!: () => void
      const gate = new Promise<void>((resolve) => (go = resolve))
      const work = request.run(async () => {
        await gate
        await write(t.db, key)
      })
      return { go, work }
    }
    const committed = await RequestTransaction.begin(t.db)
    const lateAfterCommit = startLateWork(committed, afterCommit)
    await committed.commit()
    lateAfterCommit.go()
    await lateAfterCommit.work

    const rolledBack = await RequestTransaction.begin(t.db)
    const lateAfterRollback = startLateWork(rolledBack, afterRollback)
    await rolledBack.rollback()
    lateAfterRollback.go()
    await lateAfterRollback.work
    expect(await kept([afterCommit, afterRollback])).toEqual([afterCommit, afterRollback].sort())
  })

  it('when two requests overlap, then each one\'s work lands in its own transaction', async () => {
    const [first, second] = names('first', 'second')
    const one = await RequestTransaction.begin(t.db)
    await one.run(() => write(t.db, first))
    // On the embedded database (one connection) the second must wait for the first to end.
    const otherBegun = RequestTransaction.begin(t.db)
    await one.rollback()
    const other = await otherBegun
    await other.run(() => write(t.db, second))
    await other.commit()
    expect(await kept([first, second])).toEqual([second])
  })
})
