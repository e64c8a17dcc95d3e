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
    const context = { employmentStartDate: '2027-01-01', familyIds: new Set<string>(), plans: new Map() }
    const allowed = LIFE_EVENTS.filter((event) => lifeEventProblems(input(event), { ...context, setupCompleted: false }).length === 0)
    expect(allowed).toEqual(['initial_enrollment', 'newly_eligible'])
    for (const event of LIFE_EVENTS) expect(lifeEventProblems(input(event), { ...context, setupCompleted: true }), event).toEqual([])
  })
})
