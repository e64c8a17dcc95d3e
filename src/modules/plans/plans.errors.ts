import { DomainError } from '../../lib/domain-error.js'

export type PlanErrorCode = 'plan_not_found'

export const planNotFound = () => new DomainError<PlanErrorCode>('plan_not_found', 'No plan has this id in your account.')
export const duplicatePlan = () =>
  new DomainError('duplicate_external_identifier', 'Another plan of the coverage period has this external_identifier.', [
    { pointer: '/plan/external_identifier', detail: 'is already used by another plan of the coverage period', code: 'duplicate' },
  ])
