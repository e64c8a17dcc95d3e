import { todayUtc } from '../../lib/clock.js'
import { accountScopeOf, type Actor } from '../../lib/actor.js'
import { DomainError, type FieldProblem } from '../../lib/domain-error.js'
import { maskSsnsInText } from '../../lib/free-text-masking.js'
import { uuidv7 } from '../../lib/ids.js'
import type { Db } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/sql-errors.js'
import type { PageRequest } from '../../http/pagination.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import type { CarrierCatalog } from '../carriers/carriers.catalog.js'
import { groupNotFound } from '../groups/groups.errors.js'
import { coveragePeriodNotFound, duplicateCoveragePeriod } from './coverage-periods.errors.js'
import * as repo from './coverage-periods.repo.js'
import { summariseCoveragePeriod, type CoveragePeriodSummary } from './coverage-period-summary.js'
import type { CoveragePeriod, CreateCoveragePeriodInput } from './coverage-periods.schema.js'

export function presentCoveragePeriod(row: repo.CoveragePeriodRow): CoveragePeriod {
  const { sign_off_name: name, sign_off_title: title, sign_off_date: date } = row
  return {
    id: row.id,
    group_id: row.group_id,
    external_identifier: row.external_identifier,
    carrier_name: row.carrier_name,
    coverage_start_date: row.coverage_start_date,
    coverage_end_date: row.coverage_end_date,
    open_enrollment_start_date: row.open_enrollment_start_date,
    open_enrollment_end_date: row.open_enrollment_end_date,
    carrier_group_number: row.carrier_group_number,
    additional_information: row.additional_information,
    employer_sign_off: name !== null && title !== null && date !== null ? { name, title, date } : null,
    state: row.state,
    distribution_format: row.distribution_format,
    setup_completed_at: row.setup_completed_at?.toISOString() ?? null,
    installed_at: row.installed_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}


const pointer = (field: string) => `/coverage_period/${field}`

/**
 * Every business rule of a new coverage period, all reported at once. Dates are YYYY-MM-DD
 * strings, so text order is date order. "Open enrollment before or at start" is read as
 * open_enrollment_start_date <= open_enrollment_end_date <= coverage_start_date.
 */
export function coveragePeriodProblems(
  input: CreateCoveragePeriodInput,
  context: { carrierKnown: boolean; carrierGiven: boolean; signOffRequired: boolean; today: string },
): FieldProblem[] {
  const problems: FieldProblem[] = []
  const start = input.coverage_start_date
  if (!context.carrierGiven) {
    problems.push({ pointer: pointer('carrier_name'), code: 'required', detail: 'is required: the group has no installment to take the carrier from' })
  } else if (!context.carrierKnown) {
    problems.push({ pointer: pointer('carrier_name'), code: 'unknown_carrier', detail: 'is not a carrier of this deployment (see GET /carriers)' })
  }
  if (input.coverage_end_date && input.coverage_end_date <= start) {
    problems.push({ pointer: pointer('coverage_end_date'), code: 'not_after_start', detail: 'must be after coverage_start_date' })
  }
  const oeStart = input.open_enrollment_start_date
  const oeEnd = input.open_enrollment_end_date
  if (oeStart && oeEnd && oeStart > oeEnd) {
    problems.push({ pointer: pointer('open_enrollment_start_date'), code: 'after_open_enrollment_end', detail: 'must be on or before open_enrollment_end_date' })
  }
  if (oeEnd && oeEnd > start) {
    problems.push({ pointer: pointer('open_enrollment_end_date'), code: 'after_coverage_start', detail: 'must be on or before coverage_start_date' })
  } else if (oeStart && !oeEnd && oeStart > start) {
    problems.push({ pointer: pointer('open_enrollment_start_date'), code: 'after_coverage_start', detail: 'must be on or before coverage_start_date' })
  }
  if (!input.employer_sign_off) {
    if (context.signOffRequired) {
      problems.push({ pointer: pointer('employer_sign_off'), code: 'required', detail: 'is required for the coverage period of a group installment' })
    }
  } else if (input.employer_sign_off.date > context.today) {
    problems.push({ pointer: pointer('employer_sign_off/date'), code: 'in_the_future', detail: 'must not be after today (UTC)' })
  }
  return problems
}

export function createCoveragePeriodsService({ db, carriers }: { db: Db; carriers: CarrierCatalog }) {
  async function requireGroup(actor: Actor, groupId: string) {
    const group = await repo.findGroup(db, accountScopeOf(actor), groupId)
    if (!group) throw groupNotFound()
    return group
  }

  return {
    async createCoveragePeriod(actor: Actor, groupId: string, input: CreateCoveragePeriodInput): Promise<CoveragePeriod> {
      const group = await requireGroup(actor, groupId)
      const carrierName = input.carrier_name ?? group.installment_carrier_name ?? undefined
      const carrier = carrierName === undefined ? undefined : carriers.find(carrierName)
      const problems = coveragePeriodProblems(input, {
        carrierGiven: carrierName !== undefined,
        carrierKnown: carrier !== undefined,
        signOffRequired: group.installment_id !== null,
        today: todayUtc(new Date()),
      })
      if (problems.length > 0 || !carrier) {
        throw new DomainError('validation_failed', `The coverage period has ${problems.length} invalid field${problems.length === 1 ? '' : 's'}.`, problems)
      }
      try {
        return await db.transaction().execute(async (tx) => {
          // A renewal with the same carrier keeps the carrier's group number unless the client gives one.
          const carrierGroupNumber = input.carrier_group_number ?? (await repo.latestCarrierGroupNumber(tx, group.id, carrier.name))
          const row = await repo.insertCoveragePeriod(tx, {
            id: uuidv7(),
            account_id: group.account_id,
            group_id: group.id,
            external_identifier: input.external_identifier,
            carrier_name: carrier.name,
            coverage_start_date: input.coverage_start_date,
            coverage_end_date: input.coverage_end_date ?? null,
            open_enrollment_start_date: input.open_enrollment_start_date ?? null,
            open_enrollment_end_date: input.open_enrollment_end_date ?? null,
            carrier_group_number: carrierGroupNumber,
            additional_information: input.additional_information == null ? null : maskSsnsInText(input.additional_information),
            sign_off_name: input.employer_sign_off?.name ?? null,
            sign_off_title: input.employer_sign_off?.title ?? null,
            sign_off_date: input.employer_sign_off?.date ?? null,
            distribution_format: carrier.distribution_format,
          })
          const audit = { accountId: group.account_id }
          await recordAuditEvent(tx, actor, { ...audit, action: 'coverage_period.created', resourceType: 'coverage_period', resourceId: row.id })
          const installmentId = await repo.linkToInstallment(tx, group.id, row.id)
          if (installmentId) {
            await recordAuditEvent(tx, actor, { ...audit, action: 'group_installment.coverage_period_linked', resourceType: 'group_installment', resourceId: installmentId })
          }
          return presentCoveragePeriod(row)
        })
      } catch (error) {
        if (isUniqueViolation(error, 'coverage_periods_group_external_identifier_key')) throw duplicateCoveragePeriod()
        throw error
      }
    },

    async getCoveragePeriod(actor: Actor, id: string): Promise<CoveragePeriod> {
      const row = await repo.findCoveragePeriod(db, accountScopeOf(actor), id)
      if (!row) throw coveragePeriodNotFound()
      return presentCoveragePeriod(row)
    },

    async summarise(actor: Actor, id: string): Promise<CoveragePeriodSummary> {
      const row = await repo.findCoveragePeriod(db, accountScopeOf(actor), id)
      if (!row) throw coveragePeriodNotFound()
      return summariseCoveragePeriod(db, row)
    },

    async listCoveragePeriods(actor: Actor, groupId: string, pageReq: PageRequest) {
      const group = await requireGroup(actor, groupId)
      const { items, total } = await repo.listCoveragePeriods(db, group.id, pageReq)
      return { items: items.map(presentCoveragePeriod), total }
    },
  }
}

export type CoveragePeriodsService = ReturnType<typeof createCoveragePeriodsService>
