import type { FieldProblem } from './domain-error.js'
import { escapePointerToken } from './json-pointer.js'

// PostgreSQL text and jsonb cannot hold NUL, and jsonb refuses unpaired UTF-16 surrogates (text
// would silently get U+FFFD instead): such a string fails in the database (a 500) or is changed on
// the way in, so it is refused up front with a pointer. The one definition every check uses.

// String.prototype.isWellFormed (ES2024, in Node 20) is not in the ES2023 lib this project compiles
// against. It is about eight times faster than a regular expression with lookarounds, which
// matters on a 256 MiB census body.
type Es2024String = string & { isWellFormed(): boolean }

export const UNSTORABLE_TEXT_DETAIL = 'contains a NUL character or an unpaired surrogate'
export const UNSTORABLE_NAME_DETAIL = 'has a field name that contains a NUL character or an unpaired surrogate'

/** Whether PostgreSQL can store the text as it is. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && (text as Es2024String).isWellFormed()
}

/**
 * Whether any string in `value`, object keys included, cannot be stored. Walks without recursion:
 * a JSON body nested a million levels deep (JSON.parse takes it) must not overflow the stack.
 */
export function containsUnstorableText(value: unknown): boolean {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const item = pending.pop()
    if (typeof item === 'string') {
      if (!isStorableText(item)) return true
    } else if (Array.isArray(item)) {
      for (const child of item) pending.push(child)
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        if (!isStorableText(key)) return true
        pending.push(child)
      }
    }
  }
  return false
}

/**
 * Every string anywhere in `value` that the database cannot store, pointed at in document order
 * (appended to `problems`, at most `limit` of them). A bad string points at itself; a bad key at
 * the object holding it, so the name is never echoed. The value itself is never repeated.
 */
export function unstorableTextProblems(value: unknown, pointer: string, problems: FieldProblem[] = [], limit = Number.POSITIVE_INFINITY): FieldProblem[] {
  // The common case (nothing wrong) pays for no pointer strings.
  if (!containsUnstorableText(value)) return problems
  const pending: Array<readonly [unknown, string]> = [[value, pointer]]
  while (pending.length > 0 && problems.length < limit) {
    const [item, at] = pending.pop()!
    if (typeof item === 'string') {
      if (!isStorableText(item)) problems.push({ pointer: at, detail: UNSTORABLE_TEXT_DETAIL, code: 'invalid_character' })
      continue
    }
    if (typeof item !== 'object' || item === null) continue
    let children: Array<readonly [unknown, string]>
    if (Array.isArray(item)) {
      children = item.map((child, index) => [child, `${at}/${index}`] as const)
    } else {
      const entries = Object.entries(item)
      const named = entries.filter(([key]) => isStorableText(key))
      if (named.length < entries.length) problems.push({ pointer: at, detail: UNSTORABLE_NAME_DETAIL, code: 'invalid_character' })
      children = named.map(([key, child]) => [child, `${at}/${escapePointerToken(key)}`] as const)
    }
    // Reversed onto the stack, so the first child is looked at first.
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!)
  }
  return problems
}
