import { memberSegments } from './edi-834.build.js'
import type { FindingCodes } from './edi-834.findings.js'
import type { Edi834Member } from './edi-834.model.js'
import { walkLoop, type Edi834Problem } from './edi-834.rule-engine.js'
import { addDataElementNumbers, LOOP_2000 } from './edi-834.rules.js'
import type { X12Segment } from './x12-segments.js'
import type { X12Token } from './x12-tokenize.js'

/**
 * The rule table's check of one member before a file is sent: its loop 2000 (and the loops under
 * it) walked against X220A1's rules on the member's own segments, so a member whose data would
 * break the file is found before the file exists and can be held back alone. Positions are
 * 1-based within the member's loop (its INS is 1). What the whole-file check (check834) adds on
 * top, the envelope and the header, does not depend on member data.
 */

export interface MemberCheck {
  /** The member's segments, built once: the writer takes them (write834's `segmentsOf`). */
  segments: X12Segment[]
  /** Empty when the member's loop passes. */
  problems: Edi834Problem[]
}

/** Builds a member's segments and checks them. Throws Edi834WriteError as memberSegments does. */
export function checkMember(member: Edi834Member): MemberCheck {
  const segments = memberSegments(member)
  const tokens = new Array<X12Token>(segments.length)
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    tokens[i] = { id: segment[0]!, elements: segment.slice(1), position: i + 1 }
  }
  const problems: Edi834Problem[] = []
  walkLoop(LOOP_2000, tokens, { pos: 0 }, [], problems)
  if (problems.length > 0) addDataElementNumbers(problems)
  return { segments, problems }
}

/** What the rule table finds wrong with one member's loop: positions within the loop, codes, no values. */
export function memberProblems(member: Edi834Member): Edi834Problem[] {
  return checkMember(member).problems
}

/** A problem of a member's loop as a finding (edi-834.findings.ts), with the coverage it lies in. */
export interface MemberFinding extends FindingCodes {
  /** 1-based position of the segment within the member's loop. */
  position: number
  /** Index into the member's `coverages` when the finding lies in a coverage loop (2300, 2310); else null. */
  coverageIndex: number | null
}

const COVERAGE_LOOPS = new Set(['2300', '2310'])
/**
 * Segments whose element 1 is a qualifier (a code). Elsewhere element 1 is data (N4's city, N3's
 * street, DMG's format): a finding never carries it, so it never carries a member's value.
 */
const QUALIFIED = new Set(['DTP', 'NM1', 'REF', 'N1', 'AMT', 'PER'])

/**
 * The findings of a member check, in the terms the error queue uses: the segment (the missing one
 * for a required segment missing, as a 999's IK3 names it), its qualifier, the element and codes.
 */
export function memberFindings(check: MemberCheck): MemberFinding[] {
  return check.problems.map((problem) => {
    const at = check.segments[problem.position - 1]
    const position = problem.element ? Number(problem.element.slice(problem.segment.length)) : null
    let coverageIndex: number | null = null
    if (problem.loop && COVERAGE_LOOPS.has(problem.loop)) {
      // The coverage is the last HD at or before the problem's segment.
      let hds = 0
      for (let i = 0; i < problem.position && i < check.segments.length; i++) if (check.segments[i]![0] === 'HD') hds++
      coverageIndex = hds > 0 ? hds - 1 : null
    }
    const missing = problem.segmentCode === '3' && problem.missingSegment !== undefined
    return {
      position: problem.position,
      segmentId: missing ? problem.missingSegment! : problem.segment,
      qualifier: !missing && at && QUALIFIED.has(problem.segment) ? (at[1] ?? null) : null,
      elementPosition: position,
      loopId: problem.loop ?? null,
      segmentCode: problem.segmentCode ?? null,
      elementCode: problem.elementCode ?? null,
      dataElement: problem.dataElement ?? null,
      coverageIndex,
    }
  })
}
