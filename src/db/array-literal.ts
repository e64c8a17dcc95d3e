/**
 * A PostgreSQL array literal (`{a,b,NULL}`) built in one pass, bound as one text parameter and
 * cast in SQL (`${arrayLiteral(ids)}::uuid[]`). For the lists bulk statements bind a batch at a
 * time: node-postgres builds the literal of a JavaScript array element by element (two regular
 * expression replacements and a concatenation each), which was 7% of what a 50,000-family census
 * allocated (bench/RESULTS.md, issue 16). Elements are quoted only when PostgreSQL's array syntax
 * needs it: empty, the word NULL, or holding a brace, quote, comma, backslash or white space.
 */
const NEEDS_QUOTES = /^$|^null$|[{}",\\\s]/i

export function arrayLiteral(values: readonly (string | number | null)[]): string {
  const elements = new Array<string>(values.length)
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    if (value === null || value === undefined) elements[i] = 'NULL'
    else if (typeof value === 'number') elements[i] = String(value)
    else elements[i] = NEEDS_QUOTES.test(value) ? `"${value.replace(/[\\"]/g, '\\$&')}"` : value
  }
  return `{${elements.join(',')}}`
}
