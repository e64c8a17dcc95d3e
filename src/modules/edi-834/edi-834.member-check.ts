import { memberSegments } from './edi-834.build.js'
import type { FindingCodes } from './edi-834.findings.js'
import type { Edi834Member } from './edi-834.model.js'
import { checkSegment, walkLoop, type Edi834Problem, type LoopRule, type SegmentRule } from './edi-834.rule-engine.js'
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

/**
 * Which rule checks which segment, for a member's loop of a given shape. The walk through the
 * loops (which child a segment is, where a loop ends, what is missing or repeated too often) reads
 * only the segments' ids and their qualifiers, so members of the same shape (most members of a
 * file share a few dozen shapes) are walked the same way: the walk is made once per shape and
 * then replayed, checking each segment's elements against the rule the walk gave it, in the same
 * order. Only walks that found nothing wrong with the structure are kept; a loop that has a
 * structural problem is walked in full each time.
 *
 * Shapes are kept in a tree, one level per segment id and per qualifier read: finding a member's
 * shape is then a Map lookup per step on strings that are literals of the builder (their hashes
 * are cached), with no key to build.
 */
interface Step {
  index: number
  rule: SegmentRule
  loop: string
}
interface ShapeNode {
  readonly next: Map<string, ShapeNode>
  walk: readonly Step[] | null
}
let shapes: ShapeNode = { next: new Map(), walk: null }
let shapeNodes = 0
/** Tree nodes kept at most: a few thousand in practice, bounded against files of unusual variety. */
const SHAPE_NODES_LIMIT = 100_000

/** The elements the walk reads besides the id, per segment id: rules' `match` and loops' `mustContain`. */
const SHAPE_ELEMENTS: ReadonlyMap<string, readonly number[]> = (() => {
  const read = new Map<string, Set<number>>()
  const add = (id: string, element: number) => read.set(id, (read.get(id) ?? new Set()).add(element))
  const visit = (rule: LoopRule | SegmentRule): void => {
    if (rule.kind === 'segment') {
      if (rule.match) add(rule.id, rule.match.element)
      return
    }
    for (const must of rule.mustContain ?? []) add(must.id, must.element)
    for (const child of rule.children) visit(child)
  }
  visit(LOOP_2000)
  return new Map([...read].map(([id, elements]) => [id, [...elements]]))
})()

function childOf(node: ShapeNode, key: string): ShapeNode {
  let child = node.next.get(key)
  if (child === undefined) {
    child = { next: new Map(), walk: null }
    node.next.set(key, child)
    shapeNodes++
  }
  return child
}

/** The tree node of a member's loop shape: its segment ids, each followed by the elements the walk reads (SHAPE_ELEMENTS). */
function shapeOf(segments: readonly X12Segment[]): ShapeNode {
  if (shapeNodes >= SHAPE_NODES_LIMIT) {
    shapes = { next: new Map(), walk: null }
    shapeNodes = 0
  }
  let node = shapes
  for (const segment of segments) {
    const id = segment[0]!
    node = childOf(node, id)
    const read = SHAPE_ELEMENTS.get(id)
    if (read) for (const n of read) node = childOf(node, segment[n] ?? '')
  }
  return node
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
  const shape = shapeOf(segments)
  if (shape.walk) {
    for (const step of shape.walk) checkSegment(tokens[step.index]!, step.rule, problems, step.loop)
  } else {
    const steps: Step[] = []
    let elementProblems = 0
    walkLoop(LOOP_2000, tokens, { pos: 0 }, [], problems, (token, rule, out, loop) => {
      steps.push({ index: token.position - 1, rule, loop })
      const before = out.length
      checkSegment(token, rule, out, loop)
      elementProblems += out.length - before
    })
    if (problems.length === elementProblems) shape.walk = steps
  }
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
