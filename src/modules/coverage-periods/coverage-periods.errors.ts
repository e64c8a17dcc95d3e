import { DomainError } from '../../lib/domain-error.js'

export type CoveragePeriodErrorCode = 'coverage_period_not_found'

export const coveragePeriodNotFound = () =>
  new DomainError<CoveragePeriodErrorCode>('coverage_period_not_found', 'No coverage period has this id in your account.')
export const duplicateCoveragePeriod = () =>
  new DomainError('duplicate_external_identifier', 'Another coverage period of the group has this external_identifier.', [
    { pointer: '/coverage_period/external_identifier', detail: 'is already used by another coverage period of the group', code: 'duplicate' },
  ])
