import { describe, expect, it } from 'vitest'
import { memberSegments } from '../edi-834/edi-834.build.js'
import type { Edi834Member } from '../edi-834/edi-834.model.js'
import { testCoverage, testMember } from '../edi-834/edi-834.test-fixtures.js'
import { PreSendCheck } from './pre-send-check.js'

const address = { address_line_1: '1 Main St', address_line_2: null, city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' }
const family = (badSubscriber: boolean, badChild: boolean): Edi834Member[] => [
  testMember({ subscriber: true, relationship: 'self', memberId: 's', residentialAddress: { ...address, city: badSubscriber ? 'Y' : 'Springfield' } }),
  testMember({ relationship: 'spouse', memberId: 'p' }),
  testMember({ memberId: 'c', lastName: badChild ? '李' : 'Member' }),
]
const ids = (members: readonly Edi834Member[]) => members.map((m) => m.memberId)

describe('the check before sending, per family', () => {
  it('when every member passes, then the family goes whole and the writer gets the segments already built', () => {
    const check = new PreSendCheck([], new Map(), new Set())
    const members = family(false, false)
    expect(check.family('s', members)).toBe(members)
    expect(check.found).toEqual([])
    expect(check.segmentsOf(members[0]!)).toEqual(memberSegments(members[0]!))
  })

  it('when a dependent fails, then it alone is held back with its findings', () => {
    const check = new PreSendCheck([], new Map(), new Set(['c']))
    expect(ids(check.family('s', family(false, true)))).toEqual(['s', 'p'])
    expect(check.found).toEqual([{ memberId: 'c', subscriberId: 's', findings: [expect.objectContaining({ segmentId: 'NM1', qualifier: 'IL', elementPosition: 3, elementCode: '1', planId: null })] }])
    expect([...check.checked]).toEqual(['c'])
    expect(check.excluded).toEqual({ families: [], dependents: ['c'] })
  })

  it('when the subscriber fails, then the whole family is held back, its dependents without findings of their own', () => {
    const check = new PreSendCheck([], new Map(), new Set())
    expect(check.family('s', family(true, false))).toEqual([])
    expect(check.found.map((m) => [m.memberId, m.findings.length])).toEqual([['s', 1], ['p', 0], ['c', 0]])
    expect(check.excluded).toEqual({ families: ['s'], dependents: [] })
  })

  it('when a member has two loops and the second fails, then the member is held back with both', () => {
    const check = new PreSendCheck([], new Map([['V-LONG', 'plan-v']]), new Set())
    const child = testMember({ memberId: 'c', coverages: [testCoverage({})] })
    const cobra = testMember({ memberId: 'c', benefitStatus: 'cobra', coverages: [testCoverage({}), testCoverage({ productLine: 'vision', planExternalIdentifier: 'V'.repeat(51) })] })
    expect(check.family('s', [child, cobra])).toEqual([])
    expect(check.found).toEqual([{ memberId: 'c', subscriberId: 's', findings: [expect.objectContaining({ segmentId: 'REF', qualifier: 'CE', loopId: '2300', elementCode: '5' })] }])
  })

  it('when a coverage loop fails, then the finding names the coverage’s plan', () => {
    const check = new PreSendCheck([], new Map([['DEN-BASE', 'plan-d']]), new Set())
    const member = testMember({ memberId: 'c', coverages: [testCoverage({ planDescription: 'Dental', volume: Number.NaN })] })
    check.family('s', [member])
    expect(check.found[0]!.findings).toEqual([expect.objectContaining({ segmentId: 'AMT', loopId: '2300', planId: 'plan-d' })])
  })

  it('when an earlier pass held members back, then they are left out again without a second look', () => {
    const check = new PreSendCheck([{ memberId: 'c', subscriberId: 's', findings: [] }, { memberId: 't', subscriberId: 't', findings: [] }], new Map(), new Set())
    expect(ids(check.family('s', family(false, false)))).toEqual(['s', 'p'])
    expect(check.family('t', [testMember({ subscriber: true, relationship: 'self', memberId: 't', residentialAddress: address })])).toEqual([])
    expect(check.found).toEqual([])
    expect(check.excluded).toEqual({ families: ['t'], dependents: ['c'] })
  })
})
