import { accountScopeOf, type Actor } from '../../lib/actor.js'
import { DomainError, type FieldProblem } from '../../lib/domain-error.js'
import { uuidv7 } from '../../lib/ids.js'
import type { Db } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/sql-errors.js'
import type { PageRequest } from '../../http/pagination.js'
import { recordAuditEvent, recordAuditEvents } from '../audit/audit.repo.js'
import { coveragePeriodNotFound } from '../coverage-periods/coverage-periods.errors.js'
import {
  copyFromAnotherGroup,
  copyFromItself,
  copyIntoExpired,
  duplicatePlan,
  duplicatePlansInCopy,
  planNotFound,
  sourceCoveragePeriodNotFound,
} from './plans.errors.js'
import * as repo from './plans.repo.js'
import { DISABILITY_PRODUCT_TYPES, MEDICAL_PRODUCT_TYPES, type CopyPlansInput, type CreatePlanInput, type Plan, type ProductLine, type Rider } from './plans.schema.js'

/** The product types that fit each line; lines absent here take no product type. */
const PRODUCT_TYPES_BY_LINE: Partial<Record<ProductLine, readonly string[]>> = {
  medical: MEDICAL_PRODUCT_TYPES,
  disability: DISABILITY_PRODUCT_TYPES,
}
const LINES_WITH_PREMIUM_LEVEL: readonly ProductLine[] = ['dental', 'vision']

/**
 * Rows only ever hold values the create schema accepted, so the text columns narrow to the
 * schema's enums; the casts state that invariant rather than re-checking every read.
 */
