import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { sendJsonText } from '../../http/json-text.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { IdParams, problemResponses } from '../../http/schemas.js'
import {
  AssignmentBody,
  BulkAssignmentBody,
  CommentsQuery,
  CoveragePeriodErrorCountsQuery,
  ErrorCountsQuery,
  ErrorCountsResponse,
  ErrorHistoryList,
  ErrorResponse,
  ErrorsResponse,
  MAX_BULK_ASSIGNMENT,
} from './errors.schema.js'
import type { ErrorsService } from './errors.service.js'

/**
 * The routes that make the error list a day's work queue (issue 17): counts for the current
 * filter, each error's history, and assignment to a person. The lists themselves, with sorting,
 * search and CSV export, are in errors.routes.ts.
 */
export function errorQueueRoutes(app: App, errors: ErrorsService): void {
  const tags = ['Errors']
  const COUNT_FILTERS = 'The filters of the list (`q`, `assigned_user_id` and the others), without paging or sorting.'

  app.get(
    '/errors/counts',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'countErrors',
        summary: 'Count the errors of the queue, by status and severity',
        description: `How many of the caller's errors (an operator's: every account's) match, in all, by status and by severity, in one call. ${COUNT_FILTERS}`,
        tags,
        querystring: ErrorCountsQuery,
        response: { 200: ErrorCountsResponse, ...problemResponses('validation_failed') },
      },
    },
    async (request) => ({ counts: await errors.count(requireActor(request), request.query) }),
  )

  app.get(
    '/coverage_periods/:id/errors/counts',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'countCoveragePeriodErrors',
        summary: 'Count the errors of a coverage period, by status and severity',
        description: `How many of the coverage period's errors match, in all, by status and by severity. ${COUNT_FILTERS}`,
        tags,
        params: IdParams,
        querystring: CoveragePeriodErrorCountsQuery,
        response: { 200: ErrorCountsResponse, ...problemResponses('validation_failed', 'coverage_period_not_found') },
      },
    },
    async (request) => ({ counts: await errors.countForCoveragePeriod(requireActor(request), request.params.id, request.query) }),
  )

  app.get(
    '/errors/:id/history',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'listErrorHistory',
        summary: 'List what happened to an error',
        description:
          'Every change, oldest first, paginated: raised, commented, returned (with its message), assigned or unassigned, ' +
          'resolved, reopened, auto_resolved; each with who did it (an email, an API key name or the check), their party, ' +
          'the status and holding party after it. Errors raised before this history existed show their raising, comments, ' +
          'last reopening and resolution. The comments name people, so the answer carries `Cache-Control: no-store`.',
        tags,
        params: IdParams,
        querystring: CommentsQuery,
        response: { 200: ErrorHistoryList, ...problemResponses('validation_failed', 'error_not_found') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await errors.history(requireActor(request), request.params.id, pageReq)
      setPaginationHeaders(request, reply, pageReq, total)
      reply.header('Cache-Control', 'no-store')
      return { history: items }
    },
  )

  const ASSIGNMENT_RULES =
    'Only the party holding the error (its `assignee`) assigns it, to an active user of its own account (422 ' +
    'error_not_assigned_to_caller, or at `/assignment/user_id`); a resolved error cannot be assigned (422 error_resolved) ' +
    'but can be unassigned. Handing the error to the other party (a return, a reopening with another default party) clears ' +
    'the assignment. Assigning the person already assigned changes nothing. Each change is in the error\'s history and emits ' +
    'error.assigned (with `assigned_user_id` and `previous_assigned_user_id`).'

  app.put(
    '/errors/:id/assignment',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'assignError',
        summary: 'Assign an error to a person',
        description: `Body \`{"assignment": {"user_id"}}\`; \`user_id: null\` unassigns. ${ASSIGNMENT_RULES}`,
        tags,
        params: IdParams,
        body: AssignmentBody,
        response: { 200: ErrorResponse, ...problemResponses('validation_failed', 'error_not_found', 'error_not_assigned_to_caller', 'error_resolved') },
      },
    },
    async (request, reply) => sendJsonText(reply, 200, `{"error":${await errors.assign(requireActor(request), request.params.id, request.body.assignment)}}`),
  )

  app.post(
    '/errors/assignments',
    {
      config: { auth: 'any' },
      schema: {
        operationId: 'assignErrors',
        summary: 'Assign several errors to a person at once',
        description:
          `Body \`{"assignment": {"user_id", "error_ids"}}\`, 1 to ${MAX_BULK_ASSIGNMENT} distinct ids. All or nothing: an id that is ` +
          'not your error, held by the other party or resolved answers 422 with a problem at its `/assignment/error_ids/<index>`, and ' +
          `nothing changes. ${ASSIGNMENT_RULES} Answers the errors as they are now, in the order given.`,
        tags,
        body: BulkAssignmentBody,
        response: { 200: ErrorsResponse, ...problemResponses('validation_failed') },
      },
    },
    async (request, reply) => sendJsonText(reply, 200, `{"errors":${await errors.assignMany(requireActor(request), request.body.assignment)}}`),
  )
}
