import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { CoveragePeriodList, CoveragePeriodResponse, CoveragePeriodsQuery, CreateCoveragePeriodBody } from './coverage-periods.schema.js'
import type { CoveragePeriodsService } from './coverage-periods.service.js'
import { CoveragePeriodSummaryResponse } from './coverage-period-summary.js'

export function coveragePeriodsRoutes(app: App, coveragePeriods: CoveragePeriodsService): void {
  const tags = ['Coverage periods']

  app.post(
    '/groups/:id/coverage_periods',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createCoveragePeriod',
        summary: 'Add a coverage period (installation step 2)',
        description:
          'Adds the plan year with a carrier to the group. carrier_name defaults to the carrier of the group installment ' +
          'and must be a carrier of GET /carriers; distribution_format comes from that carrier. When the group has an ' +
          'installment, employer_sign_off (name, title and date of an authorized representative) is required and the ' +
          'first coverage period is linked to the installment. Dates must be coherent: coverage_end_date after ' +
          'coverage_start_date; open_enrollment_start_date <= open_enrollment_end_date <= coverage_start_date; the ' +
          'sign-off date not after today (UTC). Every broken rule is listed at once. For the next plan year (a renewal), ' +
          'carrier_group_number may be left out: with the same carrier the new period keeps the group number of the ' +
          "group's latest coverage period with that carrier. A coverage period expires the day after its coverage_end_date.",
        tags,
        params: IdParams,
        body: CreateCoveragePeriodBody,
        response: {
          201: CoveragePeriodResponse,
          ...problemResponses('validation_failed', 'group_not_found', 'duplicate_external_identifier'),
        },
      },
    },
    async (request, reply) => {
      const coveragePeriod = await coveragePeriods.createCoveragePeriod(requireActor(request), request.params.id, request.body.coverage_period)
      return reply.code(201).send({ coverage_period: coveragePeriod })
    },
  )

  app.get(
    '/groups/:id/coverage_periods',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listGroupCoveragePeriods',
        summary: "List a group's coverage periods",
        description: 'The coverage periods of the group, oldest first.',
        tags,
        params: IdParams,
        querystring: CoveragePeriodsQuery,
        response: { 200: CoveragePeriodList, ...problemResponses('validation_failed', 'group_not_found') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await coveragePeriods.listCoveragePeriods(requireActor(request), request.params.id, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { coverage_periods: items }
    },
  )

  app.get(
    '/coverage_periods/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getCoveragePeriod',
        summary: 'Get a coverage period',
        tags,
        params: IdParams,
        response: { 200: CoveragePeriodResponse, ...problemResponses('coverage_period_not_found') },
      },
    },
    async (request) => ({ coverage_period: await coveragePeriods.getCoveragePeriod(requireActor(request), request.params.id) }),
  )

  app.get(
    '/coverage_periods/:id/summary',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getCoveragePeriodSummary',
        summary: 'Count the members, plans and errors of a coverage period',
        description:
          'What an operator checks before sending a group: subscribers and dependents of the group, members enrolled in ' +
          "the coverage period's plans, its plans, its errors by status, and its group installment (whose progress " +
          'lists the setup steps).',
        tags,
        params: IdParams,
        response: { 200: CoveragePeriodSummaryResponse, ...problemResponses('coverage_period_not_found') },
      },
    },
    async (request) => ({ summary: await coveragePeriods.summarise(requireActor(request), request.params.id) }),
  )
}
