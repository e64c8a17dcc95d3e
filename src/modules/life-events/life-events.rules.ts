import type { FieldProblem } from '../../lib/domain-error.js'
import { addDays } from '../coverage-timeline/coverage-timeline.model.js'
import type { ProductLine } from '../plans/plans.schema.js'
import { ELECTION_KEYS, INSTALLATION_EVENTS, type ElectionInput, type ElectionKey, type LifeEventInput } from './life-events.schema.js'

/**
 * What a plan must be to be elected under each key of plan_elections. `voluntary`: true for the
 * voluntary_* keys, false for non_voluntary_life and the plain (employer-paid) life and AD&D keys,
 * undefined (either) for the other lines, where the key says nothing about who pays.
 */
export interface PlanRequirement {
  productLine: ProductLine
  productType?: string
  voluntary?: boolean
}

export const PLAN_REQUIREMENTS: Record<ElectionKey, PlanRequirement> = {
  medical: { productLine: 'medical' },
  dental: { productLine: 'dental' },
  vision: { productLine: 'vision' },
  voluntary_life: { productLine: 'life', voluntary: true },
  non_voluntary_life: { productLine: 'life', voluntary: false },
  accidental_death_dismemberment: { productLine: 'accidental_death_dismemberment', voluntary: false },
  voluntary_accidental_death_dismemberment: { productLine: 'accidental_death_dismemberment', voluntary: true },
  life_accidental_death_dismemberment: { productLine: 'life_accidental_death_dismemberment', voluntary: false },
  voluntary_life_accidental_death_dismemberment: { productLine: 'life_accidental_death_dismemberment', voluntary: true },
  short_term_disability: { productLine: 'disability', productType: 'short_term' },
  long_term_disability: { productLine: 'disability', productType: 'long_term' },
  hospital_indemnity: { productLine: 'hospital_indemnity' },
  critical_illness: { productLine: 'critical_illness' },
  accident: { productLine: 'accident' },
}

/** A plan as the rules need it. */
export interface PlanFacts {
  id: string
  coverage_period_id: string
  product_line: string
  product_type: string | null
  voluntary: boolean
}

export interface LifeEventContext {
  /** setup_completed_at of the coverage period is set. */
  setupCompleted: boolean
  /** The group has an earlier coverage period with the same carrier: this one is a renewal. */
  renewal: boolean
  /** The coverage period's dates: coverages start within them. */
  period: { startDate: string; endDate: string | null }
  /** Birth dates of the family's dependents, by id (a birth event's newborn is one of them). */
  birthDates: ReadonlyMap<string, string>
  /** employment_details.start_date of the subscriber. */
  employmentStartDate: string | undefined
  /** The subscriber's id and its dependents' ids. */
  familyIds: ReadonlySet<string>
  /** Plans of the coverage period, by id (plans of other periods or accounts are absent). */
  plans: ReadonlyMap<string, PlanFacts>
}

const at = (path: string) => `/qualifying_life_event/${path}`


/** A birth is reported within this many days after the child was born; later, it is newly_eligible. */
export const BIRTH_REPORTING_DAYS = 30

/**
 * A birth event covers a child born on or at most 30 days before the event's date (api-contract.md
 * section 10). The newborn is a dependent the event's elections cover.
 */
function birthProblem(input: LifeEventInput, context: LifeEventContext): FieldProblem | undefined {
  const covered = ELECTION_KEYS.flatMap((key) => input.plan_elections[key]?.coverages ?? []).map((coverage) => coverage.member_id)
  const births = [...new Set(covered)].map((id) => context.birthDates.get(id)).filter((date): date is string => date !== undefined)
  if (births.some((born) => born <= input.date && input.date <= addDays(born, BIRTH_REPORTING_DAYS))) return undefined
  return {
    pointer: at('date'),
    detail:
      births.length === 0
        ? 'a birth event must cover the newborn dependent, born on or within 30 days before this date'
        : `must be within ${BIRTH_REPORTING_DAYS} days after the birth date of a dependent it covers; a later enrollment is newly_eligible`,
    code: 'birth_reporting_window',
  }
}

/** The problems of one plan against the key it is elected under, or none. */
export function planFitProblem(key: ElectionKey, plan: PlanFacts): string | undefined {
  const need = PLAN_REQUIREMENTS[key]
  if (plan.product_line !== need.productLine) return `must be a ${need.productLine} plan for ${key} (this plan is ${plan.product_line})`
  if (need.productType && plan.product_type !== need.productType) return `must be a ${need.productType} disability plan for ${key}`
  if (need.voluntary === true && !plan.voluntary) return `must be a voluntary plan for ${key}`
  if (need.voluntary === false && plan.voluntary) return `must not be a voluntary plan for ${key} (use the voluntary_ key)`
  return undefined
}

