import { sql, type Selectable, type Updateable } from 'kysely'
import { selectPage } from '../../db/paging.js'
import { prepare } from '../../db/prepared.js'
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

// The statements every delivery attempt runs (a burst runs them for each batch of attempts) are
// prepared: built and compiled once, and on PostgreSQL parsed and planned once per connection
// (see `prepare`). Ids go as one array parameter, so a batch of any size is the same statement.

const targetsById = prepare<DeliveryTarget, [ids: string[]]>(1, (db, [ids]) => targets(db).where(sql<boolean>`watcher_deliveries.id = any(${ids}::uuid[])`))

/** deliveryTarget for several deliveries in one query, by id (a delivery gone is missing). */
export async function deliveryTargets(db: Executor, ids: readonly string[]): Promise<Map<string, DeliveryTarget>> {
  if (ids.length === 0) return new Map()
  const rows = await targetsById(db, [...new Set(ids)])
  return new Map(rows.map((row) => [row.id, row]))
}

const lockById = prepare<Pick<DeliveryRow, 'id' | 'status' | 'attempts'>, [ids: string[]]>(1, (db, [ids]) =>
  db.selectFrom('watcher_deliveries').select(['id', 'status', 'attempts']).where(sql<boolean>`id = any(${ids}::uuid[])`).orderBy('id').forUpdate(),
)

/** Row-locks several deliveries, in id order (so two writers cannot deadlock), with their state. */
export async function lockDeliveries(tx: Executor, ids: readonly string[]) {
  if (ids.length === 0) return []
  return lockById(tx, [...new Set(ids)])
}

export interface DeliveryUpdate {
  id: string
  attempts: number
  status: DeliveryRow['status']
  last_status_code: number | null
  last_error: string | null
  next_attempt_at: Date | null
}

const updateFromArrays = prepare<never, [now: Date, ids: string[], attempts: number[], statuses: string[], codes: (number | null)[], errors: (string | null)[], nextAt: (string | null)[]]>(
  7,
  (db, [now, ids, attempts, statuses, codes, errors, nextAt]) => ({
    compile: () =>
      sql<never>`
    update watcher_deliveries d set
      attempts = v.attempts, status = v.status, last_status_code = v.last_status_code, last_error = v.last_error,
      next_attempt_at = v.next_attempt_at, updated_at = ${now}::timestamptz,
      delivered_at = case when v.status = 'succeeded' then ${now}::timestamptz else d.delivered_at end
    from unnest(${ids}::uuid[], ${attempts}::int[], ${statuses}::text[], ${codes}::int[], ${errors}::text[], ${nextAt}::timestamptz[])
      as v(id, attempts, status, last_status_code, last_error, next_attempt_at)
    where d.id = v.id`.compile(db),
  }),
)

/**
 * Records attempts' consequences on their deliveries in one statement (columns as arrays): the
 * attempt count, the status, the last answer, and for a success the time it was delivered.
 */
export async function updateDeliveries(tx: Executor, updates: readonly DeliveryUpdate[], now: Date): Promise<void> {
  if (updates.length === 0) return
  const iso = (date: Date | null) => (date ? date.toISOString() : null)
  await updateFromArrays(
    tx,
    now,
    updates.map((u) => u.id),
    updates.map((u) => u.attempts),
    updates.map((u) => u.status),
    updates.map((u) => u.last_status_code),
    updates.map((u) => u.last_error),
    updates.map((u) => iso(u.next_attempt_at)),
  )
}

const insertFromArrays = prepare<never, [ids: string[], deliveryIds: string[], attempts: number[], startedAt: string[], durations: number[], codes: (number | null)[], errors: (string | null)[], outcomes: string[]]>(
  8,
  (db, [ids, deliveryIds, attempts, startedAt, durations, codes, errors, outcomes]) => ({
    compile: () =>
      sql<never>`
    insert into watcher_delivery_attempts (id, delivery_id, attempt, started_at, duration_ms, status_code, error, outcome)
    select * from unnest(${ids}::uuid[], ${deliveryIds}::uuid[], ${attempts}::int[], ${startedAt}::timestamptz[], ${durations}::int[],
      ${codes}::int[], ${errors}::text[], ${outcomes}::text[])`.compile(db),
  }),
)

export type NewAttempt = Omit<AttemptRow, 'started_at'> & { started_at: Date }

/** Attempt rows, any number in one statement (columns as arrays). */
export async function insertAttempts(tx: Executor, rows: readonly NewAttempt[]): Promise<void> {
  if (rows.length === 0) return
  const iso = (date: Date) => date.toISOString()
  await insertFromArrays(
    tx,
    rows.map((r) => r.id),
    rows.map((r) => r.delivery_id),
    rows.map((r) => r.attempt),
    rows.map((r) => iso(r.started_at)),
    rows.map((r) => r.duration_ms),
    rows.map((r) => r.status_code),
    rows.map((r) => r.error),
    rows.map((r) => r.outcome),
  )
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
