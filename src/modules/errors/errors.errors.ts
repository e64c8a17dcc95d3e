import { DomainError, type FieldProblem } from '../../lib/domain-error.js'

export type ErrorResourceErrorCode = 'error_not_found' | 'error_not_unresolved' | 'error_not_assigned_to_caller' | 'error_resolved'

export const errorNotFound = () => new DomainError<ErrorResourceErrorCode>('error_not_found', 'No error has this id in your account.')

export const errorsValidationFailed = (problems: readonly FieldProblem[]) =>
  new DomainError('validation_failed', `The request has ${problems.length} problem${problems.length === 1 ? '' : 's'}.`, problems)

/** Only an unresolved error can be handed back; the detail names the status it has. */
export const errorNotUnresolved = (status: string) =>
  new DomainError<ErrorResourceErrorCode>('error_not_unresolved', `The error is ${status}: only an unresolved error can be returned.`)

/** Returning hands the error to the other party, and assigning names one of its people: only the party holding it can. */
export const errorNotAssignedToCaller = (assignee: string, action: 'return it' | 'assign it to one of its people') =>
  new DomainError<ErrorResourceErrorCode>(
    'error_not_assigned_to_caller',
    `The error is assigned to ${assignee === 'service' ? 'the service (operator)' : 'the partner'}: only that party can ${action}.`,
  )

/** A resolved error is nobody's work; it can be unassigned, not assigned. */
export const errorResolvedNotAssignable = () =>
  new DomainError<ErrorResourceErrorCode>('error_resolved', 'The error is resolved: a resolved error is nobody\'s work and cannot be assigned (unassigning it is allowed).')
