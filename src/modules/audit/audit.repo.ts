import type { Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import type { Executor } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { selectPage } from '../../db/paging.js'

export interface AuditedChange {
  /** The account that owns the changed resource (an operator may act on a partner's data). */
  accountId: string
  action: string
  resourceType: string
  resourceId: string
}

/** Written inside the transaction of the change, so an event exists exactly when the change does. */
export async function recordAuditEvent(tx: Executor, actor: Actor, change: AuditedChange): Promise<void> {
  await tx
    .insertInto('audit_events')
    .values({
      id: uuidv7(),
      account_id: change.accountId,
      actor_account_id: actor.channel === 'api' ? actor.accountId : null,
      api_key_id: actor.apiKeyId,
      channel: actor.channel,
      request_id: actor.requestId,
      action: change.action,
      resource_type: change.resourceType,
      resource_id: change.resourceId,
    })
    .execute()
}

export interface AuditFilters {
  accountId?: string | undefined
  action?: string | undefined
  resourceType?: string | undefined
  resourceId?: string | undefined
}

export async function listAuditEvents(db: Executor, filters: AuditFilters, pageReq: PageRequest) {
  let query = db.selectFrom('audit_events')
  if (filters.accountId) query = query.where('account_id', '=', filters.accountId)
  if (filters.action) query = query.where('action', '=', filters.action)
  if (filters.resourceType) query = query.where('resource_type', '=', filters.resourceType)
  if (filters.resourceId) query = query.where('resource_id', '=', filters.resourceId)
  return selectPage(query, pageReq, (q) => q.selectAll(), 'desc')
}
