import type { FieldProblem } from '../../lib/domain-error.js'
import { ssnProblem } from '../../lib/identifiers.js'

/** A family member of the request: the SSN it gives (if any) and the pointer of its object. */
export interface SsnEntry {
  ssn: string | undefined
  /** The member's object in the body (`/subscriber`, `/subscriber/dependents/0`, `/dependent`). */
  pointer: string
}

/**
 * Two members of one family cannot be one person, so they cannot share an SSN. `entries` are the
 * family's members in the request, in body order (the subscriber first); `storedHashes` the keyed
 * hashes of its members already stored that the request does not replace. The member repeating an
 * SSN seen earlier (in the body, or stored) is pointed at: for a subscriber and a dependent, the
 * dependent. The detail never names the number. Invalid SSNs are left to their own problem.
 */
export function repeatedFamilySsnProblems(
  entries: readonly SsnEntry[],
  storedHashes: ReadonlySet<string>,
  hashOf: (ssn: string) => string,
): FieldProblem[] {
  // One SSN and nothing stored cannot repeat: the common case skips hashing.
  if (storedHashes.size === 0 && entries.filter((entry) => entry.ssn !== undefined).length < 2) return []
  const seen = new Map<string, string>()
  const problems: FieldProblem[] = []
  for (const { ssn, pointer } of entries) {
    if (ssn === undefined || ssnProblem(ssn) !== undefined) continue
    const hash = hashOf(ssn)
    const earlier = seen.get(hash)
    if (earlier !== undefined || storedHashes.has(hash)) {
      problems.push({
        pointer: `${pointer}/social_security_number`,
        detail: earlier !== undefined ? `is the SSN of ${earlier} in this request` : 'is the SSN of another member of the family',
        code: 'duplicate_ssn_in_family',
      })
    } else {
      seen.set(hash, pointer)
    }
  }
  return problems
}
