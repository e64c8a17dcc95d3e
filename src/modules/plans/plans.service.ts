import { accountScopeOf, type Actor } from '../../lib/actor.js'
import { DomainError, type FieldProblem } from '../../lib/domain-error.js'
import { uuidv7 } from '../../lib/ids.js'
import type { Db } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/sql-errors.js'
import type { PageRequest } from '../../http/pagination.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { coveragePeriodNotFound } from '../coverage-periods/coverage-periods.errors.js'
import { duplicatePlan, planNotFound } from './plans.errors.js'
import * as repo from './plans.repo.js'
import { DISABILITY_PRODUCT_TYPES, MEDICAL_PRODUCT_TYPES, type CreatePlanInput, type Plan, type ProductLine, type Rider } from './plans.schema.js'

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
