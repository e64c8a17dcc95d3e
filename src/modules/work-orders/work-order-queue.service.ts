import type { Readable } from 'node:stream'
import type { Db } from '../../db/schema.js'
import { offsetOf, type PageRequest } from '../../http/pagination.js'
import type { Actor } from '../../lib/actor.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { WORK_ORDER_STATUSES, allowedTransitions } from './work-order-states.js'
import { assigneeNotAllowed, closedWorkOrderNotAssignable, noSignedInUser, workOrderNotFoundById } from './work-orders.errors.js'
import { workOrdersCsv } from './work-orders.csv.js'
import * as repo from './work-orders.repo.js'
import type { WorkOrder, WorkOrderAssignmentInput, WorkOrderCounts, WorkOrderCountsQueryT, WorkOrderSort } from './work-orders.schema.js'
import { presentWorkOrder } from './work-orders.service.js'

/**
 * The operators' side of work orders besides their transitions: the queue, its counts and who
 * works each order. Every function is for operator credentials only (the routes' `service`
 * policy), who see every account's work orders.
 */
export function createWorkOrderQueueService({ db }: { db: Db }) {
  /** The query's filters for the repo; `me` becomes the signed-in console user, `none` unassigned. */
  function filtersOf(actor: Actor, query: WorkOrderCountsQueryT): repo.WorkOrderFilters {
    let assignedUserId: string | null | undefined = query.assigned_user_id
    if (assignedUserId === 'none') assignedUserId = null
    else if (assignedUserId === 'me') {
      if (!actor.user) throw noSignedInUser()
      assignedUserId = actor.user.id
    }
    return {
      status: query.status,
      carrierName: query.carrier_name,
      accountId: query.account_id,
      groupId: query.group_id,
      assignedUserId,
      q: query.q,
    }
  }

  return {
    async list(actor: Actor, query: WorkOrderCountsQueryT, sort: WorkOrderSort | undefined, pageReq: PageRequest) {
      const { items, total } = await repo.listWorkOrders(db, filtersOf(actor, query), sort, { limit: pageReq.perPage, offset: offsetOf(pageReq) })
      return { items: items.map(presentWorkOrder), total }
    },

    /**
     * Every matching order as a CSV stream, in the list's order. The filters are checked first
     * (assigned_user_id=me without a console user is a 422), before any byte of the file is sent.
     */
    exportCsv(actor: Actor, query: WorkOrderCountsQueryT, sort: WorkOrderSort | undefined): Readable {
      return workOrdersCsv(db, filtersOf(actor, query), sort)
    },

    async counts(actor: Actor, query: WorkOrderCountsQueryT): Promise<WorkOrderCounts> {
      const found = new Map((await repo.countWorkOrdersByStatus(db, filtersOf(actor, query))).map((row) => [row.status, row.n]))
      const byStatus = Object.fromEntries(WORK_ORDER_STATUSES.map((status) => [status, found.get(status) ?? 0])) as WorkOrderCounts['by_status']
      return { total: [...found.values()].reduce((sum, n) => sum + n, 0), by_status: byStatus }
    },

    async get(workOrderId: string): Promise<WorkOrder> {
      const row = await repo.findWorkOrder(db, workOrderId)
      if (!row) throw workOrderNotFoundById()
      return presentWorkOrder(row)
    },

    /**
     * Assigns the work order to an active user of a service account, or to nobody (null). The
     * same assignee again changes nothing and records nothing. The history keeps status changes
     * only (its documented shape has a status per entry); an assignment is recorded as an audit
     * event, work_order.assigned or work_order.unassigned.
     */
    async assign(actor: Actor, workOrderId: string, input: WorkOrderAssignmentInput): Promise<WorkOrder> {
      return db.transaction().execute(async (tx) => {
        const workOrder = await repo.lockWorkOrder(tx, workOrderId)
        if (!workOrder) throw workOrderNotFoundById()
        let userId: string | null = null
        if (input.user_id !== null) {
          if (allowedTransitions(workOrder.status).length === 0) throw closedWorkOrderNotAssignable(workOrder.status)
          const user = await repo.findUserWithAccountKind(tx, input.user_id)
          if (!user) throw assigneeNotAllowed('unknown_user')
          if (user.deactivated_at) throw assigneeNotAllowed('user_deactivated')
          if (user.account_kind !== 'service') throw assigneeNotAllowed('not_an_operator_user')
          // The id as stored (lower case): compared as text below, the same user given in upper
          // case (valid for the uuid format) was a change, rewritten and audited again.
          userId = user.id
        }
        if (workOrder.assigned_user_id === userId) return presentWorkOrder(workOrder)

        await repo.setAssignee(tx, workOrder.id, userId, new Date())
        await recordAuditEvent(tx, actor, {
          accountId: workOrder.account_id,
          action: userId === null ? 'work_order.unassigned' : 'work_order.assigned',
          resourceType: 'work_order',
          resourceId: workOrder.id,
        })
        return presentWorkOrder((await repo.findWorkOrder(tx, workOrder.id))!)
      })
    },
  }
}

export type WorkOrderQueueService = ReturnType<typeof createWorkOrderQueueService>
