import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { CreateProviderSelectionBody, ProviderSelectionList, ProviderSelectionResponse, ProviderSelectionsQuery } from './provider-selections.schema.js'
import type { ProviderSelectionsService } from './provider-selections.service.js'

const NO_STORE = ' Answers concern a member, so they carry `Cache-Control: no-store`.'

export function providerSelectionsRoutes(app: App, selections: ProviderSelectionsService): void {
  const tags = ['Provider selections']

  app.post(
    '/members/:id/provider_selections',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createProviderSelection',
        summary: 'Select a primary care provider for a member in an HMO plan',
        description:
          'The member (subscriber or dependent) picks a primary care provider for a medical plan with product_type ' +
          '`health_maintenance_organization` in which it has a coverage (elected through a qualifying life event). ' +
          '`npi` is 10 digits with a valid check digit. A second selection for the same member, plan and ' +
          '`effective_date` is a 409. Every broken rule is listed at once.' +
          NO_STORE,
        tags,
        params: IdParams,
        body: CreateProviderSelectionBody,
        response: { 201: ProviderSelectionResponse, ...problemResponses('validation_failed', 'member_not_found', 'duplicate_provider_selection') },
      },
    },
    async (request, reply) => {
      const selection = await selections.createSelection(requireActor(request), request.params.id, request.body.provider_selection)
      return reply.header('Cache-Control', 'no-store').code(201).send({ provider_selection: selection })
    },
  )

  app.get(
    '/members/:id/provider_selections',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listProviderSelections',
        summary: "List a member's primary care provider selections",
        description: 'Oldest first.' + NO_STORE,
        tags,
        params: IdParams,
        querystring: ProviderSelectionsQuery,
        response: { 200: ProviderSelectionList, ...problemResponses('validation_failed', 'member_not_found') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await selections.listSelections(requireActor(request), request.params.id, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      reply.header('Cache-Control', 'no-store')
      return { provider_selections: items }
    },
  )
}
