import { describe, expect, it } from 'vitest'
import { allowedTransitions, isAllowedTransition, WORK_ORDER_TRANSITIONS } from './work-order-states.js'

describe('work order state machine', () => {
  it('when a work order is open, then it can only start or be cancelled', () => {
    expect(allowedTransitions('open')).toEqual(['in_progress', 'cancelled'])
    expect(isAllowedTransition('open', 'submitted')).toBe(false)
  })

  it('when the carrier asks for more information, then the order goes back and forth with submitted', () => {
    expect(isAllowedTransition('submitted', 'needs_information')).toBe(true)
    expect(isAllowedTransition('needs_information', 'submitted')).toBe(true)
    expect(isAllowedTransition('needs_information', 'completed')).toBe(false)
  })

  it('when a work order is completed or cancelled, then nothing moves it again', () => {
    expect(allowedTransitions('completed')).toEqual([])
    expect(allowedTransitions('cancelled')).toEqual([])
  })

  it('when any state but a final one, then it can be cancelled and never moves to itself', () => {
    for (const [from, targets] of Object.entries(WORK_ORDER_TRANSITIONS)) {
      expect(targets).not.toContain(from)
      if (from !== 'completed' && from !== 'cancelled') expect(targets).toContain('cancelled')
    }
  })
})
