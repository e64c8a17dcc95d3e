import { IGNORE_MEMBER_CHANGES, type RecordMemberChanges } from '../member-management/member-transactions.js'
import type { Db } from '../../db/schema.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { applyToTimeline, lockFamily } from '../coverage-timeline/index.js'
import { isUniqueViolation } from '../../db/sql-errors.js'
import type { PageRequest } from '../../http/pagination.js'
import { accountScopeOf, type Actor } from '../../lib/actor.js'
import { maskSsnsInText } from '../../lib/free-text-masking.js'
import { uuidv7 } from '../../lib/ids.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { findCoveragePeriod, isFirstCoveragePeriodWithCarrier } from '../coverage-periods/coverage-periods.repo.js'
import { subscriberNotFound, dependentsOf, findMember, unstorableTextProblems, MARITAL_STATUS_AFTER } from '../members/index.js'
import { duplicateLifeEvent, lifeEventNotFound, lifeEventValidationFailed, retroactiveLimitExceeded } from './life-events.errors.js'
import { todayUtc } from '../../lib/clock.js'
import { addDays } from '../coverage-timeline/coverage-timeline.model.js'
import * as repo from './life-events.repo.js'
import { lifeEventProblems, type PlanFacts } from './life-events.rules.js'
import { ELECTION_KEYS, type Election, type ElectionKey, type LifeEventInput, type LifeEventView } from './life-events.schema.js'

/**
 * Rows hold only values the schema accepted, so text columns narrow to its enums. Elections are
 * keyed in the order of the contract's key list.
 */
export function presentLifeEvent(row: repo.LifeEventRow, elections: readonly repo.PlanElectionRow[], coverages: readonly repo.CoverageRow[]): LifeEventView {
  const byKey = new Map(elections.map((election) => [election.election_key, election]))
  const planElections: Record<string, Election> = {}
  for (const key of ELECTION_KEYS) {
    const election = byKey.get(key)
    if (!election) continue
    if (election.type === 'waiver') {
      planElections[key] = { id: election.id, type: 'waiver', waiver_signature_date: election.waiver_signature_date, waiver_reason: election.waiver_reason }
    } else {
      planElections[key] = {
        id: election.id,
        type: 'election',
        plan_id: election.plan_id!,
        coverages: coverages
          .filter((coverage) => coverage.plan_election_id === election.id)
          .map((coverage) => ({
            id: coverage.id,
            member_id: coverage.member_id,
            start_date: coverage.start_date,
            end_date: coverage.end_date,
            status: coverage.status,
            volume: coverage.volume === null ? null : Number(coverage.volume),
          })),
      }
    }
  }
  return {
    id: row.id,
    subscriber_id: row.subscriber_id,
    coverage_period_id: row.coverage_period_id,
    external_identifier: row.external_identifier,
    event: row.event as LifeEventView['event'],
    date: row.date,
    eligibility_start_date: row.eligibility_start_date,
    plan_elections: planElections,
    created_at: row.created_at.toISOString(),
  }
}

