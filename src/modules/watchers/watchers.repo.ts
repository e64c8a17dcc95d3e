import { sql, type Insertable, type Selectable, type Updateable } from 'kysely'
import { selectPage } from '../../db/paging.js'
import type { Executor, WatchersTable } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import type { AccountScope } from '../../lib/actor.js'

export type WatcherRow = Selectable<WatchersTable>

/** Watchers in scope that are not deleted: a deleted watcher is kept only to explain its deliveries. */
function liveWatchers(db: Executor, scope: AccountScope) {
  let query = db.selectFrom('watchers').where('deleted_at', 'is', null)
  if (scope) query = query.where('account_id', '=', scope)
  return query
}

export async function findWatcher(db: Executor, scope: AccountScope, id: string): Promise<WatcherRow | undefined> {
  return liveWatchers(db, scope).selectAll().where('id', '=', id).executeTakeFirst()
}

/** The same, row-locked, so concurrent changes to one watcher (a rotation and a PATCH) apply one after the other. */
export async function findWatcherForUpdate(tx: Executor, scope: AccountScope, id: string): Promise<WatcherRow | undefined> {
  return liveWatchers(tx, scope).selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

export async function listWatchers(db: Executor, scope: AccountScope, filters: { status?: 'active' | 'disabled' | undefined }, pageReq: PageRequest) {
  let query = liveWatchers(db, scope)
  if (filters.status) query = query.where('status', '=', filters.status)
  return selectPage(query, pageReq, (q) => q.selectAll())
}

/**
 * Counts the account's watchers that are not deleted, after locking the account's row: two
 * creations racing for the last free place then count one after the other, so the limit holds.
 * FOR NO KEY UPDATE, not FOR UPDATE: every insert of a row referencing the account holds its row
 * FOR KEY SHARE, which FOR UPDATE waits for (and then blocks), so a watcher would wait for every
 * write of the account in progress.
 */
export async function countWatchersLocked(tx: Executor, accountId: string): Promise<number> {
  await tx.selectFrom('accounts').select('id').where('id', '=', accountId).forNoKeyUpdate().executeTakeFirst()
  const row = await tx.selectFrom('watchers').select((eb) => eb.fn.countAll<string>().as('count')).where('account_id', '=', accountId).where('deleted_at', 'is', null).executeTakeFirstOrThrow()
  return Number(row.count)
}

export async function insertWatcher(tx: Executor, row: Insertable<WatchersTable>): Promise<WatcherRow> {
  return tx.insertInto('watchers').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function updateWatcher(tx: Executor, id: string, values: Updateable<WatchersTable>): Promise<WatcherRow> {
  return tx.updateTable('watchers').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

/**
 * Points the queued delivery jobs of a watcher at a new destination: where they will really go
 * after a URL change, or none (null) for a watcher deleted or disabled, whose jobs only fail unsent.
 */
export async function retargetQueuedDeliveries(tx: Executor, watcherId: string, destination: string | null): Promise<void> {
  await sql`
    update jobs set destination = ${destination}
    where name = 'webhook.deliver' and status in ('pending', 'running')
      and (payload->>'delivery_id')::uuid in (select id from watcher_deliveries where watcher_id = ${watcherId} and status = 'pending')`.execute(tx)
}

/** The coverage period a filter names, if the caller sees it, with its group. */
export async function coveragePeriodInScope(db: Executor, scope: AccountScope, id: string) {
  let query = db.selectFrom('coverage_periods').select(['id', 'group_id', 'account_id']).where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}

export async function groupInScope(db: Executor, scope: AccountScope, id: string) {
  let query = db.selectFrom('groups').select(['id', 'account_id']).where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.executeTakeFirst()
}
