import { sql, type Insertable, type Selectable, type Updateable } from 'kysely'
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
function targets(db: Executor) {
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
}

export async function deliveryTarget(db: Executor, id: string) {
  return targets(db).where('watcher_deliveries.id', '=', id).executeTakeFirst()
}

export type DeliveryTarget = NonNullable<Awaited<ReturnType<typeof deliveryTarget>>>

/** deliveryTarget for several deliveries in one query, by id (a delivery gone is missing). */
export async function deliveryTargets(db: Executor, ids: readonly string[]): Promise<Map<string, DeliveryTarget>> {
  if (ids.length === 0) return new Map()
  const rows = await targets(db).where('watcher_deliveries.id', 'in', [...new Set(ids)]).execute()
  return new Map(rows.map((row) => [row.id, row]))
}

/** Row-locks several deliveries, in id order (so two writers cannot deadlock), with their state. */
export async function lockDeliveries(tx: Executor, ids: readonly string[]) {
  if (ids.length === 0) return []
  return tx.selectFrom('watcher_deliveries').select(['id', 'status', 'attempts']).where('id', 'in', [...new Set(ids)]).orderBy('id').forUpdate().execute()
}

export interface DeliveryUpdate {
  id: string
  attempts: number
  status: DeliveryRow['status']
  last_status_code: number | null
  last_error: string | null
  next_attempt_at: Date | null
}

/**
 * Records attempts' consequences on their deliveries in one statement (columns as arrays): the
 * attempt count, the status, the last answer, and for a success the time it was delivered.
 */
export async function updateDeliveries(tx: Executor, updates: readonly DeliveryUpdate[], now: Date): Promise<void> {
  if (updates.length === 0) return
  const iso = (date: Date | null) => (date ? date.toISOString() : null)
  await sql`
    update watcher_deliveries d set
      attempts = v.attempts, status = v.status, last_status_code = v.last_status_code, last_error = v.last_error,
      next_attempt_at = v.next_attempt_at, updated_at = ${now},
      delivered_at = case when v.status = 'succeeded' then ${now} else d.delivered_at end
    from unnest(
      ${updates.map((u) => u.id)}::uuid[], ${updates.map((u) => u.attempts)}::int[], ${updates.map((u) => u.status)}::text[],
      ${updates.map((u) => u.last_status_code)}::int[], ${updates.map((u) => u.last_error)}::text[],
      ${updates.map((u) => iso(u.next_attempt_at))}::timestamptz[]) as v(id, attempts, status, last_status_code, last_error, next_attempt_at)
    where d.id = v.id`.execute(tx)
}

export async function insertAttempts(tx: Executor, rows: readonly Insertable<WatcherDeliveryAttemptsTable>[]): Promise<void> {
  if (rows.length === 0) return
  await tx.insertInto('watcher_delivery_attempts').values([...rows]).execute()
}

export async function lockDelivery(tx: Executor, id: string) {
  return tx.selectFrom('watcher_deliveries').select(['status', 'attempts']).where('id', '=', id).forUpdate().executeTakeFirst()
}

export async function updateDelivery(tx: Executor, id: string, values: Updateable<WatcherDeliveriesTable>): Promise<DeliveryRow> {
  return tx.updateTable('watcher_deliveries').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
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
