import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { DeliveriesQuery, DeliveryList, DeliveryResponse } from './watchers.schema.js'
import type { WatcherDeliveriesService } from './watcher-deliveries.service.js'

export function watcherDeliveriesRoutes(app: App, deliveries: WatcherDeliveriesService): void {
  const tags = ['Watchers']

  app.get(
    '/watchers/:id/deliveries',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listWatcherDeliveries',
        summary: "List a watcher's deliveries with their attempts",
        description:
          'Newest first; `status` filters (pending, succeeded, failed). Each delivery carries the payload sent and every ' +
          'attempt (start, duration, status code, error).',
        tags,
        params: IdParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveryList, ...problemResponses('validation_failed', 'watcher_not_found') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await deliveries.listDeliveries(requireActor(request), request.params.id, { status: request.query.status }, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { watcher_deliveries: items }
    },
  )

  app.get(
    '/watcher_deliveries/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getWatcherDelivery',
        summary: 'Get a delivery with its attempts',
        description: 'The id is the `webhook-id` header the receiver got. Deliveries of a deleted watcher answer 404.',
        tags,
        params: IdParams,
        response: { 200: DeliveryResponse, ...problemResponses('watcher_delivery_not_found') },
      },
    },
    async (request) => ({ watcher_delivery: await deliveries.getDelivery(requireActor(request), request.params.id) }),
  )

  app.post(
    '/watcher_deliveries/:id/retry',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'retryWatcherDelivery',
        summary: 'Send a finished delivery again',
        description:
          'Queues one more attempt, right away, of a delivery that failed (or succeeded and is wanted again), with the same ' +
          '`webhook-id`, signed with the current secret(s); if that attempt fails the delivery is failed again (no schedule). ' +
          'A pending delivery already has an attempt queued: 409 watcher_delivery_pending. A disabled watcher must be ' +
          're-enabled first: 409 watcher_disabled.',
        tags,
        params: IdParams,
        response: { 200: DeliveryResponse, ...problemResponses('watcher_delivery_not_found', 'watcher_delivery_pending') },
      },
    },
    async (request) => ({ watcher_delivery: await deliveries.retryDelivery(requireActor(request), request.params.id) }),
  )
}
