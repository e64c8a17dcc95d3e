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

// PostgreSQL text and jsonb cannot hold NUL, and jsonb refuses unpaired UTF-16 surrogates: such a
// string would fail in the database (a 500) instead of being refused with a pointer.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Every string anywhere in `value` that the database cannot store, pointed at. */
export function unstorableTextProblems(value: unknown, pointer: string, problems: FieldProblem[] = []): FieldProblem[] {
  if (typeof value === 'string') {
    if (UNSTORABLE.test(value)) problems.push({ pointer, detail: 'contains a NUL character or an unpaired surrogate', code: 'invalid_character' })
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => unstorableTextProblems(item, `${pointer}/${index}`, problems))
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) unstorableTextProblems(item, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, problems)
  }
  return problems
}
