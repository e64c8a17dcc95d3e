import { once } from 'node:events'
import { PassThrough, type Readable } from 'node:stream'
import { csvHeader, csvRecords, type CsvColumn } from '../lib/csv.js'
import type { Db, Executor } from './schema.js'

/** Rows an export reads by keyset (keyset.ts): each carries its sort key values (`keysetValues`), to continue after the last. */
export interface KeysetRow {
  keys: string
}

/** Reads one page of at most `limit` rows after `after` (the previous page's last keys; null: from the start). */
export type KeysetPageReader<Row extends KeysetRow> = (after: readonly string[] | null, limit: number) => Promise<Row[]>

/** As many rows as an export reads at once: a page is one statement, and memory holds one page. */
export const EXPORT_PAGE_ROWS = 1000

/**
 * How long an export waits for a client that stopped reading. The export holds a transaction
 * (and, on the embedded database, its only connection) while it waits, so a client that keeps
 * the connection open but reads nothing must not hold it forever.
 */
export const EXPORT_STALL_MS = 60_000

export interface KeysetExportOptions {
  /** Rows per read (tests make it small to cross many pages). */
  pageRows?: number
  /** How long to wait for the client to read before giving up (tests make it short). */
  stallMs?: number
}

/**
 * A list as a streamed CSV file: every row the filters match, not one page, in keyset pages of
 * `pageRows` so an export of 100,000 rows reads each once instead of skipping ever more. The rows
 * are read in one repeatable-read, read-only transaction, so the file is one consistent picture
 * of the queue even while people work it. `open` runs first inside that transaction (a search to
 * resolve, say) and gives the page reader. Writing waits for the client (backpressure); a client
 * that goes away, or reads nothing for `stallMs`, ends the reading and the transaction; a failure
 * midway ends the stream with an error (the status line is already sent).
 */
export function keysetCsvExport<Row extends KeysetRow>(
  db: Db,
  columns: readonly CsvColumn<Row>[],
  open: (tx: Executor) => Promise<KeysetPageReader<Row>>,
  { pageRows = EXPORT_PAGE_ROWS, stallMs = EXPORT_STALL_MS }: KeysetExportOptions = {},
): Readable {
  const out = new PassThrough()
  const gone = () => out.destroyed || out.writableEnded
  const write = async (text: string) => {
    // A client that hung up while a page was read has already closed the stream: writing would
    // return false and the wait below would wait for a 'close' already past, forever, holding
    // the export's transaction (on the embedded database, its only connection).
    if (gone()) return
    if (out.write(text)) return
    // Waits for the client to read, or to go away; a client that does neither is let go.
    const stalled = setTimeout(() => out.destroy(new Error(`the client read none of the export for ${stallMs / 1000} s`)), stallMs)
    try {
      await Promise.race([once(out, 'drain'), once(out, 'close')])
    } finally {
      clearTimeout(stalled)
    }
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
