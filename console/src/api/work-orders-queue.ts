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
