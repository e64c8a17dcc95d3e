import type { Db } from '../../db/schema.js'
import { accountScopeOf, type Actor } from '../../lib/actor.js'
import { todayUtc } from '../../lib/clock.js'
import { DomainError } from '../../lib/domain-error.js'
import { memberNotFound } from '../members/members.errors.js'
import { findMember } from '../members/members.repo.js'
import { memberSpans, type CoverageSpanRow } from './coverage-timeline.repo.js'
import type { MemberCoverage } from './coverage-timeline.schema.js'

/** Rows hold only values the events' schema accepted, so text columns narrow to its enums. */
function presentCoverage(row: CoverageSpanRow): MemberCoverage {
  return {
    id: row.id,
    member_id: row.member_id,
    line: row.line as MemberCoverage['line'],
    plan_id: row.plan_id,
    coverage_period_id: row.coverage_period_id,
    start_date: row.start_date,
    end_date: row.end_date,
    status: row.status,
    volume: row.volume === null ? null : Number(row.volume),
    coverage_level: row.coverage_level as MemberCoverage['coverage_level'],
    qualifying_life_event_id: row.qualifying_life_event_id,
  }
}

export function createCoverageTimelineService({ db }: { db: Db }) {
  return {
    /** The member's coverage in force on `asOf` (default today), or its whole history (`all`). */
    async memberCoverages(actor: Actor, memberId: string, asOf: string | undefined): Promise<{ as_of: string | null; coverages: MemberCoverage[] }> {
      const member = await findMember(db, accountScopeOf(actor), memberId)
      if (!member) throw memberNotFound()
      const date = asOf === 'all' ? null : (asOf ?? todayUtc())
      // The pattern lets 2027-02-30 through: a date must also exist.
      if (date !== null && new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date) {
        throw new DomainError('validation_failed', 'The query has 1 invalid parameter.', [{ parameter: 'as_of', detail: 'must be a date that exists (YYYY-MM-DD) or all', code: 'invalid_date' }])
      }
      return { as_of: date, coverages: (await memberSpans(db, member.id, date)).map(presentCoverage) }
    },
  }
}

export type CoverageTimelineService = ReturnType<typeof createCoverageTimelineService>
