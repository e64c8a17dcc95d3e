import type { FastifyReply } from 'fastify'
import type { App } from '../../http/app-types.js'
import { listOrCsvResponse, sendCsv, wantsCsv } from '../../http/csv-response.js'
import { requireActor } from '../../http/guard.js'
import { sendJsonText } from '../../http/json-text.js'
import { offsetOf, pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import { DISCREPANCY_MESSAGES } from './discrepancy-messages.js'
import {
  CommentsQuery,
  CoveragePeriodErrorsQuery,
  CreateCommentBody,
  CreateErrorBody,
  CreatedErrorResponse,
  DiscrepancyMessageList,
  DiscrepancyMessagesQuery,
  ErrorCommentList,
  ErrorCommentResponse,
  ErrorList,
  ErrorResponse,
  ErrorsQuery,
  ResolutionBody,
  ResolvedErrorResponse,
  ReturnBody,
} from './errors.schema.js'
import type { JsonText } from './errors.repo.js'
import type { ErrorsService } from './errors.service.js'
import { errorQueueRoutes } from './errors-queue.routes.js'

// Discrepancy values may be a birth date or a masked SSN, and comments name users.
const NO_STORE = ' The answer concerns members, so it carries `Cache-Control: no-store`.'
const FILTERS =
  'Filters combine (AND): `status` (unresolved, returned, resolved), `assignee` (service, partner), `severity`, `source`, ' +
  '`parameter` (one of the 23 discrepancy parameters), `member_id`, `assigned_user_id` (a user id, `me` for the signed-in ' +
  'console user, `none`) and `q` (text searched in member names and external identifiers, employer names and group ' +
  'external identifiers); an unknown value answers 422 naming the parameter. `sort` orders by `age`, `severity`, ' +
  '`parameter`, `status` or `created_at` (the default: oldest raised first), `-` first to reverse. Paginated; each error ' +
  'carries all its comments, the names a person reads (member, plan, employer, account), the person assigned and ' +
  '`age_seconds`. With `Accept: text/csv` the answer is every matching error (not one page) as a CSV file, streamed, ' +
  'one row per error with its names and no SSN.'

/** An error or a page of errors, as JSON text PostgreSQL built (errors.repo.ts), in its key. */
function sendJson(reply: FastifyReply, status: number, key: 'error' | 'errors', json: JsonText<unknown>): FastifyReply {
  return sendJsonText(reply, status, `{"${key}":${json}}`)
}

/** The list routes answer JSON, or CSV when asked for (Accept: text/csv), each media type documented. */
const errorListResponse = listOrCsvResponse(
  ErrorList,
  'One page of errors (see the Total and Link headers), or with Accept: text/csv every matching error as CSV',
  'Every matching error, one row each after a header row (RFC 4180, UTF-8 with a byte order mark), streamed: ' +
    'Error ID, Status, Severity, Held by, Assigned to, Age (days), Waiting since, Raised at, Last change, Account, ' +
    'Employer, Group external ID, Group ID, Member, Member external ID, Member ID, Plan, Plan ID, Parameter, Kind, ' +
    'Message, Carrier value, Platform value (empty for SSNs), Source, Comments, Resolution, Resolved by, Resolved at',
)

export function errorsRoutes(app: App, errors: ErrorsService): void {
  const tags = ['Errors']
  errorQueueRoutes(app, errors)

  app.get(
    '/coverage_periods/:id/errors',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listCoveragePeriodErrors',
        summary: 'List the errors of a coverage period',
        description: `Every error (discrepancy) of the coverage period. ${FILTERS}${NO_STORE}`,
        tags,
        params: IdParams,
        querystring: CoveragePeriodErrorsQuery,
        response: { 200: errorListResponse, ...problemResponses('validation_failed', 'coverage_period_not_found') },
      },
    },
    async (request, reply) => {
      const { page, per_page, sort, ...filters } = request.query
      if (wantsCsv(request)) return sendCsv(reply, await errors.exportCsv(requireActor(request), { coveragePeriodId: request.params.id }, filters, sort), 'errors')
      const pageReq = pageRequest({ page, per_page })
      const result = await errors.listForCoveragePeriod(requireActor(request), request.params.id, filters, pageReq, sort)
      setPaginationHeaders(request, reply, pageReq, result.total)
      return sendJson(reply, 200, 'errors', result.errors)
    },
  )

  app.get(
    '/errors',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listErrors',
        summary: 'List errors across coverage periods (the work queue)',
        description:
          "The caller's errors of every coverage period (an operator's: every account's). Add `coverage_period_id` or " +
          `\`group_id\` to narrow it; another account's ids find nothing. ${FILTERS}${NO_STORE}`,
        tags,
        querystring: ErrorsQuery,
        response: { 200: errorListResponse, ...problemResponses('validation_failed') },
      },
    },
    async (request, reply) => {
      const { page, per_page, sort, ...filters } = request.query
      if (wantsCsv(request)) return sendCsv(reply, await errors.exportCsv(requireActor(request), {}, filters, sort), 'errors')
      const pageReq = pageRequest({ page, per_page })
      const result = await errors.list(requireActor(request), filters, pageReq, sort)
      setPaginationHeaders(request, reply, pageReq, result.total)
      return sendJson(reply, 200, 'errors', result.errors)
    },
  )

  app.get(
    '/errors/:id',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'getError',
        summary: 'Get an error with its comments',
        description: `The error, its discrepancy, its resolution if resolved, and all its comments oldest first.${NO_STORE}`,
        tags,
        params: IdParams,
        response: { 200: ErrorResponse, ...problemResponses('error_not_found') },
      },
    },
    async (request, reply) => {
      return sendJson(reply, 200, 'error', await errors.get(requireActor(request), request.params.id))
    },
  )

  app.post(
    '/errors/:id/comments',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'createErrorComment',
        summary: 'Comment on an error',
        description:
          'Flat body `{message, created_by}`. `created_by` is the email (text@text.text) of a registered, active user of ' +
          'your account (service users for a service credential): a malformed, unknown or deactivated one answers 422 at ' +
          '`/created_by`. In the console `created_by` must be the signed-in user (422 otherwise). `sent_by` records the kind ' +
          'of your account (partner or service). Does not change the status; ' +
          `emits error.commented.${NO_STORE}`,
        tags,
        params: IdParams,
        body: CreateCommentBody,
        response: { 201: ErrorCommentResponse, ...problemResponses('validation_failed', 'error_not_found') },
      },
    },
    async (request, reply) => {
      const comment = await errors.addComment(requireActor(request), request.params.id, request.body)
      return reply.header('Cache-Control', 'no-store').code(201).send({ comment })
    },
  )

  app.get(
    '/errors/:id/comments',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listErrorComments',
        summary: 'List the comments of an error',
        description: `Oldest first, paginated.${NO_STORE}`,
        tags,
        params: IdParams,
        querystring: CommentsQuery,
        response: { 200: ErrorCommentList, ...problemResponses('validation_failed', 'error_not_found') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await errors.listComments(requireActor(request), request.params.id, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      reply.header('Cache-Control', 'no-store')
      return { comments: items }
    },
  )

  app.post(
    '/errors/:id/resolution',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'resolveError',
        summary: 'Resolve an error',
        description:
          'Flat body `{message, resolved_by?}`, from any status. The message is stored as `resolution_message` and in ' +
          "`resolution` with the time and `resolved_by`: the email given (a registered, active user of your account, " +
          "else 422 at `/resolved_by`) or the name of the API key that made the call; in the console it is always the " +
          'signed-in user (naming anyone else answers 422). Resolving a resolved error replaces ' +
          `its resolution. Emits error.resolved.${NO_STORE}`,
        tags,
        params: IdParams,
        body: ResolutionBody,
        response: { 200: ResolvedErrorResponse, ...problemResponses('validation_failed', 'error_not_found') },
      },
    },
    async (request, reply) => {
      return sendJson(reply, 200, 'error', await errors.resolve(requireActor(request), request.params.id, request.body))
    },
  )

  app.post(
    '/errors/:id/return',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'returnError',
        summary: 'Return an error to the other party',
        description:
          'Flat body `{message, created_by?}`. Only an `unresolved` error (else 422 error_not_unresolved, naming its ' +
          'status), and only by the party it is assigned to (else 422 error_not_assigned_to_caller): the status becomes ' +
          '`returned` and the assignee flips (partner → service, service → partner). The message is recorded as a comment ' +
          `sent by your party, naming \`created_by\` when given (in the console: always the signed-in user; naming anyone else ` +
          `answers 422). Emits error.returned and error.commented.${NO_STORE}`,
        tags,
        params: IdParams,
        body: ReturnBody,
        response: {
          200: ErrorResponse,
          ...problemResponses('validation_failed', 'error_not_found', 'error_not_unresolved', 'error_not_assigned_to_caller'),
        },
      },
    },
    async (request, reply) => {
      return sendJson(reply, 200, 'error', await errors.returnError(requireActor(request), request.params.id, request.body))
    },
  )

  app.post(
    '/coverage_periods/:id/errors',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'createCoveragePeriodError',
        summary: 'Raise an error on a coverage period (operators)',
        description:
          'For discrepancies the operations team finds (`source` manual) or reads in a carrier report (error_report). ' +
          '`kind` defaults from the values given; the message is the catalogue message of the parameter and kind, and ' +
          '`severity` and `assignee` default from it. `member_id` must be a member of the group, `plan_id` a plan of the ' +
          "coverage period, `created_by` an active user of your account (422 with a pointer otherwise). `comment` adds a " +
          'first comment sent by the service. SSN values are kept masked (last four). Never merged with another error. ' +
          `Emits error.created (and error.commented).${NO_STORE}`,
        tags: [...tags, 'Operator'],
        params: IdParams,
        body: CreateErrorBody,
        response: { 201: CreatedErrorResponse, ...problemResponses('forbidden', 'validation_failed', 'coverage_period_not_found') },
      },
    },
    async (request, reply) => {
      return sendJson(reply, 201, 'error', await errors.create(requireActor(request), request.params.id, request.body.error))
    },
  )

  app.get(
    '/discrepancy_messages',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listDiscrepancyMessages',
        summary: 'List the standard discrepancy messages',
        description:
          'The catalogue behind every error the service raises: for each of the 23 parameters and each kind ' +
          '(carrier_value_differs, carrier_missing, platform_missing, value_invalid) the message, the default severity and ' +
          'the default assignee. 92 entries in the order of the parameter list; filter by `parameter` or `kind`.',
        tags,
        querystring: DiscrepancyMessagesQuery,
        response: { 200: DiscrepancyMessageList, ...problemResponses('validation_failed') },
      },
    },
    async (request, reply) => {
      const { parameter, kind } = request.query
      const pageReq = pageRequest(request.query)
      const matching = DISCREPANCY_MESSAGES.filter((entry) => (!parameter || entry.parameter === parameter) && (!kind || entry.kind === kind))
      const start = offsetOf(pageReq)
      setPaginationHeaders(request, reply, pageReq, matching.length)
      return { discrepancy_messages: matching.slice(start, start + pageReq.perPage) }
    },
  )
}
