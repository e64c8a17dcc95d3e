import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { CreateLifeEventBody, LifeEventList, LifeEventResponse, LifeEventsQuery } from './life-events.schema.js'
import type { LifeEventsService } from './life-events.service.js'

const NO_STORE = ' Answers name members and their coverage, so they carry `Cache-Control: no-store`.'

export function lifeEventsRoutes(app: App, lifeEvents: LifeEventsService): void {
  const tags = ['Qualifying life events']

  app.post(
    '/subscribers/:id/qualifying_life_events',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createQualifyingLifeEvent',
        summary: 'Add a qualifying life event with plan elections and waivers (installation step 6)',
        description:
          "`coverage_period_id` must be a coverage period of the subscriber's group. While its setup is not complete " +
          '(`setup_completed_at` null) `event` must be `initial_enrollment` or `newly_eligible`. A `new_hire` event needs ' +
          "`date` equal to the subscriber's employment start date. `plan_elections` holds at least one key; each is an " +
          '`election` (`plan_id` a plan of the coverage period whose product line fits the key, `coverages` of the ' +
          'subscriber or its dependents, each member once) or a `waiver`. The `voluntary_*` keys take voluntary plans; ' +
          '`non_voluntary_life`, `accidental_death_dismemberment` and `life_accidental_death_dismemberment` take ' +
          'non-voluntary ones; `short_term_disability` and `long_term_disability` take disability plans of that ' +
          'product_type. Every broken rule is listed at once. `external_identifier` is unique per subscriber (409).' +
          NO_STORE,
        tags,
        params: IdParams,
        body: CreateLifeEventBody,
        response: { 201: LifeEventResponse, ...problemResponses('validation_failed', 'subscriber_not_found', 'duplicate_external_identifier') },
      },
    },
    async (request, reply) => {
      const event = await lifeEvents.createLifeEvent(requireActor(request), request.params.id, request.body.qualifying_life_event)
      return reply.header('Cache-Control', 'no-store').code(201).send({ qualifying_life_event: event })
    },
  )

  app.get(
    '/subscribers/:id/qualifying_life_events',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listQualifyingLifeEvents',
        summary: "List a subscriber's qualifying life events",
        description: 'Oldest first, each with its elections, waivers and coverages.' + NO_STORE,
        tags,
        params: IdParams,
        querystring: LifeEventsQuery,
        response: { 200: LifeEventList, ...problemResponses('validation_failed', 'subscriber_not_found') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await lifeEvents.listLifeEvents(requireActor(request), request.params.id, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      reply.header('Cache-Control', 'no-store')
      return { qualifying_life_events: items }
    },
  )

  app.get(
    '/qualifying_life_events/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getQualifyingLifeEvent',
        summary: 'Get a qualifying life event',
        description: 'With its elections, waivers and coverages.' + NO_STORE,
        tags,
        params: IdParams,
        response: { 200: LifeEventResponse, ...problemResponses('qualifying_life_event_not_found') },
      },
    },
    async (request, reply) => {
      const event = await lifeEvents.getLifeEvent(requireActor(request), request.params.id)
      reply.header('Cache-Control', 'no-store')
      return { qualifying_life_event: event }
    },
  )
}
