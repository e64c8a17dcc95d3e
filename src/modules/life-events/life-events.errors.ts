import { DomainError, type FieldProblem } from '../../lib/domain-error.js'

export type LifeEventErrorCode = 'qualifying_life_event_not_found' | 'retroactive_limit_exceeded'

export const lifeEventNotFound = () =>
  new DomainError<LifeEventErrorCode>('qualifying_life_event_not_found', 'No qualifying life event has this id in your account.')

/** Every broken rule of the event at once; details never repeat submitted dates of members. */
export const lifeEventValidationFailed = (problems: readonly FieldProblem[]) =>
  new DomainError('validation_failed', `The qualifying life event has ${problems.length} problem${problems.length === 1 ? '' : 's'}.`, problems)

export const duplicateLifeEvent = () =>
  new DomainError('duplicate_external_identifier', 'Another qualifying life event of the subscriber has this external_identifier.', [
    { pointer: '/qualifying_life_event/external_identifier', detail: 'is already used by another qualifying life event of the subscriber', code: 'duplicate' },
  ])

/**
 * A change reaching further into the past than the carrier takes (api-contract.md section 10).
 * The detail names the date, the limit and the carrier, never member data.
 */
export const retroactiveLimitExceeded = (effectiveDate: string, today: string, limitDays: number, carrierName: string) =>
  new DomainError<LifeEventErrorCode>(
    'retroactive_limit_exceeded',
    `This life event changes coverage from ${effectiveDate}, more than ${limitDays} days before today (${today}); ` +
      `carrier ${carrierName} takes changes at most ${limitDays} days in the past (its retroactive_limit_days).`,
    [{ pointer: '/qualifying_life_event', detail: `changes coverage from ${effectiveDate}, beyond the carrier's ${limitDays}-day retroactive limit`, code: 'retroactive_limit_exceeded' }],
  )
