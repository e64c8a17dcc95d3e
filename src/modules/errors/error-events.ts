import type { ErrorHistoryType, Executor } from '../../db/schema.js'
import { uuidv7 } from '../../lib/ids.js'
import { emitEvent, type DomainEvent, type EventType } from '../events/events.js'
import type { ErrorRow } from './errors.repo.js'

export type ErrorFacts = Pick<
  ErrorRow,
  'id' | 'account_id' | 'coverage_period_id' | 'group_id' | 'member_id' | 'plan_id' | 'discrepancy_parameter' | 'discrepancy_kind' | 'severity' | 'source' | 'status' | 'assignee'
> & { assigned_user_id?: string | null }

/**
 * The entry of the error's history (GET /errors/{id}/history) an event stands for: who did it as
 * a person reads it (an email, an API key's name, "reconciliation"; null for the service's own
 * checks) and their party, with what the change was about.
 */
export interface HistoryEntry {
  type: ErrorHistoryType
  actor: string | null
  party: 'partner' | 'service' | null
  userId?: string | null
  commentId?: string | null
  fromStatus?: string | null
}

/**
 * An error event as watchers receive it: ids, types, statuses and the assignee, never the
 * discrepancy's values (they may be an SSN or a birth date) nor messages or emails. The error's
 * history records the same change beside it, in the same transaction: `history` says how (null
 * for an event the history already shows another way, such as the comment of a return).
 */
export async function emitErrorEvent(
  tx: Executor,
  type: Extract<EventType, `error.${string}`>,
  error: ErrorFacts,
  extra: DomainEvent['data'],
  now: Date,
  history: HistoryEntry | null,
): Promise<void> {
  if (history) await recordErrorHistory(tx, error, history, now)
  await emitEvent(
    tx,
    {
      type,
      accountId: error.account_id,
      coveragePeriodId: error.coverage_period_id,
      groupId: error.group_id,
      data: {
        error_id: error.id,
        coverage_period_id: error.coverage_period_id,
        group_id: error.group_id,
        member_id: error.member_id,
        plan_id: error.plan_id,
        parameter: error.discrepancy_parameter,
        kind: error.discrepancy_kind,
        severity: error.severity,
        source: error.source,
        status: error.status,
        assignee: error.assignee,
        assigned_user_id: error.assigned_user_id ?? null,
        ...extra,
      },
    },
    now,
  )
}

async function recordErrorHistory(tx: Executor, error: ErrorFacts, entry: HistoryEntry, now: Date): Promise<void> {
  await tx
    .insertInto('error_history')
    .values({
      id: uuidv7(),
      error_id: error.id,
      account_id: error.account_id,
      type: entry.type,
      actor: entry.actor,
      party: entry.party,
      user_id: entry.userId ?? null,
      comment_id: entry.commentId ?? null,
      assigned_user_id: error.assigned_user_id ?? null,
      from_status: entry.fromStatus ?? null,
      to_status: error.status,
      assignee: error.assignee,
      created_at: now,
    })
    .execute()
}
