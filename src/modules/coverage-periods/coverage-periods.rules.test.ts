import { describe, expect, it } from 'vitest'
import { coveragePeriodProblems } from './coverage-periods.service.js'

const context = { carrierKnown: true, carrierGiven: true, signOffRequired: true, today: '2026-11-22' }
const input = {
  external_identifier: 'cp',
  coverage_start_date: '2027-01-01',
  employer_sign_off: { name: 'Pat', title: 'CFO', date: '2026-11-22' },
}
const pointers = (overrides: object, ctx: Partial<typeof context> = {}) =>
  coveragePeriodProblems({ ...input, ...overrides }, { ...context, ...ctx }).map((p) => p.pointer)

describe('coverage period rules', () => {
  it('when open enrollment dates are ordered start <= end <= coverage start, then they pass; equal dates included', () => {
    expect(pointers({ open_enrollment_start_date: '2026-12-01', open_enrollment_end_date: '2027-01-01' })).toEqual([])
    expect(pointers({ open_enrollment_start_date: '2027-01-01', open_enrollment_end_date: '2027-01-01' })).toEqual([])
    expect(pointers({ open_enrollment_start_date: '2027-01-01' })).toEqual([])
  })

  it('when only an open enrollment start after the coverage start is given, then it is reported', () => {
    expect(pointers({ open_enrollment_start_date: '2027-01-02' })).toEqual(['/coverage_period/open_enrollment_start_date'])
  })

  it('when the sign-off is dated today, then it passes; tomorrow is in the future', () => {
    expect(pointers({})).toEqual([])
    expect(pointers({ employer_sign_off: { ...input.employer_sign_off, date: '2026-11-23' } })).toEqual(['/coverage_period/employer_sign_off/date'])
  })

  it('when the group has no installment, then a missing sign-off passes', () => {
    expect(pointers({ employer_sign_off: null }, { signOffRequired: false })).toEqual([])
    expect(pointers({ employer_sign_off: null })).toEqual(['/coverage_period/employer_sign_off'])
  })
})
