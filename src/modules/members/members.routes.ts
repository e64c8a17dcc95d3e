import type { FastifyReply } from 'fastify'
import type { App } from '../../http/app-types.js'
import { IfMatchHeaders, readIfMatch, withEntityTag } from '../../http/etag.js'
import { entityTagOfText } from '../../lib/etag.js'
import { requireActor } from '../../http/guard.js'
import { sendJsonText } from '../../http/json-text.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { membersValidationFailed } from './members.errors.js'
import {
  CreateDependentBody,
  CreateSubscribersBody,
  CreateSubscribersResponse,
  DependentResponse,
  MemberResponse,
  SubscriberList,
  SubscriberResponse,
  SubscribersQuery,
  UpdateDependentBody,
  UpdateSubscriberBody,
} from './members.schema.js'
import type { MembersService } from './members.service.js'

/** Answers holding personal data must not be kept by browsers or shared caches. */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('Cache-Control', 'no-store')
}

const PII_NOTE = ' SSNs are answered masked (`***-**-6789`); the answer carries `Cache-Control: no-store`.'

export function membersRoutes(app: App, members: MembersService): void {
  const tags = ['Members']

  app.post(
    '/groups/:id/subscribers',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createSubscribers',
        summary: 'Add subscribers and their dependents (installation step 5)',
        description:
          'Send `{"subscriber": {...}}` for one subscriber or `{"subscribers": [...]}` for up to 5,000 at once, each with its ' +
          '`dependents`. All or nothing: every problem of every item is answered at once with a pointer at the item ' +
          '(`/subscribers/3/dependents/0/birth_date`) and nothing is written. An external_identifier repeated inside the ' +
          'request is a 422 pointing at the repeat; one already used by a subscriber of the group is a 409. `location_id` and ' +
          '`class.employment_classification_id` must belong to the group.' +
          PII_NOTE,
        tags,
        params: IdParams,
        body: CreateSubscribersBody,
        response: {
          201: CreateSubscribersResponse,
          ...problemResponses('validation_failed', 'group_not_found', 'duplicate_external_identifier', 'payload_too_large'),
        },
      },
    },
    async (request, reply) => {
      const { subscriber, subscribers } = request.body
      if ((subscriber === undefined) === (subscribers === undefined)) {
        throw membersValidationFailed([{ pointer: '/subscriber', detail: 'send exactly one of subscriber or subscribers', code: 'one_of_required' }])
      }
      const actor = requireActor(request)
      noStore(reply).code(201)
      if (subscriber) return { subscriber: (await members.createSubscribers(actor, request.params.id, [subscriber], true))[0]! }
      return { subscribers: await members.createSubscribers(actor, request.params.id, subscribers!, false) }
    },
  )

  app.get(
    '/groups/:id/subscribers',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listSubscribers',
        summary: "List a group's subscribers",
        description: 'Oldest first, each with its dependents.' + PII_NOTE,
        tags,
        params: IdParams,
        querystring: SubscribersQuery,
        response: { 200: SubscriberList, ...problemResponses('validation_failed', 'group_not_found') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await members.listSubscribers(requireActor(request), request.params.id, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      noStore(reply)
      return { subscribers: items }
    },
  )

  app.get(
    '/subscribers/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getSubscriber',
        summary: 'Get a subscriber with its dependents',
        description: PII_NOTE.trim(),
        tags,
        params: IdParams,
        response: { 200: SubscriberResponse, ...problemResponses('subscriber_not_found') },
      },
    },
    async (request, reply) => {
      // Already JSON text, checked against SubscriberResponse by test/subscriber-document.test.ts.
      const document = await members.getSubscriberDocument(requireActor(request), request.params.id)
      reply.header('ETag', entityTagOfText(document))
      return sendJsonText(reply, 200, document)
    },
  )

  app.put(
    '/subscribers/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'updateSubscriber',
        summary: 'Replace a subscriber',
        description:
          "Replaces the subscriber's own fields (all required fields again; optional ones left out are cleared). " +
          'Leave `social_security_number` out to keep the stored one. Dependents are changed through their own endpoints.' +
          PII_NOTE,
        tags,
        params: IdParams,
        headers: IfMatchHeaders,
        body: UpdateSubscriberBody,
        response: {
          200: SubscriberResponse,
          ...problemResponses('validation_failed', 'subscriber_not_found', 'duplicate_external_identifier', 'precondition_failed'),
        },
      },
    },
    async (request, reply) => {
      const { subscriber, etag } = await members.updateSubscriber(requireActor(request), request.params.id, request.body.subscriber, readIfMatch(request))
      noStore(reply).header('ETag', etag)
      return { subscriber }
    },
  )

  app.post(
    '/subscribers/:id/dependents',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createDependent',
        summary: 'Add a dependent to a subscriber',
        description: 'external_identifier is unique among the dependents of the subscriber (409 otherwise).' + PII_NOTE,
        tags,
        params: IdParams,
        body: CreateDependentBody,
        response: { 201: DependentResponse, ...problemResponses('validation_failed', 'subscriber_not_found', 'duplicate_external_identifier') },
      },
    },
    async (request, reply) => {
      const dependent = await members.createDependent(requireActor(request), request.params.id, request.body.dependent)
      noStore(reply).code(201)
      return { dependent }
    },
  )

  app.put(
    '/dependents/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'updateDependent',
        summary: 'Replace a dependent',
        description: 'Replaces the dependent. Leave `social_security_number` out to keep the stored one.' + PII_NOTE,
        tags,
        params: IdParams,
        headers: IfMatchHeaders,
        body: UpdateDependentBody,
        response: {
          200: DependentResponse,
          ...problemResponses('validation_failed', 'dependent_not_found', 'duplicate_external_identifier', 'precondition_failed'),
        },
      },
    },
    async (request, reply) => {
      const dependent = await members.updateDependent(requireActor(request), request.params.id, request.body.dependent, readIfMatch(request))
      noStore(reply)
      return { dependent: withEntityTag(reply, dependent) }
    },
  )

  app.get(
    '/members/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getMember',
        summary: 'Get a member: a subscriber or a dependent',
        description: '`kind` says which; a dependent carries its `subscriber_id`, a subscriber its `dependents`.' + PII_NOTE,
        tags,
        params: IdParams,
        response: { 200: MemberResponse, ...problemResponses('member_not_found') },
      },
    },
    async (request, reply) => {
      const { member, etag } = await members.getMember(requireActor(request), request.params.id)
      noStore(reply).header('ETag', etag)
      return { member }
    },
  )
}
