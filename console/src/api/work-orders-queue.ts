import { refusalText, UNREACHABLE } from '../lib/problems'
import { api, totalOf, unwrap, type Schema } from './client'
import type { paths } from './schema'

/** The work-order queue (issue 17): each order with its account, employer, age and person, and counts by status. */

export type QueuedWorkOrder = Schema<'WorkOrder'>
export type WorkOrderQueueQuery = NonNullable<paths['/work_orders']['get']['parameters']['query']>
type CountsQuery = NonNullable<paths['/work_orders/counts']['get']['parameters']['query']>

export async function listWorkOrders(query: WorkOrderQueueQuery, signal: AbortSignal): Promise<{ workOrders: QueuedWorkOrder[]; total: number }> {
  const result = await api.GET('/work_orders', { params: { query }, signal })
  return { workOrders: unwrap(result).work_orders, total: totalOf(result.response) }
}

export type WorkOrderCounts = { total: number; by_status: Record<string, number> }

/** GET /work_orders/counts for the same filters. */
export async function workOrderCounts(query: CountsQuery, signal: AbortSignal): Promise<WorkOrderCounts> {
  return unwrap(await api.GET('/work_orders/counts', { params: { query }, signal })).counts
}

export type WorkOrderSort = NonNullable<WorkOrderQueueQuery['sort']>

/**
 * PUT /work_orders/{id}/assignment: to an active operator user, or to nobody (null). Answers null
 * on success or the service's reason in words (a 422 names why the person cannot hold it).
 */
export async function assignWorkOrder(id: string, userId: string | null): Promise<string | null> {
  try {
    const { error, response } = await api.PUT('/work_orders/{id}/assignment', { params: { path: { id } }, body: { assignment: { user_id: userId } } })
    return response.ok ? null : refusalText(response.status, error, 'This work order')
  } catch {
    return UNREACHABLE
  }
}
