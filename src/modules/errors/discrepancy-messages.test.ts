import { describe, expect, it } from 'vitest'
import { DISCREPANCY_KINDS, DISCREPANCY_MESSAGES, DISCREPANCY_PARAMETERS, discrepancyMessage, kindFromValues } from './discrepancy-messages.js'
import { kindProblems, storedDiscrepancyValue } from './discrepancy-values.js'

describe('the discrepancy message catalogue', () => {
  it('when listed, then it has exactly one entry per parameter and kind, in the order of the parameter list', () => {
    expect(DISCREPANCY_PARAMETERS).toHaveLength(23)
    expect(DISCREPANCY_MESSAGES).toHaveLength(23 * 4)
    expect(DISCREPANCY_MESSAGES.map((m) => `${m.parameter}:${m.kind}`)).toEqual(
      DISCREPANCY_PARAMETERS.flatMap((parameter) => DISCREPANCY_KINDS.map((kind) => `${parameter}:${kind}`)),
    )
  })

  it('when read, then every message is one plain sentence with no placeholder, and messages of a parameter differ', () => {
    for (const entry of DISCREPANCY_MESSAGES) {
      expect(entry.message, `${entry.parameter}:${entry.kind}`).toMatch(/^[A-Z][^{}$<>]*\.$/)
      expect(['failure', 'warning', 'info']).toContain(entry.severity)
      expect(['partner', 'service']).toContain(entry.assignee)
    }
    for (const parameter of DISCREPANCY_PARAMETERS) {
      const messages = DISCREPANCY_KINDS.map((kind) => discrepancyMessage(parameter, kind).message)
      expect(new Set(messages).size, parameter).toBe(4)
    }
    expect(new Set(DISCREPANCY_MESSAGES.map((m) => m.message)).size).toBe(92)
  })

  it('when the carrier lacks an item, then the operator acts; otherwise the partner', () => {
    expect(discrepancyMessage('birth_date', 'carrier_missing').assignee).toBe('service')
    expect(discrepancyMessage('birth_date', 'platform_missing').assignee).toBe('partner')
    expect(discrepancyMessage('emails', 'carrier_value_differs')).toMatchObject({ assignee: 'partner', severity: 'info' })
    expect(discrepancyMessage('primary_care_provider', 'platform_missing')).toMatchObject({ severity: 'failure', assignee: 'partner' })
  })
})

describe('kinds and stored values', () => {
  it('when no kind is given, then the values decide it', () => {
    expect(kindFromValues('a', 'b')).toBe('carrier_value_differs')
    expect(kindFromValues(null, 'b')).toBe('carrier_missing')
    expect(kindFromValues(undefined, false)).toBe('carrier_missing')
    expect(kindFromValues(0, null)).toBe('platform_missing')
    expect(kindFromValues(undefined, undefined)).toBe('value_invalid')
  })

  it('when a kind contradicts the values, then it is a problem at the kind', () => {
    expect(kindProblems('carrier_missing', 'x', null, '/k')).toEqual([expect.objectContaining({ pointer: '/k', code: 'kind_contradicts_values' })])
    expect(kindProblems('platform_missing', null, 'x', '/k')).toHaveLength(1)
    expect(kindProblems('carrier_value_differs', 'x', null, '/k')).toHaveLength(1)
    expect(kindProblems('value_invalid', 'x', 'y', '/k')).toEqual([])
    expect(kindProblems('carrier_missing', null, 'y', '/k')).toEqual([])
  })

  it('when a value is an SSN, then only its masked last four are stored; other values are kept as JSON', () => {
    expect(storedDiscrepancyValue('social_security_number', '123-45-6789')).toBe('"***-**-6789"')
    expect(storedDiscrepancyValue('social_security_number', 123456789)).toBe('"***-**-6789"')
    expect(storedDiscrepancyValue('social_security_number', { ssn: '123456789' })).toBe('"***-**-****"')
    expect(storedDiscrepancyValue('social_security_number', null)).toBeNull()
    expect(storedDiscrepancyValue('birth_date', '1985-03-14')).toBe('"1985-03-14"')
    expect(storedDiscrepancyValue('emails', [{ contact: 'a@b.c' }])).toBe('[{"contact":"a@b.c"}]')
    expect(storedDiscrepancyValue('tobacco_use', false)).toBe('false')
  })
})
