import { beforeAll, describe, expect, it } from 'vitest'
import type { LoopRule, SegmentRule } from './edi-834.rule-engine.js'
import { check834, TRANSACTION_834, type Edi834Problem } from './edi-834.rules.js'
import { CHANGE_HEADER, CHANGE_MEMBERS, ENVELOPE, FULL_FAMILY, MINIMAL_FAMILY, REPLACE_HEADER } from './edi-834.test-fixtures.js'
import { write834ToString } from './edi-834.writer.js'

let full = ''

beforeAll(async () => {
  full = await write834ToString(ENVELOPE, REPLACE_HEADER, [...FULL_FAMILY, ...MINIMAL_FAMILY])
})

/** Replaces exactly one occurrence, so a test cannot silently edit nothing. */
function breakOnce(text: string, from: string, to: string): string {
  const at = text.indexOf(from)
  expect(at, `'${from}' is in the file`).toBeGreaterThanOrEqual(0)
  return text.slice(0, at) + to + text.slice(at + from.length)
}

function segmentsOf(text: string): string[] {
  return text.split('~\n').filter((s) => s !== '')
}

/** 1-based position of the first segment starting with `prefix`. */
function positionOf(text: string, prefix: string): number {
  return segmentsOf(text).findIndex((s) => s.startsWith(prefix)) + 1
}

/** Adding or removing a segment also breaks SE01: tests about another rule leave that one out. */
function besidesCount(problems: Edi834Problem[]): Edi834Problem[] {
  return problems.filter((p) => p.element !== 'SE01')
}

function only(problems: Edi834Problem[]): Edi834Problem {
  expect(problems).toHaveLength(1)
  return problems[0] as Edi834Problem
}

describe('check834 on generated files', () => {
  it('when the replace and change files are checked, then there are no problems', async () => {
    expect(check834(full)).toEqual([])
    expect(check834(await write834ToString(ENVELOPE, CHANGE_HEADER, CHANGE_MEMBERS))).toEqual([])
  })
})

describe('check834 envelope', () => {
  it('when SE01 is wrong, then the problem is at SE with the real count', () => {
    const se = segmentsOf(full).find((s) => s.startsWith('SE*')) as string
    const problem = only(check834(breakOnce(full, `${se}~`, 'SE*5*0042~')))
    expect(problem).toMatchObject({ segment: 'SE', element: 'SE01', position: positionOf(full, 'SE*') })
    expect(problem.message).toContain('the count is 96')
  })

  it('when IEA02, GE02 or SE02 does not match its header, then each is reported', () => {
    expect(only(check834(breakOnce(full, 'IEA*1*000000042', 'IEA*1*000000043')))).toMatchObject({ segment: 'IEA', element: 'IEA02' })
    expect(only(check834(breakOnce(full, 'GE*1*42', 'GE*1*43')))).toMatchObject({ segment: 'GE', element: 'GE02' })
    expect(only(check834(breakOnce(full, '*0042~\nGE', '*0043~\nGE')))).toMatchObject({ segment: 'SE', element: 'SE02' })
    expect(check834(breakOnce(full, 'GE*1*42', 'GE*2*42'))[0]).toMatchObject({ element: 'GE01' })
  })

  it('when the ISA is not 106 characters wide, then the width is reported', () => {
    const problems = check834(breakOnce(full, 'ENROLLSYNC     *', 'ENROLLSYNC*'))
    expect(problems.map((p) => p.message)).toContain('the ISA is 101 characters long, not 106')
    expect(problems).toContainEqual(expect.objectContaining({ element: 'ISA06', message: 'ISA06 is shorter than 15 characters' }))
  })

  it('when GS08 or ST03 names another version, then both the code and the mismatch are reported', () => {
    const problems = check834(breakOnce(full, 'X*005010X220A1~', 'X*004010X095A1~'))
    expect(problems).toContainEqual(expect.objectContaining({ element: 'GS08' }))
    expect(problems).toContainEqual(expect.objectContaining({ element: 'ST03', message: expect.stringContaining('does not match GS08') }))
  })

  it('when text follows the last terminator or segments follow IEA, then they are reported', () => {
    expect(check834(`${full}NM1*IL`)).toContainEqual(expect.objectContaining({ message: 'text after the last segment terminator' }))
    expect(check834(`${full}REF*0F*X~\n`)).toContainEqual(expect.objectContaining({ segment: 'REF', message: 'REF after the end of the interchange' }))
  })

  it('when the text is not X12 at all, then one problem says so instead of an exception', () => {
    expect(check834('hello')).toEqual([{ position: 0, segment: 'ISA', message: 'the file does not start with an ISA segment' }])
  })
})

