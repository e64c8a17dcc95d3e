import { describe, expect, it } from 'vitest'
import { PLAN_REQUIREMENTS, lifeEventProblems, planFitProblem, type PlanFacts } from './life-events.rules.js'
import { ELECTION_KEYS, LIFE_EVENTS, type LifeEventInput } from './life-events.schema.js'

const plan = (overrides: Partial<PlanFacts>): PlanFacts => ({
  id: 'p',
  coverage_period_id: 'cp',
  product_line: 'medical',
  product_type: null,
  voluntary: false,
  ...overrides,
})

/** The plan each key is made for, as the plan rules would accept it. */
const fitting = (key: (typeof ELECTION_KEYS)[number]): PlanFacts => {
  const need = PLAN_REQUIREMENTS[key]
  return plan({ product_line: need.productLine, product_type: need.productType ?? null, voluntary: need.voluntary ?? false })
}

describe('life event rules', () => {
  it('when each key gets the plan it is made for, then it fits; a plan of another line never fits', () => {
    for (const key of ELECTION_KEYS) {
      expect(planFitProblem(key, fitting(key)), key).toBeUndefined()
      expect(planFitProblem(key, plan({ product_line: key === 'accident' ? 'vision' : 'accident' })), key).toBeDefined()
    }
  })

  it('when a voluntary key gets a non-voluntary plan or the reverse, then it does not fit; lines without a voluntary rule take both', () => {
    expect(planFitProblem('voluntary_life', plan({ product_line: 'life', voluntary: false }))).toMatch(/voluntary/)
    expect(planFitProblem('non_voluntary_life', plan({ product_line: 'life', voluntary: true }))).toMatch(/voluntary/)
    expect(planFitProblem('accidental_death_dismemberment', plan({ product_line: 'accidental_death_dismemberment', voluntary: true }))).toBeDefined()
    expect(planFitProblem('medical', plan({ product_line: 'medical', voluntary: true }))).toBeUndefined()
    expect(planFitProblem('short_term_disability', plan({ product_line: 'disability', product_type: 'long_term' }))).toMatch(/short_term/)
  })

  it('when the setup is not complete, then exactly initial_enrollment and newly_eligible pass; after it every event passes', () => {
    const input = (event: (typeof LIFE_EVENTS)[number]): LifeEventInput => ({
      coverage_period_id: 'cp',
      event,
      date: '2027-01-01',
      eligibility_start_date: '2027-01-01',
      plan_elections: { dental: { type: 'waiver' } },
    })
    const context = { employmentStartDate: '2027-01-01', familyIds: new Set<string>(), plans: new Map(), renewal: false, period: { startDate: '2027-01-01', endDate: null }, birthDates: new Map() }
    const allowed = LIFE_EVENTS.filter((event) => lifeEventProblems(input(event), { ...context, setupCompleted: false }).length === 0)
    expect(allowed).toEqual(['initial_enrollment', 'newly_eligible'])
    // A birth needs its newborn among the covered members; every other event passes once setup is complete, or on a renewal.
    const others = LIFE_EVENTS.filter((event) => event !== 'birth')
    for (const event of others) expect(lifeEventProblems(input(event), { ...context, setupCompleted: true }), event).toEqual([])
    for (const event of others) expect(lifeEventProblems(input(event), { ...context, setupCompleted: false, renewal: true }), event).toEqual([])
  })

  describe('birth and dates', () => {
    const medical = fitting('medical')
    const context = {
      setupCompleted: true,
      renewal: false,
      employmentStartDate: '2020-01-01',
      familyIds: new Set(['sub', 'baby']),
      plans: new Map([[medical.id, medical]]),
      period: { startDate: '2027-01-01', endDate: '2027-12-31' },
      birthDates: new Map([['baby', '2027-03-01']]),
    }
    const birth = (date: string, coverage: { start_date: string; end_date?: string } = { start_date: '2027-03-01' }): LifeEventInput => ({
      coverage_period_id: 'cp',
      event: 'birth',
      date,
      eligibility_start_date: date,
      plan_elections: { medical: { type: 'election', plan_id: medical.id, coverages: [{ member_id: 'baby', status: 'employer_sponsored', ...coverage }] } },
    })
    const codes = (input: LifeEventInput) => lifeEventProblems(input, context).map((p) => [p.pointer, p.code])

    it('when a birth is reported on the birth date or up to 30 days after, then it passes; a day later it is refused', () => {
      expect(codes(birth('2027-03-01'))).toEqual([])
      expect(codes(birth('2027-03-31'))).toEqual([])
      expect(codes(birth('2027-04-01'))).toEqual([['/qualifying_life_event/date', 'birth_reporting_window']])
      expect(codes(birth('2027-02-28'))).toEqual([['/qualifying_life_event/date', 'birth_reporting_window']])
    })

    it("when an end date is the day before the start (Ideon's never effective), then it passes; two days before is refused", () => {
      expect(codes(birth('2027-03-01', { start_date: '2027-03-01', end_date: '2027-02-28' }))).toEqual([])
      expect(codes(birth('2027-03-01', { start_date: '2027-03-01', end_date: '2027-02-27' }))).toEqual([['/qualifying_life_event/plan_elections/medical/coverages/0/end_date', 'end_before_start']])
    })

    it('when a coverage starts outside the coverage period, then it is refused at its start_date', () => {
      expect(codes(birth('2027-03-01', { start_date: '2028-01-01' }))).toEqual([['/qualifying_life_event/plan_elections/medical/coverages/0/start_date', 'outside_coverage_period']])
      expect(codes(birth('2027-03-01', { start_date: '2026-12-31' }))).toEqual([['/qualifying_life_event/plan_elections/medical/coverages/0/start_date', 'outside_coverage_period']])
    })
  })
})
