import type { Db } from '../../db/schema.js'
import { accountScopeOf, type Actor } from '../../lib/actor.js'
import { todayUtc } from '../../lib/clock.js'
import { DomainError } from '../../lib/domain-error.js'
import { memberNotFound } from '../members/index.js'
import { memberCoveragesDocument } from './coverage-timeline.repo.js'

export function createCoverageTimelineService({ db }: { db: Db }) {
  return {
    /**
     * The member's coverage in force on `asOf` (default today), or its whole history (`all`), as
     * the JSON text of the answer (built by PostgreSQL, see coverage-timeline.repo.ts).
     */
    async memberCoverages(actor: Actor, memberId: string, asOf: string | undefined): Promise<string> {
      const date = asOf === 'all' ? null : (asOf ?? todayUtc())
      // The pattern lets 2027-02-30 through: a date must also exist.
      if (date !== null && new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date) {
        throw new DomainError('validation_failed', 'The query has 1 invalid parameter.', [{ parameter: 'as_of', detail: 'must be a date that exists (YYYY-MM-DD) or all', code: 'invalid_date' }])
      }
      const document = await memberCoveragesDocument(db, accountScopeOf(actor) ?? null, memberId, date)
      if (document === undefined) throw memberNotFound()
      return document
    },
  }
}

export type CoverageTimelineService = ReturnType<typeof createCoverageTimelineService>
