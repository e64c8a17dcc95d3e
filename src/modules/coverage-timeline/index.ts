import type { Transaction } from 'kysely'
import type { Database } from '../../db/schema.js'
import { ELECTION_KEYS, type LifeEventInput } from '../life-events/life-events.schema.js'
import { applyEvent, changedCoveragePeriods, firstDifference, levelSpans, unlevel, type FamilyShape, type PeriodDates } from './coverage-timeline.model.js'
import { familySpans, replaceFamilySpans } from './coverage-timeline.repo.js'

/**
 * The coverage timeline's front door (api-contract.md section 10): what a life event does to its
 * family's coverage over time, and reading it back (coverage-timeline.routes.ts).
 */

export { coverageTimelineRoutes } from './coverage-timeline.routes.js'
export { createCoverageTimelineService, type CoverageTimelineService } from './coverage-timeline.service.js'

/**
 * Locks the family (its subscriber's row) for a timeline change: two events of one family are
 * applied one after the other. Taken first in the transaction (see applyToTimeline).
 */
export async function lockFamily(tx: Transaction<Database>, subscriberId: string): Promise<void> {
  await tx.selectFrom('members').select('id').where('id', '=', subscriberId).forUpdate().execute()
}

export interface TimelineChange {
  /** The first date the event changes anything, or null when it changes nothing. */
  effectiveFrom: string | null
  /** The coverage periods whose carrier has something to be told. */
  changedCoveragePeriodIds: string[]
}

/**
 * Applies a new life event to its family's timeline, inside the event's transaction, which must
 * have taken lockFamily first: two events of one family are then applied one after the other,
 * never both against the same "before". `check` runs before anything is written and may throw.
 */
export async function applyToTimeline(
  tx: Transaction<Database>,
  event: {
    accountId: string
    subscriberId: string
    groupId: string
    dependents: readonly { id: string; subscriber_relationship: string | null }[]
    eventId: string
    coveragePeriodId: string
    /** The last day of the event's coverage period (null: open). */
    periodEndDate: string | null
    /** Its first day. */
    periodStartDate: string
    input: LifeEventInput
    now: Date
  },
  check: (change: TimelineChange) => void,
): Promise<TimelineChange> {
  const family: FamilyShape = { subscriberId: event.subscriberId, relationships: new Map(event.dependents.map((d) => [d.id, d.subscriber_relationship])) }
  const stored = await familySpans(tx, event.subscriberId)
  // What is stored, as the rules would level it now (spans migrated from before coverage over
  // time carry their start's level only): differences are measured from this.
  const before = levelSpans(unlevel(stored), family)
  const elections = ELECTION_KEYS.flatMap((key) => {
    const election = event.input.plan_elections[key]
    if (!election || election.type !== 'election') return []
    const coverages = (election.coverages ?? []).map((coverage) => ({
      memberId: coverage.member_id,
      planId: election.plan_id!,
      coveragePeriodId: event.coveragePeriodId,
      startDate: coverage.start_date,
      endDate: coverage.end_date ?? null,
      status: coverage.status,
      volume: coverage.volume ?? null,
    }))
    return [{ line: key, coverages }]
  })
  const waivedLines = ELECTION_KEYS.filter((key) => event.input.plan_elections[key]?.type === 'waiver')
  const after = levelSpans(
    applyEvent(unlevel(before), family, {
      qualifyingLifeEventId: event.eventId,
      coveragePeriodId: event.coveragePeriodId,
      periodStartDate: event.periodStartDate,
      periodEndDate: event.periodEndDate,
      eligibilityStartDate: event.input.eligibility_start_date,
      elections,
      waivedLines,
    }),
    family,
  )
  const periods = await tx
    .selectFrom('coverage_periods')
    .select(['id', 'coverage_start_date', 'coverage_end_date'])
    .where('group_id', '=', event.groupId)
    .execute()
  const dates = new Map<string, PeriodDates>(periods.map((p) => [p.id, { startDate: p.coverage_start_date, endDate: p.coverage_end_date }]))
  const change: TimelineChange = { effectiveFrom: firstDifference(before, after), changedCoveragePeriodIds: changedCoveragePeriods(before, after, dates) }
  check(change)
  await replaceFamilySpans(tx, { accountId: event.accountId, subscriberId: event.subscriberId, eventId: event.eventId, now: event.now }, stored, after)
  return change
}
