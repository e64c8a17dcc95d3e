import type { Insertable, Selectable, Updateable } from 'kysely'
import { selectPage } from '../../db/paging.js'
import type { Executor, WatcherDeliveriesTable, WatcherDeliveryAttemptsTable } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import type { AccountScope } from '../../lib/actor.js'

export type DeliveryRow = Selectable<WatcherDeliveriesTable>
export type AttemptRow = Selectable<WatcherDeliveryAttemptsTable>

export async function listDeliveries(db: Executor, watcherId: string, filters: { status?: DeliveryRow['status'] | undefined }, pageReq: PageRequest) {
  let query = db.selectFrom('watcher_deliveries').where('watcher_id', '=', watcherId)
  if (filters.status) query = query.where('status', '=', filters.status)
  return selectPage(query, pageReq, (q) => q.selectAll(), 'desc')
}

/** The attempts of several deliveries in one query, oldest first. */
export async function attemptsOf(db: Executor, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return []
  return db.selectFrom('watcher_delivery_attempts').selectAll().where('delivery_id', 'in', [...deliveryIds]).orderBy('delivery_id').orderBy('attempt').execute()
}

/** A delivery in scope whose watcher is not deleted (a deleted watcher's deliveries answer 404 like it). */
function deliveriesInScope(db: Executor, scope: AccountScope) {
  let query = db
    .selectFrom('watcher_deliveries')
    .innerJoin('watchers', 'watchers.id', 'watcher_deliveries.watcher_id')
    .where('watchers.deleted_at', 'is', null)
  if (scope) query = query.where('watcher_deliveries.account_id', '=', scope)
  return query
}

export async function findDelivery(db: Executor, scope: AccountScope, id: string): Promise<DeliveryRow | undefined> {
  return deliveriesInScope(db, scope).selectAll('watcher_deliveries').where('watcher_deliveries.id', '=', id).executeTakeFirst()
}

/** Row-locked with its watcher's status, so two retries of one delivery queue one attempt. */
export async function findDeliveryForUpdate(tx: Executor, scope: AccountScope, id: string) {
  return deliveriesInScope(tx, scope)
    .selectAll('watcher_deliveries')
    .select(['watchers.status as watcher_status', 'watchers.url'])
    .where('watcher_deliveries.id', '=', id)
    .forUpdate('watcher_deliveries')
    .executeTakeFirst()
}

/** What an attempt needs: the delivery, and where and with which secrets to send it. */
export async function deliveryTarget(db: Executor, id: string) {
  return db
    .selectFrom('watcher_deliveries')
    .innerJoin('watchers', 'watchers.id', 'watcher_deliveries.watcher_id')
    .select([
      'watcher_deliveries.id',
      'watcher_deliveries.account_id',
      'watcher_deliveries.watcher_id',
      'watcher_deliveries.payload',
      'watcher_deliveries.status',
      'watcher_deliveries.attempts',
      'watchers.url',
      'watchers.secret',
      'watchers.previous_secret',
      'watchers.previous_secret_expires_at',
      'watchers.status as watcher_status',
      'watchers.disabled_reason',
      'watchers.deleted_at as watcher_deleted_at',
    ])
    .where('watcher_deliveries.id', '=', id)
    .executeTakeFirst()
}

export type DeliveryTarget = NonNullable<Awaited<ReturnType<typeof deliveryTarget>>>

export async function lockDelivery(tx: Executor, id: string) {
  return tx.selectFrom('watcher_deliveries').select(['status', 'attempts']).where('id', '=', id).forUpdate().executeTakeFirst()
}

export async function updateDelivery(tx: Executor, id: string, values: Updateable<WatcherDeliveriesTable>): Promise<DeliveryRow> {
  return tx.updateTable('watcher_deliveries').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
}

export async function insertAttempt(tx: Executor, row: Insertable<WatcherDeliveryAttemptsTable>): Promise<void> {
  await tx.insertInto('watcher_delivery_attempts').values(row).execute()
}

/**
 * Disables an active watcher (its receiver answered 410 Gone). Answers the watcher's account when
 * this call changed it, undefined when it was already disabled or deleted.
 */
export async function disableWatcher(tx: Executor, watcherId: string, reason: string, at: Date): Promise<string | undefined> {
  const row = await tx
    .updateTable('watchers')
    .set({ status: 'disabled', disabled_reason: reason, updated_at: at })
    .where('id', '=', watcherId)
    .where('status', '=', 'active')
    .where('deleted_at', 'is', null)
    .returning('account_id')
    .executeTakeFirst()
  return row?.account_id
}
