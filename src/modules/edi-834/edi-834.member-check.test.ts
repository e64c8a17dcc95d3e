import { describe, expect, it } from 'vitest'
import { parameterOfFinding } from './edi-834.findings.js'
import { memberSegments } from './edi-834.build.js'
import { checkMember, memberFindings, memberProblems } from './edi-834.member-check.js'
import { check834 } from './edi-834.rules.js'
import { CHANGE_MEMBERS, FULL_FAMILY, LIFE_EVENT_MEMBERS, MINIMAL_FAMILY, testCoverage, testMember } from './edi-834.test-fixtures.js'
import { write834ToString } from './edi-834.writer.js'
import type { Edi834Member } from './edi-834.model.js'
import { walkLoop, type Edi834Problem } from './edi-834.rule-engine.js'
import { addDataElementNumbers, LOOP_2000 } from './edi-834.rules.js'
import { CHANGE_HEADER, ENVELOPE } from './edi-834.test-fixtures.js'

const address = { address_line_1: '1 Main St', address_line_2: null, city: 'Springfield', state: 'IL', zip: '62701', fips_county_code: '17167' }
const subscriber = testMember({ subscriber: true, relationship: 'self', residentialAddress: address })

describe('the rule table on one member', () => {
  it('when every fixture member is checked alone, then none has a problem', () => {
    for (const member of [...FULL_FAMILY, ...MINIMAL_FAMILY, ...CHANGE_MEMBERS, ...LIFE_EVENT_MEMBERS]) expect(memberProblems(member)).toEqual([])
  })

  it('when a city has one letter (the API allows it, N401 needs two), then N401 is too short (IK4 4) in loop 2100A: the residential address', () => {
    const check = checkMember({ ...subscriber, residentialAddress: { ...address, city: 'Y' } })
    expect(check.problems).toEqual([expect.objectContaining({ segment: 'N4', element: 'N401', loop: '2100A', segmentCode: '8', elementCode: '4', dataElement: 19 })])
    const [finding] = memberFindings(check)
    expect(finding).toMatchObject({ segmentId: 'N4', qualifier: null, elementPosition: 1, loopId: '2100A', elementCode: '4', coverageIndex: null })
    expect(parameterOfFinding(finding!)).toBe('residential_address')
    // The city is data, not a qualifier: a finding never carries it. Positions are the member's own: INS is 1.
    expect(check.segments[finding!.position - 1]![0]).toBe('N4')
  })

  it('when a last name has no Latin letter (sanitised away), then NM103 is missing (IK4 1) and no field is named', () => {
    const [finding] = memberFindings(checkMember(testMember({ lastName: '李' })))
    expect(finding).toMatchObject({ segmentId: 'NM1', qualifier: 'IL', elementPosition: 3, loopId: '2100A', elementCode: '1', coverageIndex: null })
    expect(parameterOfFinding(finding!)).toBeNull()
  })

  it('when a subscriber identifier is longer than REF02 allows, then REF02 is too long (IK4 5)', () => {
    const findings = memberFindings(checkMember(testMember({ subscriberIdentifier: 'x'.repeat(51) })))
    expect(findings).toEqual([expect.objectContaining({ segmentId: 'REF', qualifier: '0F', elementPosition: 2, elementCode: '5' })])
  })

  it('when the second coverage has a bad value, then the finding names that coverage', () => {
    const member = testMember({
      coverages: [testCoverage({}), testCoverage({ productLine: 'vision', planDescription: 'Vision', planExternalIdentifier: 'V'.repeat(51) })],
    })
    const findings = memberFindings(checkMember(member))
    expect(findings).toEqual([expect.objectContaining({ segmentId: 'REF', qualifier: 'CE', loopId: '2300', elementCode: '5', coverageIndex: 1 })])
    expect(parameterOfFinding(findings[0]!)).toBe('plan_id')
  })

  it('when a member fails alone, then check834 finds the same problem at the same element in the written file', async () => {
    const bad = testMember({ lastName: '李' })
    const file = await write834ToString(ENVELOPE, { ...CHANGE_HEADER, totals: { subscribers: 0, dependents: 1 } }, [bad])
    const whole = check834(file).map((p) => ({ segment: p.segment, element: p.element, elementCode: p.elementCode, loop: p.loop }))
    const alone = memberProblems(bad).map((p) => ({ segment: p.segment, element: p.element, elementCode: p.elementCode, loop: p.loop }))
    expect(whole).toEqual(alone)
  })

  it('when the writer is given the checked segments, then the file is the same as the one it builds itself', async () => {
    const members = [...FULL_FAMILY]
    const checked = new Map(members.map((m) => [m, checkMember(m).segments]))
    const header = { ...CHANGE_HEADER, action: 'replace' as const, totals: { subscribers: 1, dependents: members.length - 1 } }
    expect(await write834ToString(ENVELOPE, header, members, { segmentsOf: (m) => checked.get(m)! })).toBe(await write834ToString(ENVELOPE, header, members))
    expect(checked.get(members[0]!)).toEqual(memberSegments(members[0]!))
  })

  it('when members of one shape are checked one after another, then each gets the problems a walk of its own finds (values, then structure)', () => {
    // What the rule engine finds walking the member afresh, without a walk remembered by shape.
    const walkedAfresh = (member: Edi834Member): Edi834Problem[] => {
      const tokens = memberSegments(member).map((segment, i) => ({ id: segment[0]!, elements: segment.slice(1), position: i + 1 }))
      const problems: Edi834Problem[] = []
      walkLoop(LOOP_2000, tokens, { pos: 0 }, [], problems)
      if (problems.length > 0) addDataElementNumbers(problems)
      return problems
    }
    const badZip = { ...subscriber, residentialAddress: { ...address, zip: '6270' } }
    const badCode = { ...subscriber, residentialAddress: { ...address, state: 'XX' } }
    for (const member of [subscriber, badZip, subscriber, badCode, badZip]) {
      expect(checkMember(member).problems).toEqual(walkedAfresh(member))
    }
    expect(checkMember(badZip).problems).toEqual([expect.objectContaining({ segment: 'N4', element: 'N403', elementCode: 'I12' })])
    expect(checkMember(subscriber).problems).toEqual([])
    // A shape with a structural problem (loop 2300 over its 99 repeats), checked twice.
    const crowded = testMember({ coverages: Array.from({ length: 100 }, () => testCoverage({})) })
    for (let i = 0; i < 2; i++) {
      expect(checkMember(crowded).problems).toEqual(walkedAfresh(crowded))
      expect(checkMember(crowded).problems).toEqual([expect.objectContaining({ loop: '2000', segmentCode: '4' })])
    }
  })
})