describe('check834 loops and segments', () => {
  it('when a member has no REF*0F, then the 2000 loop reports it at the next segment', () => {
    const broken = breakOnce(full, 'REF*0F*EMP-002~\n', '')
    expect(only(besidesCount(check834(broken)))).toMatchObject({ loop: '2000', segment: 'REF', message: 'missing required REF (Subscriber Identifier) in loop 2000' })
  })

  it('when INS02 has a code outside the list, then the problem names the element and the code', () => {
    const problem = only(check834(breakOnce(full, 'INS*N*01*', 'INS*N*99*')))
    expect(problem).toMatchObject({ segment: 'INS', element: 'INS02', loop: '2000', position: positionOf(full, 'INS*N*01') })
    expect(problem.message).toMatch(/^INS02 '99' is not one of/)
  })

  it('when a subscriber is not "self" or a dependent carries an employment status, then the conditions report it', () => {
    expect(only(check834(breakOnce(full, 'INS*Y*18*021*28*A~', 'INS*Y*01*021*28*A~'))).message).toBe("INS02 '01' is not one of 18 when INS01 is Y")
    expect(only(check834(breakOnce(full, 'INS*N*01*021*28*A*****N~', 'INS*N*01*021*28*A***FT**N~'))).message).toBe('INS08 is not used here when INS01 is N')
  })

  it('when an HD has no DTP*348, then loop 2300 reports it', () => {
    const broken = breakOnce(full, 'HD*021**AG*Basic Life*EMP~\nDTP*348*D8*20250201~\n', 'HD*021**AG*Basic Life*EMP~\nDTP*349*D8*20251231~\n')
    const problem = only(check834(broken))
    expect(problem).toMatchObject({ loop: '2300', segment: 'HD', message: 'loop 2300 has no DTP*348' })
  })

  it('when DMG is missing, or N4 has a bad state or county, or NM109 is not an SSN, then each is reported without echoing the value', () => {
    expect(check834(breakOnce(full, 'DMG*D8*19791231*F~\n', ''))).toContainEqual(expect.objectContaining({ loop: '2100A', message: 'missing required DMG (Member Demographics) in loop 2100A' }))
    expect(only(check834(breakOnce(full, 'N4*Springfield*IL*62701**CY*17167', 'N4*Springfield*XX*62701**CY*17167'))).message).toBe('N402 is not a US state or territory code')
    expect(only(check834(breakOnce(full, '**CY*17167', '**CY*1716'))).message).toBe('N406 is not a 5 digit FIPS county code when N405 is CY')
    const ssn = only(check834(breakOnce(full, '34*123456789', '34*12345')))
    expect(ssn.message).toBe('NM109 is not a 9 digit SSN when NM108 is 34')
    expect(JSON.stringify(ssn)).not.toContain('12345')
  })

  it('when a segment repeats past its maximum or comes out of order, then the table reports it', () => {
    expect(only(besidesCount(check834(breakOnce(full, 'HLH*N~\n', 'HLH*N~\nHLH*N~\n')))).message).toBe('HLH (Member Health Information) occurs more often than its maximum of 1')
    const threeBrokers = breakOnce(full, 'N1*BO*Second Brokerage*94*7654321~\n', 'N1*BO*Second Brokerage*94*7654321~\nN1*BO*Third*94*1~\n')
    expect(only(besidesCount(check834(threeBrokers))).message).toBe('loop 1000C (TPA/Broker Name) occurs more often than its maximum of 2')
    // REF*1L must come before REF*17 in loop 2000.
    const swapped = breakOnce(full, 'REF*1L*GRP778899~\nREF*17*0194f1a2-0000-7000-8000-000000000001~', 'REF*17*0194f1a2-0000-7000-8000-000000000001~\nREF*1L*GRP778899~')
    expect(only(check834(swapped)).message).toBe('REF*1L is not expected here in loop 2000')
  })

  it('when the mailing address loop has no N3 or a PCP NPI fails its check digit, then it is reported', () => {
    expect(only(besidesCount(check834(breakOnce(full, 'NM1*31*1~\nN3*PO Box 77~\n', 'NM1*31*1~\n')))).message).toBe('missing required N3 (Member Mail Street Address) in loop 2100C')
    expect(only(check834(breakOnce(full, 'XX*1245319599', 'XX*1245319598'))).message).toBe('NM109 is not a valid NPI when NM108 is XX')
  })

  it('when a date element is not a calendar date, then it is reported', () => {
    expect(only(check834(breakOnce(full, 'DTP*007*D8*20250201', 'DTP*007*D8*20250231'))).message).toBe('DTP03 is not a CCYYMMDD date')
  })
})

describe('the rule table', () => {
  it('when the table is read, then every loop starts with a segment and every loop and segment has a name and a positive maximum', () => {
    const visit = (rule: LoopRule | SegmentRule): void => {
      expect(rule.name.length).toBeGreaterThan(0)
      expect(rule.max).toBeGreaterThan(0)
      if (rule.kind === 'loop') {
        expect(rule.children[0].kind).toBe('segment')
        rule.children.forEach(visit)
      }
    }
    visit(TRANSACTION_834)
  })
})
