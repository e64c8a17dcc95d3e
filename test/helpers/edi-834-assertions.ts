import { X12Parser } from 'node-x12'
import { check834 } from '../../src/modules/edi-834/edi-834.rules.js'

/**
 * Asserts that a generated 834 is valid twice over: node-x12 in strict mode (envelope syntax,
 * ISA width, control numbers, SE/GE/IEA counts; it throws on the first error) and our own rule
 * table (`check834`: loops, usage, repeats, codes). Throws one Error listing every problem, each
 * with its segment position, so a failing integration test shows what to fix. Problems carry
 * positions and codes, never member data.
 */
export function expectValid834(text: string): void {
  const problems: string[] = []
  try {
    const parsed = new X12Parser(true).parse(text)
    // A concatenation of interchanges parses as an X12FatInterchange (an array): not one file.
    if (Array.isArray(parsed)) problems.push('node-x12: the text holds more than one interchange')
  } catch (error) {
    problems.push(`node-x12: ${error instanceof Error ? error.message : String(error)}`)
  }
  for (const problem of check834(text)) {
    problems.push(`check834: segment ${problem.position} ${problem.segment}${problem.loop ? ` (loop ${problem.loop})` : ''}: ${problem.message}`)
  }
  if (problems.length > 0) {
    throw new Error(`the 834 is not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n- ${problems.join('\n- ')}`)
  }
}
