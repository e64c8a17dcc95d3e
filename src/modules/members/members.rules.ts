import type { FieldProblem } from '../../lib/domain-error.js'
import { ssnProblem } from '../../lib/identifiers.js'
import { addressProblems } from '../common/address.js'
import type { DependentInput, SubscriberUpdate } from './members.schema.js'

/**
 * The business rules a schema cannot express, for one subscriber or dependent. Each returns every
 * problem with its pointer; none repeats a submitted value (SSNs and birth dates are PII).
 */
const CHILD_RELATIONSHIPS = new Set(['child', 'grandchild'])

function ssnProblems(ssn: string | undefined, pointer: string, problems: FieldProblem[]): void {
  if (ssn === undefined) return
  const why = ssnProblem(ssn)
  if (why) problems.push({ pointer: `${pointer}/social_security_number`, detail: why, code: 'invalid_ssn' })
}

function birthDateProblems(birthDate: string, today: string, pointer: string, problems: FieldProblem[]): void {
  if (birthDate > today) problems.push({ pointer: `${pointer}/birth_date`, detail: 'must not be in the future', code: 'date_in_future' })
}

/** `subscriber` without dependents (and with an optional SSN, for updates). */
export function subscriberProblems(subscriber: SubscriberUpdate, pointer: string, today: string): FieldProblem[] {
  const problems: FieldProblem[] = []
  ssnProblems(subscriber.social_security_number, pointer, problems)
  birthDateProblems(subscriber.birth_date, today, pointer, problems)
  problems.push(...addressProblems(subscriber.residential_address, `${pointer}/residential_address`))
  if (subscriber.mailing_address) problems.push(...addressProblems(subscriber.mailing_address, `${pointer}/mailing_address`))
  const employment = subscriber.employment_details
  const at = `${pointer}/employment_details`
  if (employment.end_date !== undefined && employment.end_date < employment.start_date) {
    problems.push({ pointer: `${at}/end_date`, detail: 'must not be before start_date', code: 'end_before_start' })
  }
  if (employment.start_date < subscriber.birth_date) {
    problems.push({ pointer: `${at}/start_date`, detail: "must not be before the subscriber's birth_date", code: 'before_birth_date' })
  }
  if (subscriber.class && subscriber.class.effective_date < subscriber.birth_date) {
    problems.push({ pointer: `${pointer}/class/effective_date`, detail: "must not be before the subscriber's birth_date", code: 'before_birth_date' })
  }
  return problems
}

export function dependentProblems(dependent: DependentInput, subscriberBirthDate: string, pointer: string, today: string): FieldProblem[] {
  const problems: FieldProblem[] = []
  ssnProblems(dependent.social_security_number, pointer, problems)
  birthDateProblems(dependent.birth_date, today, pointer, problems)
  if (CHILD_RELATIONSHIPS.has(dependent.subscriber_relationship) && dependent.birth_date <= subscriberBirthDate) {
    problems.push({
      pointer: `${pointer}/birth_date`,
      detail: `must be after the subscriber's birth_date for a ${dependent.subscriber_relationship}`,
      code: 'born_before_subscriber',
    })
  }
  return problems
}

/** Pointers of items repeating an external_identifier seen earlier in the same list. */
export function duplicateIdentifierProblems(items: readonly { external_identifier: string }[], pointerOf: (index: number) => string): FieldProblem[] {
  const firstIndex = new Map<string, number>()
  const problems: FieldProblem[] = []
  items.forEach((item, index) => {
    const first = firstIndex.get(item.external_identifier)
    if (first === undefined) firstIndex.set(item.external_identifier, index)
    else
      problems.push({
        pointer: `${pointerOf(index)}/external_identifier`,
        detail: `repeats the external_identifier of ${pointerOf(first)} in this request`,
        code: 'duplicate_in_request',
      })
  })
  return problems
}

/** Every string anywhere in `value` that the database cannot store, pointed at: one rule for the whole API. */
export { unstorableTextProblems } from '../../lib/storable-text.js'
