import type { App } from '../../http/app-types.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
import { httpError } from '../../http/problem.js'
import { problemResponses } from '../../http/schemas.js'
import type { Db } from '../../db/schema.js'
import { listAuditEvents } from './audit.repo.js'
import { AuditEventList, AuditEventsQuery } from './audit.schema.js'

export function auditRoutes(app: App, db: Db): void {
  app.get(
    '/audit_events',
    {
      config: { auth: 'service' },
      schema: {
        operationId: 'listAuditEvents',
        summary: 'List audit events (operators)',
        description:
          'Every change made through the API, the console or the command line, newest first; console changes name the ' +
          'signed-in user (actor_user_id). Holds ids, never PII values.',
        tags: ['Operator'],
        querystring: AuditEventsQuery,
        response: { 200: AuditEventList, ...problemResponses('forbidden', 'validation_failed') },
      },
    },
    async (request, reply) => {
      const pageReq = pageRequest(request.query)
      const { items, total } = await listAuditEvents(
        db,
        {
          accountId: request.query.account_id,
          action: request.query.action,
          resourceType: request.query.resource_type,
          resourceId: request.query.resource_id,
          actorUserId: request.query.actor_user_id,
          createdAfter: instantOf('created_after', request.query.created_after),
          createdBefore: instantOf('created_before', request.query.created_before),
        },
        pageReq,
      )
      setPaginationHeaders(request, reply, pageReq, total)
      return {
        audit_events: items.map((row) => ({ ...row, created_at: row.created_at.toISOString() })),
      }
    },
  )
}

/**
 * The instant a date-time parameter names. The format check follows RFC 3339, which allows a leap
 * second (`23:59:60`); JavaScript's Date cannot hold one and gives an invalid date, which failed
 * the query as a 500. Refused here as the 422 the format check gives any other bad date-time.
 */
function instantOf(parameter: string, text: string | undefined): Date | undefined {
  if (text === undefined) return undefined
  const instant = new Date(text)
  if (Number.isNaN(instant.getTime())) {
    throw httpError('validation_failed', `${parameter} is not an instant this service can use.`, [
      { parameter, code: 'invalid_format', detail: 'must be a valid date-time; a leap second (:60) is not accepted' },
    ])
  }
  return instant
}
