import { describe, expect, it } from 'vitest'
import { isFein, isNpi, isZip, ssnProblem } from './identifiers.js'
import { countyMatchesState, isStateCode } from './us-geography.js'

describe('identifier rules', () => {
  it('when a FEIN has 9 digits and no separator, then it is accepted; otherwise refused', () => {
    expect(isFein('123456789')).toBe(true)
    for (const bad of ['12-3456789', '12345678', '1234567890', '12345678a']) expect(isFein(bad)).toBe(false)
  })

  it('when a ZIP is 5 digits, then it is accepted; ZIP+4 and letters are refused', () => {
    expect(isZip('94105')).toBe(true)
    for (const bad of ['9410', '94105-1234', 'ABCDE']) expect(isZip(bad)).toBe(false)
  })

  it('when an SSN has an area, group or serial that is never issued, then the problem says which part', () => {
    expect(ssnProblem('123456789')).toBeUndefined()
    expect(ssnProblem('000123456')).toMatch(/area/)
    expect(ssnProblem('666123456')).toMatch(/area/)
    expect(ssnProblem('900123456')).toMatch(/area/)
    expect(ssnProblem('123004567')).toMatch(/group/)
    expect(ssnProblem('123450000')).toMatch(/serial/)
    expect(ssnProblem('123-45-6789')).toMatch(/9 digits/)
    // The problem text never repeats the number.
    expect(ssnProblem('666123456')).not.toContain('666123456')
  })

  it('when an NPI has the right Luhn check digit (with the 80840 prefix), then it is accepted', () => {
    // 1234567893 is the example NPI of the CMS check-digit specification.
    expect(isNpi('1234567893')).toBe(true)
    expect(isNpi('1234567890')).toBe(false)
    expect(isNpi('123456789')).toBe(false)
  })

  it('when a county FIPS code starts with its state FIPS code, then it matches the state', () => {
    expect(isStateCode('CA')).toBe(true)
    expect(isStateCode('XX')).toBe(false)
    expect(countyMatchesState('06075', 'CA')).toBe(true)
    expect(countyMatchesState('36061', 'CA')).toBe(false)
    expect(countyMatchesState('6075', 'CA')).toBe(false)
  })
})