export function createLifeEventsService({
  db,
  carriers,
  recordMemberChanges = IGNORE_MEMBER_CHANGES,
}: {
  db: Db
  carriers: CarrierCatalog
  recordMemberChanges?: RecordMemberChanges
}) {
  async function present(rows: readonly repo.LifeEventRow[]): Promise<LifeEventView[]> {
    const { elections, coverages } = await repo.electionsOf(db, rows.map((row) => row.id))
    return rows.map((row) =>
      presentLifeEvent(
        row,
        elections.filter((election) => election.qualifying_life_event_id === row.id),
        coverages,
      ),
    )
  }

  async function requireSubscriber(actor: Actor, subscriberId: string) {
    const subscriber = await findMember(db, accountScopeOf(actor), subscriberId, 'subscriber')
    if (!subscriber) throw subscriberNotFound()
    return subscriber
  }

  return {
    /**
     * Validates everything first (the coverage period must be of the subscriber's group; plans of
     * that period fitting their key; covered members of the family; coverage within the period; a
     * birth's newborn), then, in one transaction with the family locked: writes the event, its
     * elections and coverages, applies it to the family's coverage timeline (refusing a change
     * beyond the carrier's retroactive limit), records an audit event and the member transactions
     * for the coverage periods whose carrier it changes something for (coverage, or for a marriage,
     * divorce or separation the subscriber's marital status: always its own period).
     */
    async createLifeEvent(actor: Actor, subscriberId: string, input: LifeEventInput): Promise<LifeEventView> {
      const subscriber = await requireSubscriber(actor, subscriberId)
      // Scoped to the subscriber's account: another account's coverage period is "not of this group".
      const coveragePeriod = await findCoveragePeriod(db, subscriber.account_id, input.coverage_period_id)
      if (!coveragePeriod || coveragePeriod.group_id !== subscriber.group_id) {
        throw lifeEventValidationFailed([
          { pointer: '/qualifying_life_event/coverage_period_id', detail: "is not a coverage period of the subscriber's group", code: 'not_in_group' },
        ])
      }
      const planIds = [...new Set(ELECTION_KEYS.flatMap((key) => input.plan_elections[key]?.plan_id ?? []))]
      const [dependents, plans] = await Promise.all([dependentsOf(db, [subscriber.id]), repo.plansOfCoveragePeriod(db, coveragePeriod.id, planIds)])
      const employment = subscriber.employment_details as { start_date?: string } | null
      const problems = unstorableTextProblems(input, '/qualifying_life_event')
      problems.push(
        ...lifeEventProblems(input, {
          setupCompleted: coveragePeriod.setup_completed_at !== null,
          renewal: !(await isFirstCoveragePeriodWithCarrier(db, coveragePeriod.group_id, coveragePeriod.carrier_name, coveragePeriod.id)),
          period: { startDate: coveragePeriod.coverage_start_date, endDate: coveragePeriod.coverage_end_date },
          birthDates: new Map(dependents.map((d) => [d.id, d.birth_date])),
          employmentStartDate: employment?.start_date,
          familyIds: new Set([subscriber.id, ...dependents.map((d) => d.id)]),
          plans: new Map<string, PlanFacts>(plans.map((plan) => [plan.id, plan])),
        }),
      )
      if (problems.length > 0) throw lifeEventValidationFailed(problems)
      if (input.external_identifier !== undefined && (await repo.externalIdentifierTaken(db, subscriber.id, input.external_identifier))) {
        throw duplicateLifeEvent()
      }

      const accountId = subscriber.account_id
      const eventId = uuidv7()
      const elections: repo.PlanElectionRow[] = []
      const coverages: repo.CoverageRow[] = []
      for (const key of ELECTION_KEYS) {
        const election = input.plan_elections[key as ElectionKey]
        if (!election) continue
        const electionId = uuidv7()
        const isWaiver = election.type === 'waiver'
        elections.push({
          id: electionId,
          account_id: accountId,
          qualifying_life_event_id: eventId,
          election_key: key,
          type: election.type,
          plan_id: isWaiver ? null : election.plan_id!,
          waiver_signature_date: isWaiver ? (election.waiver_signature_date ?? null) : null,
          waiver_reason: isWaiver && election.waiver_reason !== undefined ? maskSsnsInText(election.waiver_reason) : null,
        })
        if (isWaiver) continue
        for (const coverage of election.coverages ?? []) {
          coverages.push({
            id: uuidv7(),
            account_id: accountId,
            plan_election_id: electionId,
            plan_id: election.plan_id!,
            member_id: coverage.member_id,
            start_date: coverage.start_date,
            end_date: coverage.end_date ?? null,
            status: coverage.status,
            volume: coverage.volume ?? null,
          })
        }
      }
      try {
        const row = await db.transaction().execute(async (tx) => {
          // The family's row first: inserting the event takes a key-share lock on it, and a lock
          // asked for after that would deadlock with another event of the same family.
          await lockFamily(tx, subscriber.id)
          const inserted = await repo.insertLifeEvent(
            tx,
            {
              id: eventId,
              account_id: accountId,
              subscriber_id: subscriber.id,
              coverage_period_id: coveragePeriod.id,
              external_identifier: input.external_identifier ?? null,
              event: input.event,
              date: input.date,
              eligibility_start_date: input.eligibility_start_date,
            },
            elections,
            coverages,
          )
          const now = new Date()
          const change = await applyToTimeline(
            tx,
            { accountId, subscriberId: subscriber.id, groupId: subscriber.group_id, dependents, eventId, coveragePeriodId: coveragePeriod.id, periodStartDate: coveragePeriod.coverage_start_date, periodEndDate: coveragePeriod.coverage_end_date, input, now },
            ({ effectiveFrom }) => {
              // Installation events are not changes to a carrier: the limit holds once setup is complete.
              const carrier = carriers.find(coveragePeriod.carrier_name)
              if (coveragePeriod.setup_completed_at === null || !carrier || effectiveFrom === null) return
              const today = todayUtc(now)
              if (effectiveFrom < addDays(today, -carrier.retroactive_limit_days)) {
                throw retroactiveLimitExceeded(effectiveFrom, today, carrier.retroactive_limit_days, carrier.name)
              }
            },
          )
          await recordAuditEvent(tx, actor, { accountId, action: 'qualifying_life_event.created', resourceType: 'qualifying_life_event', resourceId: eventId })
          // A marriage, divorce or separation is news for the event's carrier even when it changes
          // no coverage (a divorce after the separation that ended the spouse's): the subscriber's
          // marital status (x12-834-notes.md, "Demographic change": INS*…*001*25).
          const coveragePeriodIds = MARITAL_STATUS_AFTER[input.event] !== undefined
            ? [...new Set([...change.changedCoveragePeriodIds, coveragePeriod.id])]
            : change.changedCoveragePeriodIds
          await recordMemberChanges(
            tx,
            actor,
            subscriber.group_id,
            [{ subscriberId: subscriber.id, memberId: subscriber.id, kind: 'qualifying_life_event', qualifyingLifeEventId: eventId, coveragePeriodIds }],
            now,
          )
          return inserted
        })
        return presentLifeEvent(row, elections, coverages)
      } catch (error) {
        // A concurrent request took the external_identifier between the check and the insert.
        if (isUniqueViolation(error, 'qualifying_life_events_external_identifier_key')) throw duplicateLifeEvent()
        throw error
      }
    },

    async getLifeEvent(actor: Actor, id: string): Promise<LifeEventView> {
      const row = await repo.findLifeEvent(db, accountScopeOf(actor), id)
      if (!row) throw lifeEventNotFound()
      return (await present([row]))[0]!
    },

    async listLifeEvents(actor: Actor, subscriberId: string, pageReq: PageRequest): Promise<{ items: LifeEventView[]; total: number }> {
      const subscriber = await requireSubscriber(actor, subscriberId)
      const { items, total } = await repo.listLifeEvents(db, subscriber.id, pageReq)
      return { items: await present(items), total }
    },
  }
}

export type LifeEventsService = ReturnType<typeof createLifeEventsService>