export function presentPlan(row: repo.PlanRow): Plan {
  return {
    id: row.id,
    coverage_period_id: row.coverage_period_id,
    external_identifier: row.external_identifier,
    description: row.description,
    product_line: row.product_line as Plan['product_line'],
    product_type: row.product_type as Plan['product_type'],
    premium_level: row.premium_level as Plan['premium_level'],
    voluntary: row.voluntary,
    policy_premium_method: row.policy_premium_method as Plan['policy_premium_method'],
    premium_rating_method: row.premium_rating_method as Plan['premium_rating_method'],
    riders: row.riders as Rider[],
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}


/** Every business rule of a new plan (beyond the schema's enums), all reported at once. */
export function planProblems(input: CreatePlanInput): FieldProblem[] {
  const problems: FieldProblem[] = []
  const line = input.product_line
  const fitting = PRODUCT_TYPES_BY_LINE[line]
  if (fitting) {
    if (!input.product_type) {
      problems.push({ pointer: '/plan/product_type', code: 'required', detail: `is required for ${line} plans` })
    } else if (!fitting.includes(input.product_type)) {
      problems.push({ pointer: '/plan/product_type', code: 'invalid_for_product_line', detail: `must be one of ${fitting.join(', ')} for ${line} plans` })
    }
  } else if (input.product_type) {
    problems.push({ pointer: '/plan/product_type', code: 'invalid_for_product_line', detail: `does not apply to ${line} plans` })
  }
  if (LINES_WITH_PREMIUM_LEVEL.includes(line)) {
    if (!input.premium_level) problems.push({ pointer: '/plan/premium_level', code: 'required', detail: `is required for ${line} plans` })
  } else if (input.premium_level) {
    problems.push({ pointer: '/plan/premium_level', code: 'invalid_for_product_line', detail: 'applies to dental and vision plans only' })
  }
  if (input.policy_premium_method.endsWith('_composite') && !input.premium_rating_method) {
    problems.push({
      pointer: '/plan/premium_rating_method',
      code: 'required',
      detail: `is required with the composite policy_premium_method ${input.policy_premium_method}`,
    })
  }
  return problems
}

export function createPlansService({ db }: { db: Db }) {
  async function requireCoveragePeriod(actor: Actor, coveragePeriodId: string) {
    const coveragePeriod = await repo.findCoveragePeriod(db, accountScopeOf(actor), coveragePeriodId)
    if (!coveragePeriod) throw coveragePeriodNotFound()
    return coveragePeriod
  }

  return {
    async createPlan(actor: Actor, coveragePeriodId: string, input: CreatePlanInput): Promise<Plan> {
      const coveragePeriod = await requireCoveragePeriod(actor, coveragePeriodId)
      const problems = planProblems(input)
      if (problems.length > 0) {
        throw new DomainError('validation_failed', `The plan has ${problems.length} invalid field${problems.length === 1 ? '' : 's'}.`, problems)
      }
      const riders: Rider[] = (input.riders ?? []).map((rider) => ({ name: rider.name, carrier_rider_code: rider.carrier_rider_code ?? null }))
      try {
        return await db.transaction().execute(async (tx) => {
          const row = await repo.insertPlan(tx, {
            id: uuidv7(),
            account_id: coveragePeriod.account_id,
            coverage_period_id: coveragePeriod.id,
            external_identifier: input.external_identifier,
            description: input.description,
            product_line: input.product_line,
            product_type: input.product_type ?? null,
            premium_level: input.premium_level ?? null,
            voluntary: input.voluntary ?? false,
            policy_premium_method: input.policy_premium_method,
            premium_rating_method: input.premium_rating_method ?? null,
            riders: JSON.stringify(riders),
          })
          await recordAuditEvent(tx, actor, { accountId: row.account_id, action: 'plan.created', resourceType: 'plan', resourceId: row.id })
          return presentPlan(row)
        })
      } catch (error) {
        if (isUniqueViolation(error, 'plans_coverage_period_external_identifier_key')) throw duplicatePlan()
        throw error
      }
    },

    /**
     * Renewal: every plan of another coverage period of the same group, copied as it is (all its
     * fields, new ids) in one transaction, each audited as `plan.created`. All or nothing: an
     * external_identifier the target already uses refuses the whole copy, naming every clash.
     */
    async copyPlans(actor: Actor, coveragePeriodId: string, input: CopyPlansInput): Promise<Plan[]> {
      const target = await requireCoveragePeriod(actor, coveragePeriodId)
      const source = await repo.findCoveragePeriod(db, accountScopeOf(actor), input.from_coverage_period_id)
      if (!source) throw sourceCoveragePeriodNotFound()
      if (source.id === target.id) throw copyFromItself()
      if (source.group_id !== target.group_id) throw copyFromAnotherGroup()
      try {
        return await db.transaction().execute(async (tx) => {
          const locked = await repo.lockCoveragePeriodForCopy(tx, target.id)
          if (!locked) throw coveragePeriodNotFound()
          if (locked.state === 'expired') throw copyIntoExpired()
          const plans = await repo.allPlans(tx, source.id)
          const clashes = await repo.usedExternalIdentifiers(tx, target.id, plans.map((plan) => plan.external_identifier))
          if (clashes.length > 0) throw duplicatePlansInCopy(clashes)
          const rows = await repo.insertPlans(
            tx,
            plans.map((plan) => ({
              id: uuidv7(),
              account_id: target.account_id,
              coverage_period_id: target.id,
              external_identifier: plan.external_identifier,
              description: plan.description,
              product_line: plan.product_line,
              product_type: plan.product_type,
              premium_level: plan.premium_level,
              voluntary: plan.voluntary,
              policy_premium_method: plan.policy_premium_method,
              premium_rating_method: plan.premium_rating_method,
              riders: JSON.stringify(plan.riders),
            })),
          )
          await recordAuditEvents(
            tx,
            actor,
            rows.map((row) => ({ accountId: row.account_id, action: 'plan.created', resourceType: 'plan', resourceId: row.id })),
          )
          // Ids are time-ordered and given in the source's order: sorting by id is that order.
          return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(presentPlan)
        })
      } catch (error) {
        // A plan added to the target while copying: name what clashes now.
        if (isUniqueViolation(error, 'plans_coverage_period_external_identifier_key')) {
          const sourcePlans = await repo.allPlans(db, source.id)
          const clashes = await repo.usedExternalIdentifiers(db, target.id, sourcePlans.map((plan) => plan.external_identifier))
          throw clashes.length > 0 ? duplicatePlansInCopy(clashes) : duplicatePlan()
        }
        throw error
      }
    },

    async getPlan(actor: Actor, id: string): Promise<Plan> {
      const row = await repo.findPlan(db, accountScopeOf(actor), id)
      if (!row) throw planNotFound()
      return presentPlan(row)
    },

    async listPlans(actor: Actor, coveragePeriodId: string, pageReq: PageRequest) {
      const coveragePeriod = await requireCoveragePeriod(actor, coveragePeriodId)
      const { items, total } = await repo.listPlans(db, coveragePeriod.id, pageReq)
      return { items: items.map(presentPlan), total }
    },
  }
}

export type PlansService = ReturnType<typeof createPlansService>
