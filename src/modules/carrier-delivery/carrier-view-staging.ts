import { sql } from 'kysely'
import type { Executor } from '../../db/schema.js'
import type { CarrierMemberView } from './edi-834-members.js'

/**
 * A delivery's carrier views between its build and its send (carrier_view_batches): written with
 * its content, taken into carrier_views once the carrier has the file (delivery-sent.ts), dropped
 * if it never gets there (send-file.ts). Staged as JSON documents of many members each, so a full
 * file's 125,000 views are a few hundred rows to write while the file waits, not 125,000.
 */

/** One member's view as staged: short keys, since a full file stages some 40 MB of them. */
interface StagedView {
  /** member id */
  m: string
  /** subscriber id */
  s: string
  /** CarrierRecord[] */
  r: unknown
  /** member digest */
  d: string
}

/** Stages views of a delivery as document `seq` (numbered from 0 by the caller). */
export async function stageViews(db: Executor, deliveryId: string, seq: number, views: readonly CarrierMemberView[]): Promise<void> {
  const staged: StagedView[] = views.map((v) => ({ m: v.memberId, s: v.subscriberId, r: v.records, d: v.digest }))
  await db.insertInto('carrier_view_batches').values({ file_delivery_id: deliveryId, seq, views: JSON.stringify(staged) }).execute()
}

/** Whether the delivery still has views the carrier's view has not taken. */
export async function hasStagedViews(db: Executor, deliveryId: string): Promise<boolean> {
  const row = await db.selectFrom('carrier_view_batches').select('seq').where('file_delivery_id', '=', deliveryId).limit(1).executeTakeFirst()
  return row !== undefined
}

/** The staged views of a delivery as rows (member_id, subscriber_id, records, member_digest), for SQL that takes them. */
export const stagedViewRows = (deliveryId: string) => sql`
  SELECT v.m AS member_id, v.s AS subscriber_id, v.r AS records, v.d AS member_digest
    FROM carrier_view_batches b
   CROSS JOIN LATERAL json_to_recordset(b.views::json) AS v(m uuid, s uuid, r text, d text)
   WHERE b.file_delivery_id = ${deliveryId}`

/** Forgets what a delivery staged: taken, or never to be. */
export async function dropStagedViews(db: Executor, deliveryId: string): Promise<void> {
  await db.deleteFrom('carrier_view_batches').where('file_delivery_id', '=', deliveryId).execute()
}
