import type { Transaction } from 'kysely'
import type { Database, TransactionKind } from '../../db/schema.js'
import type { Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import { recordAuditEvents } from '../audit/audit.repo.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { scheduleTransactionDelivery } from '../carrier-delivery/carrier-jobs.js'
import { refreshFamilyStatuses } from './family-status.js'

/** A member change that may have to reach the carrier. */
export interface MemberChange {
  subscriberId: string
  memberId: string
  kind: TransactionKind
  qualifyingLifeEventId?: string
  /** A life event concerns its own coverage period only; other changes every installed one. */
  coveragePeriodId?: string
}

/** Called by the members and life-events services inside the transaction of the change. */
export type RecordMemberChanges = (tx: Transaction<Database>, actor: Actor, groupId: string, changes: readonly MemberChange[], now: Date) => Promise<void>

export const IGNORE_MEMBER_CHANGES: RecordMemberChanges = async () => {}

/**
 * In the member management phase, every change becomes a transaction per installed coverage
 * period whose carrier takes member changes (state production, carrier member_management);
 * the family's status becomes pending and a delivery is scheduled after `batchDelayMs`, so
 * changes made together travel in one file. Before that phase (installation) nothing is
 * recorded: the installation's full file carries the data.
 */
export function createMemberChangeRecorder(deps: { carriers: CarrierCatalog; batchDelayMs: number }): RecordMemberChanges {
  return async (tx, actor, groupId, changes, now) => {
    if (changes.length === 0) return
    const group = await tx.selectFrom('groups').select(['account_id', 'phase']).where('id', '=', groupId).executeTakeFirst()
    if (!group || group.phase !== 'member_management') return
    const installed = (
      await tx.selectFrom('coverage_periods').select(['id', 'carrier_name']).where('group_id', '=', groupId).where('state', '=', 'production').execute()
    ).filter((cp) => deps.carriers.find(cp.carrier_name)?.member_management)
    if (installed.length === 0) return
    const installedIds = new Set(installed.map((cp) => cp.id))

    const rows = changes.flatMap((change) => {
      const targets = change.coveragePeriodId ? (installedIds.has(change.coveragePeriodId) ? [change.coveragePeriodId] : []) : [...installedIds]
      return targets.map((coveragePeriodId) => ({
        id: uuidv7(),
        account_id: group.account_id,
        coverage_period_id: coveragePeriodId,
        group_id: groupId,
        subscriber_id: change.subscriberId,
        member_id: change.memberId,
        kind: change.kind,
        qualifying_life_event_id: change.qualifyingLifeEventId ?? null,
        file_delivery_id: null,
        created_at: now,
        submitted_at: null,
        completed_at: null,
        updated_at: now,
      }))
    })
    if (rows.length === 0) return
    for (let start = 0; start < rows.length; start += 1000) await tx.insertInto('member_transactions').values(rows.slice(start, start + 1000)).execute()
    await recordAuditEvents(
      tx,
      actor,
      rows.map((row) => ({ accountId: group.account_id, action: 'member_transaction.created', resourceType: 'member_transaction', resourceId: row.id })),
    )
    await refreshFamilyStatuses(tx, rows.map((row) => ({ subscriberId: row.subscriber_id, coveragePeriodId: row.coverage_period_id })), now)
    for (const coveragePeriodId of new Set(rows.map((row) => row.coverage_period_id))) {
      await scheduleTransactionDelivery(tx, coveragePeriodId, now, deps.batchDelayMs)
    }
  }
}
