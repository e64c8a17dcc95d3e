import { describe, expect, it } from 'vitest'
import { planProblems } from './plans.service.js'
import { POLICY_PREMIUM_METHODS, PREMIUM_RATING_METHODS, PRODUCT_LINES, type CreatePlanInput } from './plans.schema.js'

const base: CreatePlanInput = {
  external_identifier: 'p',
  description: 'Plan',
  product_line: 'medical',
  product_type: 'health_maintenance_organization',
  policy_premium_method: 'list_bill',
}

const pointers = (input: CreatePlanInput) => planProblems(input).map((p) => p.pointer)

describe('plan rules', () => {
  it('when a composite method has no rating method, then only premium_rating_method is reported; with any rating method it passes', () => {
    for (const method of POLICY_PREMIUM_METHODS.filter((m) => m.endsWith('_composite'))) {
      expect(pointers({ ...base, policy_premium_method: method })).toEqual(['/plan/premium_rating_method'])
      for (const rating of PREMIUM_RATING_METHODS) expect(pointers({ ...base, policy_premium_method: method, premium_rating_method: rating })).toEqual([])
    }
    expect(pointers({ ...base, policy_premium_method: 'list_bill' })).toEqual([])
  })

  it('when each product line gets exactly what it requires, then no problem is reported', () => {
    const fitting: Record<string, Partial<CreatePlanInput>> = {
      medical: { product_type: 'indemnity' },
      disability: { product_type: 'long_term' },
      dental: { product_type: null, premium_level: 'none' },
      vision: { product_type: null, premium_level: 'base' },
    }
    for (const line of PRODUCT_LINES) {
      expect(pointers({ ...base, product_type: null, ...fitting[line], product_line: line }), line).toEqual([])
    }
  })
})
