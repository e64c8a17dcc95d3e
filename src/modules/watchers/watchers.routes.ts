import { Type } from 'typebox'
import type { App } from '../../http/app-types.js'
import { IfMatchHeaders, readIfMatch, withEntityTag } from '../../http/etag.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { CreateWatcherBody, UpdateWatcherBody, WatcherList, WatcherResponse, WatcherWithSecretResponse, WatchersQuery } from './watchers.schema.js'
import type { UrlCheck, WatchersService } from './watchers.service.js'

const DELIVERY =
  'Each event is POSTed as JSON `{id, type, timestamp, account_id, data}` (ids, types, statuses and the assignee; never ' +
  'personal data) with the Standard Webhooks headers `webhook-id` (the delivery id, the same on every attempt), ' +
  '`webhook-timestamp` (unix seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with ' +
  'the base64-decoded secret after `whsec_`). A 2xx answer delivers it; a 5xx, 408, 429, timeout or connection failure is ' +
  'retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (8 attempts in all; a receiver that stops ' +
  'answering is backed off); 410 Gone disables the watcher; other ' +
  'answers (3xx included: redirects are not followed) fail the delivery at once. An operator (service) account\'s ' +
  'watchers receive the events of every account.'
const FILTERS =
  '`coverage_period_id` and `group_id` narrow it to the events of one coverage period or group (both must then match); ' +
  'they must name ones your credential sees (else 422).'
const URL_RULES =
  '`url` must be http or https, without user name or password, and its host may not resolve to a loopback, private, ' +
  'link-local, carrier-grade NAT, unique local, multicast or unspecified address (IPv4-mapped forms included) unless the ' +
  'deployment sets WEBHOOK_ALLOW_PRIVATE_URLS. Outside production on the embedded database, loopback receivers (a receiver ' +
  'on the same machine) are allowed by default. The check is repeated at every delivery on the address connected to.'

export function watchersRoutes(app: App, watchers: WatchersService): void {
  const tags = ['Watchers']
  /** Each creation's URL check, made in its preHandler (weakly held: gone with the request). */
  const checkedUrls = new WeakMap<object, UrlCheck>()

  app.post(
    '/watchers',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createWatcher',
        summary: 'Subscribe a URL to events (webhooks)',
        description:
          `Answers the watcher with its signing \`secret\` (whsec_...), shown only here and on rotation: store it. ` +
          `\`event_types\` lists each event at most once. At most 25 watchers per account by default (deleted ones aside). ${FILTERS} ${URL_RULES} ${DELIVERY}`,
        tags,
        body: CreateWatcherBody,
        response: { 201: WatcherWithSecretResponse, ...problemResponses('validation_failed', 'watcher_limit_reached') },
      },
      // The route's own preHandler runs before the Idempotency-Key's (added by onRoute after it):
      // the URL's DNS lookup is made before a keyed request's transaction takes a connection. A
      // replayed request pays for one lookup it does not need.
      preHandler: async (request) => {
        checkedUrls.set(request, await watchers.checkUrl(request.body.watcher.url))
      },
    },
    async (request, reply) => {
      const watcher = await watchers.createWatcher(requireActor(request), request.body.watcher, checkedUrls.get(request))
      return reply.header('Cache-Control', 'no-store').code(201).send({ watcher })
    },
  )

  app.get(
    '/watchers',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listWatchers',
        summary: 'List watchers',
        description: "Oldest first, without secrets. Operators see every account's watchers.",
        tags,
        querystring: WatchersQuery,
        response: { 200: WatcherList, ...problemResponses('validation_failed') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await watchers.listWatchers(requireActor(request), { status: request.query.status }, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { watchers: items }
    },
  )

  app.get(
    '/watchers/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getWatcher',
        summary: 'Get a watcher',
        description: 'Without its secret. A deleted watcher answers 404.',
        tags,
        params: IdParams,
        response: { 200: WatcherResponse, ...problemResponses('watcher_not_found') },
      },
    },
    async (request, reply) => ({ watcher: withEntityTag(reply, await watchers.getWatcher(requireActor(request), request.params.id)) }),
  )

  app.patch(
    '/watchers/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'updateWatcher',
        summary: 'Change a watcher, or disable or re-enable it',
        description:
          'Fields left out are kept; `null` clears a filter or the description. `status: "active"` re-enables a watcher ' +
          'disabled after a 410 (deliveries that failed meanwhile can be sent again with POST /watcher_deliveries/{id}/retry); ' +
          `\`status: "disabled"\` stops deliveries (queued attempts then fail unsent). ${FILTERS} ${URL_RULES}`,
        tags,
        params: IdParams,
        headers: IfMatchHeaders,
        body: UpdateWatcherBody,
        response: { 200: WatcherResponse, ...problemResponses('validation_failed', 'watcher_not_found', 'precondition_failed') },
      },
    },
    async (request, reply) => ({
      watcher: withEntityTag(reply, await watchers.updateWatcher(requireActor(request), request.params.id, request.body.watcher, readIfMatch(request))),
    }),
  )

  app.delete(
    '/watchers/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'deleteWatcher',
        summary: 'Delete a watcher',
        description:
          'It receives nothing from now on (queued attempts fail unsent) and answers 404, as do its deliveries. The service ' +
          'keeps the record of its deliveries. With `If-Match`, only while the watcher is still the version read (else 412).',
        tags,
        params: IdParams,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses('watcher_not_found', 'precondition_failed') },
      },
    },
    async (request, reply) => {
      await watchers.deleteWatcher(requireActor(request), request.params.id, readIfMatch(request))
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/watchers/:id/rotate_secret',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'rotateWatcherSecret',
        summary: "Replace a watcher's signing secret",
        description:
          'Answers the new `secret`, shown only here. The previous secret keeps signing beside it until ' +
          '`previous_secret_expires_at` (24 hours by default, WEBHOOK_SECRET_OVERLAP_SECONDS): `webhook-signature` then ' +
          'carries two space-separated signatures, the new secret\'s first, so the receiver can switch whenever it likes. ' +
          'Rotating again within the overlap drops the oldest secret.',
        tags,
        params: IdParams,
        response: { 200: WatcherWithSecretResponse, ...problemResponses('watcher_not_found') },
      },
    },
    async (request, reply) => {
      const watcher = await watchers.rotateSecret(requireActor(request), request.params.id)
      return reply.header('Cache-Control', 'no-store').send({ watcher })
    },
  )
}
