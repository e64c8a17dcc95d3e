import type { Db } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { enqueueJob } from '../../jobs/outbox.js'
import { accountScopeOf, type Actor } from '../../lib/actor.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { orderedPayload, WEBHOOK_DELIVERY_JOB, type EventType } from '../events/events.js'
import * as repo from './watcher-deliveries.repo.js'
import { deliveryNotFound, deliveryPending, watcherDisabled, watcherNotFound } from './watchers.errors.js'
import { findWatcher } from './watchers.repo.js'
import { deliveryFairness } from './webhook-delivery.job.js'
import type { Delivery } from './watchers.schema.js'

export function presentDelivery(row: repo.DeliveryRow, attempts: readonly repo.AttemptRow[]): Delivery {
  return {
    id: row.id,
    watcher_id: row.watcher_id,
    event_id: row.event_id,
    event_type: row.event_type as EventType,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    delivered_at: row.delivered_at?.toISOString() ?? null,
    payload: orderedPayload(row.payload),
    attempt_history: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: attempt.started_at.toISOString(),
      duration_ms: attempt.duration_ms,
      status_code: attempt.status_code,
      error: attempt.error,
      outcome: attempt.outcome,
    })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

export function createWatcherDeliveriesService({ db }: { db: Db }) {
  async function withAttempts(rows: readonly repo.DeliveryRow[]): Promise<Delivery[]> {
    const attempts = await repo.attemptsOf(db, rows.map((row) => row.id))
    return rows.map((row) => presentDelivery(row, attempts.filter((attempt) => attempt.delivery_id === row.id)))
  }

  return {
    async listDeliveries(actor: Actor, watcherId: string, filters: { status?: repo.DeliveryRow['status'] | undefined }, pageReq: PageRequest) {
      const watcher = await findWatcher(db, accountScopeOf(actor), watcherId)
      if (!watcher) throw watcherNotFound()
      const { items, total } = await repo.listDeliveries(db, watcher.id, filters, pageReq)
      return { items: await withAttempts(items), total }
    },

    async getDelivery(actor: Actor, id: string): Promise<Delivery> {
      const row = await repo.findDelivery(db, accountScopeOf(actor), id)
      if (!row) throw deliveryNotFound()
      const [delivery] = await withAttempts([row])
      return delivery!
    },

    /**
     * Queues one more attempt of a finished delivery (failed, or succeeded and wanted again), right
     * away and outside the retry schedule: if it fails, the delivery is failed again. Same
     * webhook-id as before, so a receiver that already has it can drop it.
     */
    async retryDelivery(actor: Actor, id: string): Promise<Delivery> {
      const row = await db.transaction().execute(async (tx) => {
        const locked = await repo.findDeliveryForUpdate(tx, accountScopeOf(actor), id)
        if (!locked) throw deliveryNotFound()
        if (locked.status === 'pending') throw deliveryPending()
        if (locked.watcher_status !== 'active') throw watcherDisabled()
        const now = new Date()
        const updated = await repo.updateDelivery(tx, id, { status: 'pending', next_attempt_at: now, updated_at: now })
        // No destination: a retry asked for by hand goes even while the receiver is backed off (a
        // probe of its own; an answer lifts the block), and is one job, so no cap is needed.
        const fairness = { ...deliveryFairness(locked), destination: null }
        await enqueueJob(tx, WEBHOOK_DELIVERY_JOB, { delivery_id: id, attempt: locked.attempts + 1, manual: true }, { runAt: now, fairness })
        await recordAuditEvent(tx, actor, { accountId: locked.account_id, action: 'watcher_delivery.retried', resourceType: 'watcher_delivery', resourceId: id })
        return updated
      })
      const [delivery] = await withAttempts([row])
      return delivery!
    },
  }
}

export type WatcherDeliveriesService = ReturnType<typeof createWatcherDeliveriesService>
