import { DomainError, type CommonErrorCode, type FieldProblem } from '../../lib/domain-error.js'

export type WorkOrderErrorCode = 'work_order_not_found' | 'setup_incomplete' | WorkOrderTransitionErrorCode

export const workOrderNotFound = () =>
  new DomainError<WorkOrderErrorCode>('work_order_not_found', 'The coverage period has no work order yet: complete its setup first.')

/** Every gap at once; entries carry a `code` and no pointer (the request has no body to point into). */
export const setupIncomplete = (gaps: readonly FieldProblem[]) =>
  new DomainError<WorkOrderErrorCode>(
    'setup_incomplete',
    `The setup cannot be completed: ${gaps.length} thing${gaps.length === 1 ? ' is' : 's are'} missing or invalid.`,
    gaps,
  )

export type WorkOrderTransitionErrorCode = 'work_order_transition_not_allowed' | 'carrier_group_number_required'

/** An illegal move names the moves that are allowed from the current status. */
export const transitionNotAllowed = (from: string, to: string, allowed: readonly string[]) =>
  new DomainError<WorkOrderTransitionErrorCode>(
    'work_order_transition_not_allowed',
    allowed.length === 0
      ? `The work order is ${from}, a final status: it cannot move to ${to}.`
      : `The work order is ${from}: it can move to ${allowed.join(', ')}, not to ${to}.`,
    [{ pointer: '/status', code: 'transition_not_allowed', detail: allowed.length === 0 ? `no move is allowed from ${from}` : `must be one of ${allowed.join(', ')}` }],
  )

export const carrierGroupNumberRequired = () =>
  new DomainError<WorkOrderTransitionErrorCode>(
    'carrier_group_number_required',
    "Completing the work order needs the carrier's group number: send carrier_group_number.",
    [{ pointer: '/carrier_group_number', code: 'required', detail: 'is required to complete the work order (the coverage period has none yet)' }],
  )

export const workOrderNotFoundById = () => new DomainError<WorkOrderErrorCode>('work_order_not_found', 'No work order with this id.')

/** An expired coverage period receives nothing more: its work order cannot send the group or install it. */
export const transitionOfExpiredCoveragePeriod = (to: string) =>
  new DomainError<WorkOrderTransitionErrorCode>(
    'work_order_transition_not_allowed',
    `The coverage period of this work order is expired (its plan year is over): the work order cannot move to ${to}, since nothing more goes to the carrier for it. Cancel it instead.`,
    [{ pointer: '/status', code: 'coverage_period_expired', detail: `cannot be ${to} for an expired coverage period` }],
  )

/** Why a user cannot hold a work order, at the body field that named them. */
export type AssigneeProblem = 'unknown_user' | 'user_deactivated' | 'not_an_operator_user'

const ASSIGNEE_DETAILS: Record<AssigneeProblem, string> = {
  unknown_user: 'is not the id of a registered user',
  user_deactivated: 'is the id of a deactivated user',
  not_an_operator_user: "is the id of a partner account's user: work orders are held by the operator, so only users of a service account can be assigned",
}

export const assigneeNotAllowed = (problem: AssigneeProblem) =>
  new DomainError<CommonErrorCode>('validation_failed', 'The work order can only be assigned to an active user of a service (operator) account.', [
    { pointer: '/assignment/user_id', code: problem, detail: ASSIGNEE_DETAILS[problem] },
  ])

/** A completed or cancelled work order is nobody's work, as a resolved error is: it can be unassigned, not assigned. */
export const closedWorkOrderNotAssignable = (status: string) =>
  new DomainError<CommonErrorCode>('validation_failed', `The work order is ${status}, a final status: nobody works on it any more, so it cannot be assigned (unassigning it is allowed).`, [
    { pointer: '/assignment/user_id', code: 'work_order_closed', detail: `must be null: the work order is ${status}` },
  ])

/** `me` names the signed-in console user; a key or token has none. */
export const noSignedInUser = () =>
  new DomainError<CommonErrorCode>(
    'validation_failed',
    'assigned_user_id=me means the signed-in console user, and this request is authenticated by an API key or token, which has no user: pass the user id instead.',
    [{ parameter: 'assigned_user_id', code: 'no_signed_in_user', detail: 'me needs a console session; pass a user id' }],
  )
