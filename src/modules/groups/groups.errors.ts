import { DomainError, type FieldProblem } from '../../lib/domain-error.js'

export type GroupErrorCode = 'group_not_found'

export const groupNotFound = () => new DomainError<GroupErrorCode>('group_not_found', 'No group has this id in your account.')

export const groupValidationFailed = (problems: readonly FieldProblem[]) =>
  new DomainError('validation_failed', `The group has ${problems.length} invalid field${problems.length === 1 ? '' : 's'}.`, problems)

export const duplicateGroupIdentifier = (pointer: string) =>
  new DomainError('duplicate_external_identifier', 'Another group of the account already has this external_identifier.', [
    { pointer, detail: 'is already used by another group of the account', code: 'duplicate' },
  ])

export const duplicateLocationIdentifier = (problems: readonly FieldProblem[]) =>
  new DomainError('duplicate_external_identifier', 'Another location of the group already has this external_identifier.', problems)
