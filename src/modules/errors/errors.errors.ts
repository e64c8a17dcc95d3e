import { DomainError, type FieldProblem } from '../../lib/domain-error.js'

export type ErrorResourceErrorCode = 'error_not_found' | 'error_not_unresolved' | 'error_not_assigned_to_caller'

export const errorNotFound = () => new DomainError<ErrorResourceErrorCode>('error_not_found', 'No error has this id in your account.')

export const errorsValidationFailed = (problems: readonly FieldProblem[]) =>
  new DomainError('validation_failed', `The request has ${problems.length} problem${problems.length === 1 ? '' : 's'}.`, problems)

/** Only an unresolved error can be handed back; the detail names the status it has. */
export const errorNotUnresolved = (status: string) =>
  new DomainError<ErrorResourceErrorCode>('error_not_unresolved', `The error is ${status}: only an unresolved error can be returned.`)

/** Returning hands the error to the other party, so only the party it is assigned to can do it. */
export const errorNotAssignedToCaller = (assignee: string) =>
  new DomainError<ErrorResourceErrorCode>(
    'error_not_assigned_to_caller',
    `The error is assigned to ${assignee === 'service' ? 'the service (operator)' : 'the partner'}: only that party can return it.`,
  )
