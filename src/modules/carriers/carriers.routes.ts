import type { App } from '../../http/app-types.js'
import { pageRequest, setPaginationHeaders, offsetOf } from '../../http/pagination.js'
import { httpError } from '../../http/problem.js'
import { problemResponses } from '../../http/schemas.js'
import type { CarrierCatalog } from './carriers.catalog.js'
import { CarrierList, CarrierParams, CarrierResponse, CarriersQuery } from './carriers.schema.js'

export function carriersRoutes(app: App, carriers: CarrierCatalog): void {
  app.get(
    '/carriers',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listCarriers',
        summary: 'List carriers',
        description:
          'The carriers this deployment can place groups with: the accepted values of carrier_name, how each ' +
          'receives data, and whether it requires a primary care provider for HMO enrollments.',
        tags: ['Carriers'],
        querystring: CarriersQuery,
        response: { 200: CarrierList, ...problemResponses('validation_failed') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const start = offsetOf(pageReq)
      setPaginationHeaders(request, reply, pageReq, carriers.all.length)
      return { carriers: carriers.all.slice(start, start + pageReq.perPage) }
    },
  )

  app.get(
    '/carriers/:name',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getCarrier',
        summary: 'Get a carrier',
        tags: ['Carriers'],
        params: CarrierParams,
        response: { 200: CarrierResponse, ...problemResponses('not_found') },
      },
    },
    async (request) => {
      const carrier = carriers.find(request.params.name)
      if (!carrier) throw httpError('not_found', `No carrier is named ${JSON.stringify(request.params.name)}; see GET /carriers.`)
      return { carrier }
    },
  )
}
