import { DomainError, type FieldProblem } from '../../lib/domain-error.js'

export type ProviderSelectionErrorCode = 'duplicate_provider_selection'

export const providerSelectionValidationFailed = (problems: readonly FieldProblem[]) =>
  new DomainError('validation_failed', `The provider selection has ${problems.length} problem${problems.length === 1 ? '' : 's'}.`, problems)

/** The member already has a selection for this plan from this effective date. */
export const duplicateProviderSelection = () =>
  new DomainError<ProviderSelectionErrorCode>(
    'duplicate_provider_selection',
    'The member already has a provider selection for this plan with this effective_date.',
    [{ pointer: '/provider_selection/effective_date', detail: 'already has a provider selection for this member and plan', code: 'duplicate' }],
  )
