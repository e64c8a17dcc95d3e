import type { Transaction } from 'kysely'
import type { Database, TransactionKind } from '../../db/schema.js'
import type { Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import { recordAuditEvents } from '../audit/audit.repo.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { scheduleTransactionDelivery } from '../carrier-delivery/index.js'
import { refreshFamilyStatuses } from './family-status.js'
import { todayUtc } from '../../lib/clock.js'

/** A member change that may have to reach the carrier. */
export interface MemberChange {
  subscriberId: string
  memberId: string
  kind: TransactionKind
  qualifyingLifeEventId?: string
  /**
   * A life event concerns the coverage periods whose carrier it changes something for (the
   * coverage timeline says which); a change of member data every period it is in effect for.
   */
  coveragePeriodIds?: readonly string[]
}

/** Called by the members and life-events services inside the transaction of the change. */
export type RecordMemberChanges = (tx: Transaction<Database>, actor: Actor, groupId: string, changes: readonly MemberChange[], now: Date) => Promise<void>

export const IGNORE_MEMBER_CHANGES: RecordMemberChanges = async () => {}

/**
 * Every change becomes a transaction per coverage period it reaches (api-contract.md section 10):
 * a period in `test` or `production` (its group was sent to the carrier) whose carrier takes member
 * changes; a life event reaches the periods its timeline change concerns, a change of member data
 * the periods in effect today or starting later (an expired period receives nothing). The
 * family's status becomes pending and a delivery is scheduled after `batchDelayMs`, so changes
 * made together travel in one file. Before its group is sent a period records nothing: the full
 * file carries the data.
 */
export function createMemberChangeRecorder(deps: { carriers: CarrierCatalog; batchDelayMs: number }): RecordMemberChanges {
  return async (tx, actor, groupId, changes, now) => {
    if (changes.length === 0) return
    const group = await tx.selectFrom('groups').select(['account_id']).where('id', '=', groupId).executeTakeFirst()
    if (!group) return
    const today = todayUtc(now)
    const sent = (
      await tx
        .selectFrom('coverage_periods')
        .select(['id', 'carrier_name', 'coverage_end_date'])
        .where('group_id', '=', groupId)
        .where('state', 'in', ['test', 'production'])
        .execute()
    ).filter((cp) => deps.carriers.find(cp.carrier_name)?.member_management)
    if (sent.length === 0) return
    const sentIds = new Set(sent.map((cp) => cp.id))
    const inEffect = sent.filter((cp) => cp.coverage_end_date === null || cp.coverage_end_date >= today).map((cp) => cp.id)

    const rows = changes.flatMap((change) => {
      const targets = change.coveragePeriodIds ? change.coveragePeriodIds.filter((id) => sentIds.has(id)) : inEffect
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
