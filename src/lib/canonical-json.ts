/**
 * One text per JSON value, whatever the key order or whitespace it was sent with: object keys
 * sorted (by UTF-16 code unit, as `Array.prototype.sort` does), no whitespace, numbers and
 * strings as `JSON.stringify` writes them. Used where two requests must compare as the same
 * request (Idempotency-Key) and to derive ETags from a representation.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(',')}}`
  }
  // undefined only reaches here at the top level (no body): it is the empty text.
  return value === undefined ? '' : JSON.stringify(value)
}
