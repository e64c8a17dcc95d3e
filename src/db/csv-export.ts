import { once } from 'node:events'
import { PassThrough, type Readable } from 'node:stream'
import { sql, type RawBuilder } from 'kysely'
import { csvHeader, csvRecords, type CsvColumn } from '../lib/csv.js'
import type { Db, Executor } from './schema.js'

/**
 * Rows an export reads by keyset: each carries its sort key values, as the text of a JSON array
 * of strings (`keysetValues`), to continue after the last. Text, so only the last row's is parsed:
 * an array column was parsed for every row, a twentieth of an export's time (bench:queue).
 */
export interface KeysetRow {
  keys: string
}

/** Reads one page of at most `limit` rows after `after` (the previous page's last keys; null: from the start). */
export type KeysetPageReader<Row extends KeysetRow> = (after: readonly string[] | null, limit: number) => Promise<Row[]>

/** As many rows as an export reads at once: a page is one statement, and memory holds one page. */
export const EXPORT_PAGE_ROWS = 1000

/**
 * A list as a streamed CSV file: every row the filters match, not one page, in keyset pages of
 * `pageRows` so an export of 100,000 rows reads each once instead of skipping ever more. The rows
 * are read in one repeatable-read, read-only transaction, so the file is one consistent picture
 * of the queue even while people work it. `open` runs first inside that transaction (a search to
 * resolve, say) and gives the page reader. Writing waits for the client (backpressure); a client
 * that goes away ends the reading; a failure midway ends the stream with an error (the status
 * line is already sent).
 */
export function keysetCsvExport<Row extends KeysetRow>(
  db: Db,
  columns: readonly CsvColumn<Row>[],
  open: (tx: Executor) => Promise<KeysetPageReader<Row>>,
  pageRows = EXPORT_PAGE_ROWS,
): Readable {
  const out = new PassThrough()
  const gone = () => out.destroyed || out.writableEnded
  const write = async (text: string) => {
    if (out.write(text)) return
    // Waits for the client to read, or to go away.
    await Promise.race([once(out, 'drain'), once(out, 'close')])
  }
  void db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (tx) => {
      const readPage = await open(tx)
      await write(csvHeader(columns))
      for (let after: readonly string[] | null = null; !gone(); ) {
        const rows: Row[] = await readPage(after, pageRows)
        if (rows.length > 0) await write(csvRecords(columns, rows))
        if (rows.length < pageRows) break
        after = JSON.parse(rows[rows.length - 1]!.keys) as string[]
      }
    })
    .then(
      () => out.end(),
      (error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))),
    )
  return out
}

/** A sort key: a column (or expression) as SQL, its type to read its text back exactly, and its direction. */
export interface KeysetColumn {
  sql: RawBuilder<unknown>
  type: 'timestamptz' | 'uuid' | 'smallint' | 'integer' | 'text'
  descending: boolean
}

/**
 * The rows after `after` in an order whose keys may run in different directions (a row
 * comparison serves one direction only): `k1 > v1 or (k1 = v1 and (k2 > v2 or ...))`, with `<`
 * for a descending key. Every key must be non-null, and the last ones unique together.
 */
export function keysetAfter(keys: readonly KeysetColumn[], after: readonly string[]): RawBuilder<boolean> {
  const from = (index: number): RawBuilder<boolean> => {
    const key = keys[index]!
    const value = sql`${after[index]}::${sql.raw(key.type)}`
    const beyond = key.descending ? sql<boolean>`${key.sql} < ${value}` : sql<boolean>`${key.sql} > ${value}`
    if (index === keys.length - 1) return beyond
    return sql<boolean>`(${beyond} or (${key.sql} = ${value} and ${from(index + 1)}))`
  }
  return from(0)
}

/** The keys' values as the text of a JSON array (`keys`), for the next page to start after. */
export function keysetValues(keys: readonly KeysetColumn[]): RawBuilder<string> {
  return sql<string>`json_build_array(${sql.join(keys.map((key) => sql`(${key.sql})::text`))})::text`
}
