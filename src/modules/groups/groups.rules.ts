import type { FieldProblem } from '../../lib/domain-error.js'
import { addressProblems } from '../common/address.js'
import type { GroupCore, LocationInputT, NewGroup, ProducerInputT } from './groups.schema.js'

/** Business rules the schema cannot express. Every problem is listed, none stops the others. */

export const MAX_WRITING_PRODUCERS = 2

/** Percent with up to two decimals as integer hundredths, so 33.33 + 33.33 + 33.34 is exactly 10000. */
function hundredths(percent: number): number {
  return Math.round(percent * 100)
}

export function producerProblems(producers: readonly ProducerInputT[], base: string, today: string): FieldProblem[] {
  const problems: FieldProblem[] = []
  producers.forEach((producer, n) => {
    if (producer.signature_date > today) {
      problems.push({ pointer: `${base}/${n}/signature_date`, detail: 'is in the future; give the date the master employer application was signed', code: 'date_in_future' })
    }
  })
  if (producers.length === 1 && hundredths(producers[0]!.commission_split) !== 10000) {
    problems.push({ pointer: `${base}/0/commission_split`, detail: 'must be 100 when the group has a single producer of record', code: 'commission_split_not_100' })
  }
  if (producers.length > 1) {
    const sum = producers.reduce((total, producer) => total + hundredths(producer.commission_split), 0)
    if (sum !== 10000) {
      problems.push({
        pointer: base,
        detail: `the commission_split values of the producers sum to ${(sum / 100).toString()}; with several producers they must sum to exactly 100`,
        code: 'commission_split_sum',
      })
    }
  }
  let writing = 0
  producers.forEach((producer, n) => {
    if (!producer.writing_producer) return
    writing += 1
    if (writing > MAX_WRITING_PRODUCERS) {
      problems.push({ pointer: `${base}/${n}/writing_producer`, detail: `at most ${MAX_WRITING_PRODUCERS} producers of a group may be writing producers`, code: 'too_many_writing_producers' })
    }
  })
  return problems
}

export function locationProblems(location: LocationInputT, pointer: string, primary: boolean): FieldProblem[] {
  const problems = addressProblems(location.employer_address, `${pointer}/employer_address`)
  if (primary && location.type !== 'physical') {
    problems.push({ pointer: `${pointer}/type`, detail: 'must be physical for the primary location (the worksite carriers rate on)', code: 'primary_location_not_physical' })
  }
  return problems
}

/** Rules of the group core (employer, census, producers): shared by create and update. */
export function groupCoreProblems(group: GroupCore, base: string, today: string): FieldProblem[] {
  const problems: FieldProblem[] = []
  const { employer } = group
  if (employer.established_date && employer.established_date > today) {
    problems.push({ pointer: `${base}/employer/established_date`, detail: 'is in the future', code: 'date_in_future' })
  }
  if (employer.census.eligible_employees > employer.census.employees) {
    problems.push({ pointer: `${base}/employer/census/eligible_employees`, detail: 'must not exceed employees', code: 'exceeds_employees' })
  }
  if (employer.census.full_time_equivalent_employees > employer.census.employees) {
    problems.push({ pointer: `${base}/employer/census/full_time_equivalent_employees`, detail: 'must not exceed employees', code: 'exceeds_employees' })
  }
  problems.push(...producerProblems(group.producers_of_record ?? [], `${base}/producers_of_record`, today))
  return problems
}

export function newGroupProblems(group: NewGroup, base: string, today: string): FieldProblem[] {
  return [
    ...groupCoreProblems(group, base, today),
    ...locationProblems(group.primary_location, `${base}/primary_location`, true),
    ...(group.secondary_locations ?? []).flatMap((location, n) => locationProblems(location, `${base}/secondary_locations/${n}`, false)),
  ]
}

/** Locations of one request that repeat an external_identifier: pointers at the repeats. */
export function duplicateLocationIdentifiers(group: NewGroup, base: string): FieldProblem[] {
  const seen = new Set([group.primary_location.external_identifier])
  const problems: FieldProblem[] = []
  for (const [n, location] of (group.secondary_locations ?? []).entries()) {
    if (seen.has(location.external_identifier)) {
      problems.push({ pointer: `${base}/secondary_locations/${n}/external_identifier`, detail: 'is already used by another location of the group', code: 'duplicate' })
    }
    seen.add(location.external_identifier)
  }
  return problems
}
