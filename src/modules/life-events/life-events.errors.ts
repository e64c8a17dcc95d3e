import { DomainError, type FieldProblem } from '../../lib/domain-error.js'

export type LifeEventErrorCode = 'qualifying_life_event_not_found'

export const lifeEventNotFound = () =>
  new DomainError<LifeEventErrorCode>('qualifying_life_event_not_found', 'No qualifying life event has this id in your account.')

/** Every broken rule of the event at once; details never repeat submitted dates of members. */
export const lifeEventValidationFailed = (problems: readonly FieldProblem[]) =>
  new DomainError('validation_failed', `The qualifying life event has ${problems.length} problem${problems.length === 1 ? '' : 's'}.`, problems)

export const duplicateLifeEvent = () =>
  new DomainError('duplicate_external_identifier', 'Another qualifying life event of the subscriber has this external_identifier.', [
    { pointer: '/qualifying_life_event/external_identifier', detail: 'is already used by another qualifying life event of the subscriber', code: 'duplicate' },
  ])
