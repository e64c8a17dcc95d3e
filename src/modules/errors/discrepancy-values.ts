import type { FieldProblem } from '../../lib/domain-error.js'
import { maskSsnsInJson } from '../../lib/free-text-masking.js'
import { maskSsn } from '../../lib/ssn-protection.js'
import { containsUnstorableText, isStorableText, UNSTORABLE_TEXT_DETAIL } from '../../lib/storable-text.js'
import type { DiscrepancyKind } from './discrepancy-messages.js'

/** A discrepancy value is one data item, not a document: this bounds what a list page can carry. */
export const MAX_DISCREPANCY_VALUE_CHARS = 4096

/** Problems of a text field the service stores as is (comment, resolution and return messages). */
export function textProblems(text: string, pointer: string): FieldProblem[] {
  if (text.trim() === '') return [{ pointer, detail: 'must not be blank', code: 'blank' }]
  if (!isStorableText(text)) return [{ pointer, detail: UNSTORABLE_TEXT_DETAIL, code: 'invalid_character' }]
  return []
}

/** Deeper values are refused: a 40 KB body of nested arrays would otherwise overflow the stack of every recursive walk. */
const MAX_DISCREPANCY_DEPTH = 16

/** Walks without recursion, so the check itself cannot overflow whatever the depth. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<readonly [unknown, number]> = [[value, 0]]
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!
    if (typeof item !== 'object' || item === null) continue
    if (depth >= limit) return true
    for (const child of Object.values(item)) pending.push([child, depth + 1])
  }
  return false
}

/** Problems of a carrier or platform value: storable in jsonb and of a sensible size. The value itself is never repeated. */
export function discrepancyValueProblems(value: unknown, pointer: string): FieldProblem[] {
  if (value === null || value === undefined) return []
  if (nestedDeeperThan(value, MAX_DISCREPANCY_DEPTH)) {
    return [{ pointer, detail: `must not nest objects or arrays more than ${MAX_DISCREPANCY_DEPTH} levels deep`, code: 'too_deep' }]
  }
  if (containsUnstorableText(value)) return [{ pointer, detail: UNSTORABLE_TEXT_DETAIL, code: 'invalid_character' }]
  if (JSON.stringify(value).length > MAX_DISCREPANCY_VALUE_CHARS) {
    return [{ pointer, detail: `must be at most ${MAX_DISCREPANCY_VALUE_CHARS} characters as JSON`, code: 'too_long' }]
  }
  return []
}

/**
 * What the errors table keeps of a value. SSNs are kept encrypted on the member and nowhere else
 * in clear (api-contract section 9), so an SSN discrepancy keeps only the masked last four, the
 * form every answer shows, and any other value has the SSN-shaped numbers in it masked the same
 * way (a carrier's member id may be an SSN; lib/free-text-masking.ts); null stays SQL NULL.
 */
export function storedDiscrepancyValue(parameter: string, value: unknown): string | null {
  if (value === null || value === undefined) return null
  if (parameter === 'social_security_number') {
    const digits = String(typeof value === 'object' ? '' : value).replace(/\D/g, '')
    return JSON.stringify(digits.length >= 4 ? maskSsn(digits.slice(-4)) : '***-**-****')
  }
  return JSON.stringify(maskSsnsInJson(value))
}

/** Whether explicitly given values contradict an explicitly given kind. */
export function kindProblems(kind: DiscrepancyKind, carrier: unknown, platform: unknown, pointer: string): FieldProblem[] {
  const present = (value: unknown) => value !== null && value !== undefined
  if (kind === 'carrier_missing' && present(carrier)) {
    return [{ pointer, detail: 'carrier_missing needs discrepancy.carrier to be null or absent', code: 'kind_contradicts_values' }]
  }
  if (kind === 'platform_missing' && present(platform)) {
    return [{ pointer, detail: 'platform_missing needs discrepancy.platform to be null or absent', code: 'kind_contradicts_values' }]
  }
  if (kind === 'carrier_value_differs' && (!present(carrier) || !present(platform))) {
    return [{ pointer, detail: 'carrier_value_differs needs both discrepancy.carrier and discrepancy.platform', code: 'kind_contradicts_values' }]
  }
  return []
}
