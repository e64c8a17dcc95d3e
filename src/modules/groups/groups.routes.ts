import type { App } from '../../http/app-types.js'
import { IfMatchHeaders, readIfMatch, withEntityTag } from '../../http/etag.js'
import { requireActor } from '../../http/guard.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { CreateGroupBody, CreateLocationBody, GroupList, GroupResponse, GroupsQuery, LocationResponse, UpdateGroupBody } from './groups.schema.js'
import type { GroupsService } from './groups.service.js'

const PRODUCER_RULES =
  'Producers of record: the same fields are required for agency and independent producers (agency null), ' +
  'including the signature_date of the master employer application; a single producer has commission_split 100, ' +
  'several sum to exactly 100 (two decimals allowed); at most two writing producers.'

export function groupsRoutes(app: App, groups: GroupsService): void {
  const tags = ['Groups']

  app.post(
    '/groups',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createGroup',
        summary: 'Create an existing (sold) group',
        description:
          'Creates an employer group that is already sold, with its primary location, optional secondary locations ' +
          `and its producers of record. To place a new group with a carrier use POST /group_installments. ${PRODUCER_RULES} ` +
          'Every rule broken is listed at once in errors[] with a JSON pointer.',
        tags,
        body: CreateGroupBody,
        response: { 201: GroupResponse, ...problemResponses('validation_failed', 'duplicate_external_identifier') },
      },
    },
    async (request, reply) => {
      const group = await groups.createGroup(requireActor(request), request.body.group)
      return reply.code(201).send({ group })
    },
  )

  app.get(
    '/groups',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listGroups',
        summary: 'List groups',
        description:
          "The account's employer groups with their locations and producers, oldest first. Operators see every account's groups. " +
          '`search` keeps the groups whose organization name or external identifier contains the text, ignoring case. ' +
          "`account_id` keeps one account's groups (an operator's way to list a single account); another account's id " +
          'finds nothing for a partner, as on GET /errors. Filters combine (AND).',
        tags,
        querystring: GroupsQuery,
        response: { 200: GroupList, ...problemResponses('validation_failed') },
      },
    },
    async (request, reply) => {
      const { page, per_page, ...filters } = request.query
      const pageReq = pageRequest({ page, per_page })
      const { items, total } = await groups.listGroups(requireActor(request), filters, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      return { groups: items }
    },
  )

  app.get(
    '/groups/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getGroup',
        summary: 'Get a group',
        description: 'The group with its employer data, locations (primary first) and producers of record.',
        tags,
        params: IdParams,
        response: { 200: GroupResponse, ...problemResponses('group_not_found') },
      },
    },
    async (request, reply) => ({ group: withEntityTag(reply, await groups.getGroup(requireActor(request), request.params.id)) }),
  )

  app.put(
    '/groups/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'updateGroup',
        summary: 'Replace the data of a group',
        description:
          'Replaces the external_identifier, market, employer data, producer agency and producers of record (the list ' +
          `sent replaces the previous one). Locations are not part of this body: add them with POST /groups/{id}/locations. ${PRODUCER_RULES}`,
        tags,
        params: IdParams,
        headers: IfMatchHeaders,
        body: UpdateGroupBody,
        response: { 200: GroupResponse, ...problemResponses('group_not_found', 'validation_failed', 'duplicate_external_identifier', 'precondition_failed') },
      },
    },
    async (request, reply) => ({
      group: withEntityTag(reply, await groups.updateGroup(requireActor(request), request.params.id, request.body.group, readIfMatch(request))),
    }),
  )

  app.post(
    '/groups/:id/locations',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createGroupLocation',
        summary: 'Add a location to a group',
        description:
          'Adds a physical, mailing or billing location. external_identifier is unique per group (409). With primary: true ' +
          'the new location becomes the primary one (it must be physical) and the previous primary stays as a secondary location.',
        tags,
        params: IdParams,
        body: CreateLocationBody,
        response: { 201: LocationResponse, ...problemResponses('group_not_found', 'validation_failed', 'duplicate_external_identifier') },
      },
    },
    async (request, reply) => {
      const location = await groups.addLocation(requireActor(request), request.params.id, request.body.location)
      return reply.code(201).send({ location })
    },
  )
}
