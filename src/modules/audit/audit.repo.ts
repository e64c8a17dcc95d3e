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

/**
 * Who made a change: the credential's account for calls through the API or the console, the key
 * (API) or the signed-in user (console), the channel and the request. Shared by every writer of
 * audit events, so they all name the actor the same way.
 */
export function auditActorColumns(actor: Actor) {
  return {
    actor_account_id: actor.channel === 'api' || actor.channel === 'console' ? actor.accountId : null,
    api_key_id: actor.apiKeyId,
    actor_user_id: actor.user?.id ?? null,
    channel: actor.channel,
    request_id: actor.requestId,
  }
}

function auditRow(actor: Actor, change: AuditedChange) {
  return {
    id: uuidv7(),
    account_id: change.accountId,
    ...auditActorColumns(actor),
    action: change.action,
    resource_type: change.resourceType,
    resource_id: change.resourceId,
  }
}

/** Written inside the transaction of the change, so an event exists exactly when the change does. */
export async function recordAuditEvent(tx: Executor, actor: Actor, change: AuditedChange): Promise<void> {
  await tx.insertInto('audit_events').values(auditRow(actor, change)).execute()
}

/**
 * Many changes of one actor, in multi-row inserts: a check that raises or resolves thousands of
 * errors writes its audit trail in a few statements instead of one per change.
 */
export async function recordAuditEvents(tx: Executor, actor: Actor, changes: readonly AuditedChange[]): Promise<void> {
  const BATCH = 1000
  for (let start = 0; start < changes.length; start += BATCH) {
    await tx.insertInto('audit_events').values(changes.slice(start, start + BATCH).map((change) => auditRow(actor, change))).execute()
  }
}

export interface AuditFilters {
  accountId?: string | undefined
  action?: string | undefined
  resourceType?: string | undefined
  resourceId?: string | undefined
  actorUserId?: string | undefined
  createdAfter?: Date | undefined
  createdBefore?: Date | undefined
}

export async function listAuditEvents(db: Executor, filters: AuditFilters, pageReq: PageRequest) {
  let query = db.selectFrom('audit_events')
  if (filters.accountId) query = query.where('account_id', '=', filters.accountId)
  if (filters.action) query = query.where('action', '=', filters.action)
  if (filters.resourceType) query = query.where('resource_type', '=', filters.resourceType)
  if (filters.resourceId) query = query.where('resource_id', '=', filters.resourceId)
  if (filters.actorUserId) query = query.where('actor_user_id', '=', filters.actorUserId)
  if (filters.createdAfter) query = query.where('created_at', '>=', filters.createdAfter)
  if (filters.createdBefore) query = query.where('created_at', '<', filters.createdBefore)
  // Who acted, by name: a page of events reads without one request per key or user.
  return selectPage(
    query,
    pageReq,
    (q) =>
      q
        .selectAll()
        .select((eb) => [
          eb.selectFrom('users').select('users.email').whereRef('users.id', '=', 'audit_events.actor_user_id').as('actor_user_email'),
          eb.selectFrom('api_keys').select('api_keys.name').whereRef('api_keys.id', '=', 'audit_events.api_key_id').as('api_key_name'),
        ]),
    'desc',
  )
}