function electionProblems(key: ElectionKey, election: ElectionInput, context: LifeEventContext, problems: FieldProblem[]): void {
  const base = `plan_elections/${key}`
  if (election.type === 'waiver') {
    if (election.plan_id !== undefined) problems.push({ pointer: at(`${base}/plan_id`), detail: 'is not allowed on a waiver', code: 'not_allowed_for_waiver' })
    if (election.coverages !== undefined) problems.push({ pointer: at(`${base}/coverages`), detail: 'is not allowed on a waiver', code: 'not_allowed_for_waiver' })
    return
  }
  if (election.waiver_signature_date !== undefined) {
    problems.push({ pointer: at(`${base}/waiver_signature_date`), detail: 'is allowed on a waiver only', code: 'not_allowed_for_election' })
  }
  if (election.waiver_reason !== undefined) {
    problems.push({ pointer: at(`${base}/waiver_reason`), detail: 'is allowed on a waiver only', code: 'not_allowed_for_election' })
  }
  if (election.plan_id === undefined) {
    problems.push({ pointer: at(`${base}/plan_id`), detail: 'is required for an election', code: 'required' })
  } else {
    const plan = context.plans.get(election.plan_id)
    if (!plan) {
      problems.push({ pointer: at(`${base}/plan_id`), detail: 'is not a plan of this coverage period', code: 'not_in_coverage_period' })
    } else {
      const misfit = planFitProblem(key, plan)
      if (misfit) problems.push({ pointer: at(`${base}/plan_id`), detail: misfit, code: 'plan_does_not_fit_election' })
    }
  }
  const coverages = election.coverages ?? []
  if (coverages.length === 0) {
    problems.push({ pointer: at(`${base}/coverages`), detail: 'must cover at least one member in an election', code: 'required' })
  }
  const seen = new Map<string, number>()
  coverages.forEach((coverage, index) => {
    const pointer = at(`${base}/coverages/${index}`)
    if (!context.familyIds.has(coverage.member_id)) {
      problems.push({ pointer: `${pointer}/member_id`, detail: 'must be the subscriber or one of its dependents', code: 'not_in_family' })
    }
    const first = seen.get(coverage.member_id)
    if (first === undefined) seen.set(coverage.member_id, index)
    else problems.push({ pointer: `${pointer}/member_id`, detail: `repeats the member of ${at(`${base}/coverages/${first}`)}`, code: 'duplicate_in_request' })
    // An end before the start is Ideon's "never effective" (end = start - 1): it cancels a
    // coverage that never took effect, so only a start more than a day after the end is refused.
    if (coverage.end_date !== undefined && coverage.end_date < addDays(coverage.start_date, -1)) {
      problems.push({
        pointer: `${pointer}/end_date`,
        detail: 'must be on or after start_date, or the day before it to cancel a coverage that never took effect',
        code: 'end_before_start',
      })
    }
    const { startDate, endDate } = context.period
    if (coverage.start_date < startDate || (endDate !== null && coverage.start_date > endDate)) {
      problems.push({
        pointer: `${pointer}/start_date`,
        detail: `must lie within the coverage period (${startDate} to ${endDate ?? 'open'})`,
        code: 'outside_coverage_period',
      })
    }
  })
}

/** Every business rule of a qualifying life event beyond the schema, all at once. */
export function lifeEventProblems(input: LifeEventInput, context: LifeEventContext): FieldProblem[] {
  const problems: FieldProblem[] = []
  if (!context.setupCompleted && !context.renewal && !INSTALLATION_EVENTS.includes(input.event)) {
    problems.push({
      pointer: at('event'),
      detail: `must be initial_enrollment or newly_eligible while the setup of the coverage period is not complete (installation), not ${input.event}`,
      code: 'event_not_allowed_during_installation',
    })
  }
  if (input.event === 'new_hire' && input.date !== context.employmentStartDate) {
    problems.push({ pointer: at('date'), detail: "must equal the subscriber's employment_details.start_date for a new_hire event", code: 'not_employment_start_date' })
  }
  if (input.event === 'birth') {
    const problem = birthProblem(input, context)
    if (problem) problems.push(problem)
  }
  const keys = ELECTION_KEYS.filter((key) => input.plan_elections[key] !== undefined)
  if (keys.length === 0) {
    problems.push({ pointer: at('plan_elections'), detail: 'must hold at least one election or waiver', code: 'required' })
  }
  for (const key of keys) electionProblems(key, input.plan_elections[key]!, context, problems)
  return problems
}
