import type { Executor } from '../../db/schema.js'
import { emitEvent, type DomainEvent, type EventType } from '../events/events.js'
import type { ErrorRow } from './errors.repo.js'

export type ErrorFacts = Pick<
  ErrorRow,
  'id' | 'account_id' | 'coverage_period_id' | 'group_id' | 'member_id' | 'plan_id' | 'discrepancy_parameter' | 'discrepancy_kind' | 'severity' | 'source' | 'status' | 'assignee'
>

/**
 * An error event as watchers receive it: ids, types, statuses and the assignee, never the
 * discrepancy's values (they may be an SSN or a birth date) nor messages or emails.
 */
export async function emitErrorEvent(
  tx: Executor,
  type: Extract<EventType, `error.${string}`>,
  error: ErrorFacts,
  extra: DomainEvent['data'] = {},
  now: Date = new Date(),
): Promise<void> {
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
        ...extra,
      },
    },
    now,
  )
}
