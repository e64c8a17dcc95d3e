import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { CopiedPlanList, CopyPlansBody, CreatePlanBody, PlanList, PlanResponse, PlansQuery } from './plans.schema.js'
import type { PlansService } from './plans.service.js'

export function plansRoutes(app: App, plans: PlansService): void {
  const tags = ['Plans']

  app.post(
    '/coverage_periods/:id/plans',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createPlan',
        summary: 'Add a plan (installation step 3)',
        description:
          'Adds a plan offered in the coverage period. product_type is required for medical and disability plans and ' +
          'must fit the line (and is refused for other lines); premium_level is required for dental and vision (and ' +
          'refused for other lines). A composite policy_premium_method (2_tier_composite to 5_tier_composite) requires ' +
          'a premium_rating_method; 4_tier_composite with age_banded is the common small-group case. Every broken rule ' +
          'is listed at once.',
        tags,
        params: IdParams,
        body: CreatePlanBody,
        response: {
          201: PlanResponse,
          ...problemResponses('validation_failed', 'coverage_period_not_found', 'duplicate_external_identifier'),
        },
      },
    },
    async (request, reply) => {
      const plan = await plans.createPlan(requireActor(request), request.params.id, request.body.plan)
      return reply.code(201).send({ plan })
    },
  )

  app.post(
    '/coverage_periods/:id/plans/copy',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'copyPlans',
        summary: 'Copy the plans of another coverage period (renewal)',
        description:
          'Renews plans as they are: every plan of from_coverage_period_id (another coverage period of the same group, ' +
          'usually the previous plan year, expired or not) is created in this coverage period with the same fields and a ' +
          'new id, in one transaction, and the answer lists the created plans in the order the source lists them. All or ' +
          'nothing: when this coverage period already has a plan with the external_identifier of a plan to copy, 409 ' +
          'duplicate_external_identifier names every such identifier and nothing is copied. 422 when the source is this ' +
          'coverage period, belongs to another group, or when this coverage period is expired. A source with no plans ' +
          'copies nothing (201 with an empty list).',
        tags,
        params: IdParams,
        body: CopyPlansBody,
        response: {
          201: CopiedPlanList,
          ...problemResponses('validation_failed', 'coverage_period_not_found', 'duplicate_external_identifier'),
        },
      },
    },
    async (request, reply) => {
      const created = await plans.copyPlans(requireActor(request), request.params.id, request.body)
      return reply.code(201).send({ plans: created })
    },
  )

  app.get(
    '/coverage_periods/:id/plans',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listCoveragePeriodPlans',
        summary: "List a coverage period's plans",
        description: 'The plans of the coverage period, oldest first.',
        tags,
        params: IdParams,
        querystring: PlansQuery,
        response: { 200: PlanList, ...problemResponses('validation_failed', 'coverage_period_not_found') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await plans.listPlans(requireActor(request), request.params.id, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { plans: items }
    },
  )

  app.get(
    '/plans/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getPlan',
        summary: 'Get a plan',
        tags,
        params: IdParams,
        response: { 200: PlanResponse, ...problemResponses('plan_not_found') },
      },
    },
    async (request) => ({ plan: await plans.getPlan(requireActor(request), request.params.id) }),
  )
}
