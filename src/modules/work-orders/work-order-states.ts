import type { WorkOrderStatus } from '../../db/schema.js'

/**
 * The work order's state machine (api-contract.md section 5): open → in_progress → submitted
 * (sent to the carrier) ⇄ needs_information (the carrier asked for more) → completed (the carrier
 * installed the group); cancelled from any state before completion. completed and cancelled are
 * final: a cancelled installation starts again with a new coverage period.
 */
/** Every status, in the order of the workflow: the order of sort=status and of the status enum. */
export const WORK_ORDER_STATUSES = ['open', 'in_progress', 'submitted', 'needs_information', 'completed', 'cancelled'] as const satisfies readonly WorkOrderStatus[]

export const WORK_ORDER_TRANSITIONS: Readonly<Record<WorkOrderStatus, readonly WorkOrderStatus[]>> = Object.freeze({
  open: ['in_progress', 'cancelled'],
  in_progress: ['submitted', 'cancelled'],
  submitted: ['needs_information', 'completed', 'cancelled'],
  needs_information: ['submitted', 'cancelled'],
  completed: [],
  cancelled: [],
})

export function allowedTransitions(from: WorkOrderStatus): readonly WorkOrderStatus[] {
  return WORK_ORDER_TRANSITIONS[from]
}

export function isAllowedTransition(from: WorkOrderStatus, to: WorkOrderStatus): boolean {
  return WORK_ORDER_TRANSITIONS[from].includes(to)
}
