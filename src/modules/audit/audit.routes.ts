import type { App } from '../../http/app-types.js'
import { pageRequest, setPaginationHeaders } from '../../http/pagination.js'
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
          createdAfter: request.query.created_after ? new Date(request.query.created_after) : undefined,
          createdBefore: request.query.created_before ? new Date(request.query.created_before) : undefined,
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
