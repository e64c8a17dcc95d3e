import type { AcknowledgementStatus, Executor } from '../../db/schema.js'
import { refreshFamilyStatuses } from '../member-management/family-status.js'
import * as repo from './carrier-delivery.repo.js'
import { forgetPriors, hasStagedViews, rollBackViews } from './carrier-views.repo.js'

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
 * settle, which takes the views first and then comes here. Called in the transaction that
 * recorded the rejection; a second call changes nothing.
 */
export async function undoRejectedDelivery(tx: Executor, delivery: JudgedDelivery, now: Date): Promise<void> {
  if (await hasStagedViews(tx, delivery.id)) return
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
 * acknowledgements module's receiver) or in the delivery's settle when the verdict came first:
 * a rejection is undone; an acceptance (with or without errors) lets the views stand, so what
 * they were before is forgotten. Other verdicts (awaited, overdue) change nothing.
 */
export async function followVerdict(tx: Executor, delivery: JudgedDelivery, status: AcknowledgementStatus | null, now: Date): Promise<void> {
  if (status === 'rejected') await undoRejectedDelivery(tx, delivery, now)
  else if (status === 'accepted' || status === 'accepted_with_errors') await forgetPriors(tx, delivery.id)
}
