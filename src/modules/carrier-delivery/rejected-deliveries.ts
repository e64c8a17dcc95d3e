import type { AcknowledgementStatus, Executor } from '../../db/schema.js'
import { refreshFamilyStatuses } from '../member-management/family-status.js'
import { enqueueJob } from '../../jobs/outbox.js'
import { UNDO_REJECTED_DELIVERY_JOB } from './carrier-delivery.jobs.js'
import * as repo from './carrier-delivery.repo.js'
import { hasStagedViews, rollBackOverStaleBuild, rollBackViews } from './carrier-views.repo.js'

/**
 * What follows a carrier's verdict on an 834 (api-contract.md section 10, "Acknowledgements";
 * docs/decisions.md, "A rejected file"). The carrier's view takes a file when it is sent, before
 * any TA1 or 999: a rejection (a TA1 rejecting the interchange, a 999 rejecting its group) undoes
 * that, so the next change file of each family tells the carrier again what it did not take, and
 * an operator may send all of it again at once (carrier-delivery.service.ts, resend).
 */

/** The part of a delivery these steps read. */
export interface JudgedDelivery {
  id: string
  kind: 'full' | 'change'
  coverage_period_id: string
}

/**
 * The carrier rejected the delivery: the members it told are back to what the carrier held
 * before (carrier-views.repo.ts, rollBackViews), its transactions end in `errors` and the
 * families' statuses follow. A delivery not settled yet (its views still staged) is undone by its
 * settle, which takes the views first and then comes here. A second call changes nothing. A change file whose priors are gone (sent
 * before they were kept, or a month ago) cannot be rolled back: its resend sends a full file.
 */
export async function undoRejectedDelivery(tx: Executor, delivery: JudgedDelivery, now: Date): Promise<void> {
  if (await hasStagedViews(tx, delivery.id)) return
  await repo.lockCarrierViews(tx, delivery.coverage_period_id)
  // Once only: later files may have built on the rolled-back views since.
  if (!(await repo.markViewsRolledBack(tx, delivery.id, now))) return
  // Families whose view also moved back because a later file built on this one need nothing
  // more: their next change file tells the carrier all of it.
  await rollBackViews(tx, delivery)
  await repo.markTransactionsRejected(tx, delivery.id, now)
  await refreshFamilyStatuses(tx, { fileDeliveryId: delivery.id }, now)
}

/**
 * What the carrier's verdict on a delivery changes here, in the transaction that recorded it (the
 * acknowledgements module's receiver): a rejection is undone by a job of its own (a full file's
 * rollback rewrites every family of the group); until it has run, the resend answers that the
 * rejection is still being applied. An acceptance changes nothing: the views stand, and their
 * priors are kept a month all the same (a rejecting 999 may still follow, and the latest answer
 * wins). A verdict matched before the delivery settled is followed by the settle itself.
 */
export async function followVerdict(tx: Executor, delivery: JudgedDelivery, status: AcknowledgementStatus | null): Promise<void> {
  if (status === 'rejected') await enqueueJob(tx, UNDO_REJECTED_DELIVERY_JOB, { file_delivery_id: delivery.id })
}

/**
 * In a change delivery's settle, right after its views are taken (the caller holds the carrier
 * views' lock): files rolled back by a rejection its build could not see had told it their
 * members' views, so what it told them is a difference to a state the carrier never took; those
 * members go back to what the carrier held before the rejected files, and the next file tells them
 * again.
 */
export async function undoStaleBuild(tx: Executor, delivery: JudgedDelivery): Promise<void> {
  if (delivery.kind !== 'change') return
  const unseen = await repo.rollbacksUnseenByBuild(tx, delivery)
  if (unseen.length > 0) await rollBackOverStaleBuild(tx, delivery, unseen)
}
