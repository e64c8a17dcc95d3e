import type { FastifyBaseLogger } from 'fastify'
import type { Transaction } from 'kysely'
import type { AcknowledgementStatus, Database, Db, Executor } from '../../db/schema.js'
import { systemActor } from '../../lib/actor.js'
import { dedupeKeyOf, raiseErrors, resolveLockedErrors, type FoundDiscrepancy } from '../errors/raise-errors.js'
import { ACKNOWLEDGEMENT_RESOLVER } from './file-validation-errors.js'
import { lockDelivery, lockOpenErrorsByDedupeKey, overdueCandidates, setAcknowledgementStatus, transactionIdsOfDelivery, type FileDeliveryRow } from './acknowledgements.repo.js'

/**
 * A sent 834 file the carrier has not answered with a 999 within its acknowledgement_due_hours
 * becomes `overdue` and raises one error (api-contract.md section 10); the 999 arriving later moves
 * the status on and resolves that error (acknowledgements.receiver.ts).
 */

/** How often the general worker looks for overdue files: due hours are hours, a few minutes late is fine. */
export const OVERDUE_CHECK_EVERY_MS = 5 * 60_000
/** Files marked per carrier and run: the rest wait for the next poll, so one run stays short. */
const OVERDUE_BATCH = 200
/** An error links the file's transactions; a full file has one per family, so a sample is kept. */
const OVERDUE_TRANSACTION_IDS = 100

export const overdueSubject = (fileDeliveryId: string) => `acknowledgement_overdue:${fileDeliveryId}`

const overdueFinding = (fileDeliveryId: string) => ({ parameter: 'coverage', memberId: null, planId: null, subject: overdueSubject(fileDeliveryId) }) as const

export interface CarrierDue {
  carrierName: string
  dueHours: number
}

/** Marks the carrier's overdue files, each in a transaction of its own; answers the ids marked. */
export async function markOverdueDeliveries(db: Db, carriers: readonly CarrierDue[], now: Date): Promise<string[]> {
  const marked: string[] = []
  for (const { carrierName, dueHours } of carriers) {
    const cutoff = new Date(now.getTime() - dueHours * 3_600_000)
    const candidates = await overdueCandidates(db, carrierName, cutoff, OVERDUE_BATCH)
    for (const { id } of candidates) {
      const done = await db.transaction().execute(async (tx) => {
        // Locked like the receiver does, so a 999 stored meanwhile is either seen here or waits for this.
        const delivery = await lockDelivery(tx, id)
        if (!delivery || delivery.acknowledgement_status !== 'awaited' || !delivery.sent_at || delivery.sent_at > cutoff) return false
        await setAcknowledgementStatus(tx, id, 'overdue', now)
        await raiseOverdueError(tx, delivery, dueHours, now)
        return true
      })
      if (done) marked.push(id)
    }
  }
  return marked
}

async function raiseOverdueError(tx: Transaction<Database>, delivery: FileDeliveryRow, dueHours: number, now: Date): Promise<void> {
  const found: FoundDiscrepancy = {
    ...overdueFinding(delivery.id),
    kind: 'carrier_missing',
    assignee: 'service',
    transactionIds: await transactionIdsOfDelivery(tx, delivery.id, OVERDUE_TRANSACTION_IDS),
    // The file name is ours (kind, dates, control number): no member data.
    message:
      `The carrier has not acknowledged the 834 file ${delivery.file_name}: no 999 arrived within ${dueHours} hours of ` +
      `sending it. Check with the carrier that it received the file, or post its acknowledgement.`,
  }
  await raiseErrors(
    tx,
    systemActor(delivery.account_id),
    { accountId: delivery.account_id, coveragePeriodId: delivery.coverage_period_id, groupId: delivery.group_id, source: 'file_validation' },
    [found],
    now,
  )
}

/** Once the delivery's status moved past awaiting (a 999, or a rejecting TA1), its overdue error is moot. */
export async function resolveOverdueError(tx: Transaction<Database>, delivery: FileDeliveryRow, status: AcknowledgementStatus, now: Date): Promise<void> {
  if (status === 'awaited' || status === 'overdue') return
  const open = await openOverdueErrors(tx, delivery)
  if (open.length === 0) return
  await resolveLockedErrors(
    tx,
    systemActor(delivery.account_id),
    open,
    {
      message: `Resolved automatically: the carrier acknowledged ${delivery.file_name} (acknowledgement_status ${status}).`,
      resolvedBy: ACKNOWLEDGEMENT_RESOLVER,
      automatic: true,
    },
    now,
  )
}

function openOverdueErrors(db: Executor, delivery: Pick<FileDeliveryRow, 'id' | 'coverage_period_id'>) {
  return lockOpenErrorsByDedupeKey(db, delivery.coverage_period_id, dedupeKeyOf('file_validation', overdueFinding(delivery.id)))
}

export interface OverdueCheckOptions {
  /** The edi carriers and their due hours (acknowledgement_due_hours, default 24). */
  carriers: () => readonly CarrierDue[]
  /** The clock "now" is read from; tests pass their own. */
  clock?: () => Date
  everyMs?: number
  log?: FastifyBaseLogger
}

/**
 * The scheduled check behind overdue acknowledgements, on the general worker's polls
 * (src/main/workers.ts) at most every OVERDUE_CHECK_EVERY_MS, like the plan-year expiry. Any
 * number of workers may run it together: the delivery's row lock and the error's dedupe key make
 * each file overdue once and raise one error.
 */
export function createAcknowledgementOverdueCheck(db: Db, options: OverdueCheckOptions): () => Promise<void> {
  const clock = options.clock ?? (() => new Date())
  const everyMs = options.everyMs ?? OVERDUE_CHECK_EVERY_MS
  let lastRun: number | undefined
  return async () => {
    const now = clock()
    if (lastRun !== undefined && now.getTime() - lastRun < everyMs) return
    lastRun = now.getTime()
    const marked = await markOverdueDeliveries(db, options.carriers(), now)
    if (marked.length > 0) options.log?.warn({ overdue: marked.length, file_delivery_ids: marked }, '834 files overdue: no 999 acknowledgement within the carrier\'s due hours')
  }
}
