import { DomainError, type FieldProblem } from '../../lib/domain-error.js'

export type MemberErrorCode = 'subscriber_not_found' | 'dependent_not_found' | 'member_not_found'

export const subscriberNotFound = () => new DomainError<MemberErrorCode>('subscriber_not_found', 'No subscriber has this id in your account.')
export const dependentNotFound = () => new DomainError<MemberErrorCode>('dependent_not_found', 'No dependent has this id in your account.')
export const memberNotFound = () => new DomainError<MemberErrorCode>('member_not_found', 'No member (subscriber or dependent) has this id in your account.')

/** Every problem of the request at once; details never repeat the submitted value (SSNs, birth dates). */
export const membersValidationFailed = (problems: readonly FieldProblem[]) =>
  new DomainError('validation_failed', `The request has ${problems.length} invalid field${problems.length === 1 ? '' : 's'}.`, problems)

export const duplicateMemberIdentifier = (problems: readonly FieldProblem[], what: 'subscriber' | 'dependent') =>
  new DomainError(
    'duplicate_external_identifier',
    what === 'subscriber'
      ? 'Another subscriber of the group already has this external_identifier.'
      : 'Another dependent of the subscriber already has this external_identifier.',
    problems,
  )
