import type { Db } from '../../db/schema.js'
import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { accountScopeOf } from '../../lib/actor.js'
import { coveragePeriodNotFound } from '../coverage-periods/coverage-periods.errors.js'
import { findCoveragePeriod } from '../coverage-periods/coverage-periods.repo.js'
import { findCensusRequest, listCensusRequests, listCensusSubscribers } from './census-read.repo.js'
import { censusRequestNotFound } from './census.errors.js'
import { maskCensusSsns } from './census-ssn.js'
import { CensusRequestList, CensusRequestResponse, CensusRequestsQuery, CensusSubscriberList, CensusSubscribersQuery } from './census.schema.js'

const NO_STORE = ' The answer concerns members, so it carries `Cache-Control: no-store`.'

/**
 * Reads of the censuses carriers sent and what reconciling them did. No service layer: each use
 * case is one scoped lookup (404 outside the actor's account) and one read.
 */
export function censusReadRoutes(app: App, db: Db): void {
  const tags = ['Census']

  app.get(
    '/coverage_periods/:id/census_requests',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listCensusRequests',
        summary: "List the carrier's censuses of a coverage period",
        description:
          'Newest first. `as_of=YYYY-MM-DD` keeps the census the carrier produced on that date (census requests whose ' +
          '`as_of` is that date; several when it was posted more than once).',
        tags,
        params: IdParams,
        querystring: CensusRequestsQuery,
        response: { 200: CensusRequestList, ...problemResponses('validation_failed', 'coverage_period_not_found') },
      },
    },
    async (request, reply) => {
      const coveragePeriod = await findCoveragePeriod(db, accountScopeOf(requireActor(request)), request.params.id)
      if (!coveragePeriod) throw coveragePeriodNotFound()
      const pageReq = pageRequest(request.query)
      const { items, total } = await listCensusRequests(db, coveragePeriod.id, { asOf: request.query.as_of }, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { census_requests: items }
    },
  )

  app.get(
    '/census_requests/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getCensusRequest',
        summary: 'Get a census request with what reconciling it did',
        description: 'The counts of members matched and of errors opened, reopened and resolved, and the problems reading the census.',
        tags,
        params: IdParams,
        response: { 200: CensusRequestResponse, ...problemResponses('census_request_not_found') },
      },
    },
    async (request) => {
      const census = await findCensusRequest(db, accountScopeOf(requireActor(request)), request.params.id)
      if (!census) throw censusRequestNotFound()
      return { census_request: census }
    },
  )

  app.get(
    '/census_requests/:id/subscribers',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listCensusSubscribers',
        summary: "List a census's subscribers as the carrier sent them",
        description:
          'In census order, each with the platform subscriber it was matched to (null: none). `subscriber` is the carrier\'s ' +
          'data as sent, dependents included, with SSNs masked to ***-**-1234.' +
          NO_STORE,
        tags,
        params: IdParams,
        querystring: CensusSubscribersQuery,
        response: { 200: CensusSubscriberList, ...problemResponses('validation_failed', 'census_request_not_found') },
      },
    },
    async (request, reply) => {
      const census = await findCensusRequest(db, accountScopeOf(requireActor(request)), request.params.id)
      if (!census) throw censusRequestNotFound()
      const pageReq = pageRequest(request.query)
      const { items, total } = await listCensusSubscribers(db, census.id, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      reply.header('Cache-Control', 'no-store')
      return {
        subscribers: items.map((row) => ({
          position: row.position,
          matched_subscriber_id: row.matched_subscriber_id,
          // The census service stores each subscriber as a JSON object (a family), never a scalar.
          subscriber: maskCensusSsns(row.data) as Record<string, unknown>,
        })),
      }
    },
  )
}
