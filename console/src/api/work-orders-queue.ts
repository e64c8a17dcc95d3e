import { api, totalOf, unwrap, type Schema } from './client'
import type { paths } from './schema'

/*
 * The work-order queue's additions (issue 17), being built beside the console: names, age and
 * person on each work order, the account/group/person/search filters, sorting, and counts by
 * status. Until the schema has them, these hand-written types say what the console expects, and
 * everything degrades when an older service lacks them (fields absent, counts 404).
 */

type WorkOrderQuery = NonNullable<paths['/work_orders']['get']['parameters']['query']>

/** A row of GET /work_orders with the queue's fields (optional until the schema has them). */
export type QueuedWorkOrder = Schema<'WorkOrder'> & {
  account_id?: string
  account_name?: string
  employer_name?: string
  age_seconds?: number
  assigned_user?: { id: string; email: string } | null
}

/** The queue's filters (until the schema has them): the published ones plus the new ones. */
export type WorkOrderQueueQuery = WorkOrderQuery & {
  account_id?: string
  group_id?: string
  assigned_user_id?: string
  q?: string
  sort?: 'age' | '-age' | 'status' | '-status' | 'created_at' | '-created_at'
}

export async function listWorkOrders(query: WorkOrderQueueQuery, signal: AbortSignal): Promise<{ workOrders: QueuedWorkOrder[]; total: number }> {
  // The extra parameters pass through openapi-fetch as they are; an older service ignores none
  // of them silently (it answers 422 for an unknown one), so they are only sent when set.
  const result = await api.GET('/work_orders', { params: { query: query as WorkOrderQuery }, signal })
  return { workOrders: unwrap(result).work_orders as QueuedWorkOrder[], total: totalOf(result.response) }
}

export interface WorkOrderCounts {
  total: number
  by_status: Record<string, number>
}

/** GET /work_orders/counts (until the schema has it); null when the service does not offer it. */
export async function workOrderCounts(query: Omit<WorkOrderQueueQuery, 'page' | 'per_page' | 'sort' | 'status'>, signal: AbortSignal): Promise<WorkOrderCounts | null> {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value))
  const response = await fetch(`/work_orders/counts?${params.toString()}`, { credentials: 'same-origin', signal, headers: { Accept: 'application/json' } })
  if (response.status === 404 || response.status === 405) return null
  if (!response.ok) return null
  const body = (await response.json()) as { counts?: WorkOrderCounts }
  return body.counts ?? null
}
