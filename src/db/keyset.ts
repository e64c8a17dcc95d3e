import { sql, type RawBuilder } from 'kysely'

/**
 * Keyset paging: the next page is the rows after the last one read, by its sort key values, so
 * reading a long list page by page reads each row once (an offset re-reads every row it skips).
 * The list exports (csv-export.ts) read this way.
 */

/** A sort key: a column (or expression) as SQL, its type to read its text back exactly, and its direction. */
export interface KeysetColumn {
  sql: RawBuilder<unknown>
  type: 'timestamptz' | 'uuid' | 'smallint' | 'integer' | 'text'
  descending: boolean
}

/**
 * The rows after `after` (the last row's key values, as keysetValues gave them) in the order of
 * `keys`. Every key must be non-null, and the last ones unique together.
 *
 * Keys all in one direction are one row comparison, `(k1, k2) > (v1, v2)`, which an index on
 * those columns starts its scan from. Mixed directions cannot be one comparison, so they are
 * `k1 > v1 or (k1 = v1 and (k2 < v2 or ...))`, with `k1 >= v1` beside it so an index on the first
 * key still starts where the last page ended rather than at the beginning.
 */
export function keysetAfter(keys: readonly KeysetColumn[], after: readonly string[]): RawBuilder<boolean> {
  if (after.length !== keys.length) throw new Error(`a keyset position needs ${keys.length} values, not ${after.length}`)
  const value = (index: number) => sql`${after[index]}::${sql.raw(keys[index]!.type)}`
  const descending = keys[0]!.descending
  if (keys.every((key) => key.descending === descending)) {
    const columns = sql.join(keys.map((key) => key.sql))
    const values = sql.join(keys.map((_, index) => value(index)))
    return descending ? sql<boolean>`(${columns}) < (${values})` : sql<boolean>`(${columns}) > (${values})`
  }
  const from = (index: number): RawBuilder<boolean> => {
    const key = keys[index]!
    const beyond = key.descending ? sql<boolean>`${key.sql} < ${value(index)}` : sql<boolean>`${key.sql} > ${value(index)}`
    if (index === keys.length - 1) return beyond
    return sql<boolean>`(${beyond} or (${key.sql} = ${value(index)} and ${from(index + 1)}))`
  }
  const first = keys[0]!
  const start = first.descending ? sql<boolean>`${first.sql} <= ${value(0)}` : sql<boolean>`${first.sql} >= ${value(0)}`
  return sql<boolean>`(${start} and ${from(0)})`
}

/**
 * The keys' values as the text of a JSON array of strings (select it as `keys`), for the next
 * page to start after. Text, so a reader parses the last row's only: an array column was parsed
 * for every row, a twentieth of an export's time (bench:queue).
 */
export function keysetValues(keys: readonly KeysetColumn[]): RawBuilder<string> {
  return sql<string>`json_build_array(${sql.join(keys.map((key) => sql`(${key.sql})::text`))})::text`
}
