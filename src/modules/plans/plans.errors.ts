import { DomainError } from '../../lib/domain-error.js'

export type PlanErrorCode = 'plan_not_found'

export const planNotFound = () => new DomainError<PlanErrorCode>('plan_not_found', 'No plan has this id in your account.')
export const duplicatePlan = () =>
  new DomainError('duplicate_external_identifier', 'Another plan of the coverage period has this external_identifier.', [
    { pointer: '/plan/external_identifier', detail: 'is already used by another plan of the coverage period', code: 'duplicate' },
  ])

const FROM = '/from_coverage_period_id'

/** The source of a copy is not a coverage period the caller may read: 404 as for any unknown id. */
export const sourceCoveragePeriodNotFound = () =>
  new DomainError('coverage_period_not_found', 'from_coverage_period_id names no coverage period in your account.', [
    { pointer: FROM, code: 'not_found', detail: 'is not a coverage period of your account' },
  ])

export const copyFromItself = () =>
  new DomainError('validation_failed', 'Plans cannot be copied from a coverage period into itself.', [
    { pointer: FROM, code: 'same_coverage_period', detail: 'must be another coverage period than the one copied into' },
  ])

export const copyFromAnotherGroup = () =>
  new DomainError('validation_failed', 'Plans can only be copied between coverage periods of the same group.', [
    { pointer: FROM, code: 'other_group', detail: 'must be a coverage period of the same group' },
  ])

export const copyIntoExpired = () =>
  new DomainError('validation_failed', 'The coverage period is expired: its plan year is over and it takes no new plans.', [
    { parameter: 'id', code: 'coverage_period_expired', detail: 'is an expired coverage period' },
  ])

/** All or nothing: every plan whose external_identifier the target already uses is named. */
export const duplicatePlansInCopy = (externalIdentifiers: readonly string[]) =>
  new DomainError(
    'duplicate_external_identifier',
    `The coverage period already has plans with ${externalIdentifiers.length === 1 ? 'this external_identifier' : 'these external_identifiers'}: ${externalIdentifiers.join(', ')}. Nothing was copied.`,
    externalIdentifiers.map((externalIdentifier) => ({
      pointer: FROM,
      code: 'duplicate',
      detail: `has a plan with external_identifier ${JSON.stringify(externalIdentifier)}, which a plan of the coverage period already uses`,
    })),
  )
