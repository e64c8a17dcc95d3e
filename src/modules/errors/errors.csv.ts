import { once } from 'node:events'
import { PassThrough, type Readable } from 'node:stream'
import type { Db } from '../../db/schema.js'
import * as repo from './errors.repo.js'
import type { ErrorFilters, ErrorSort } from './errors.schema.js'

/**
 * The error queue as CSV (Accept: text/csv on the list routes): every error the filters match,
 * not one page, streamed a page of rows at a time so memory does not grow with the queue. The
 * columns are what a person reads in a spreadsheet, in RFC 4180 form with a UTF-8 byte order mark
 * (without it, Excel misreads accented names).
 */

const PAGE_ROWS = 1000

const COLUMNS: readonly [header: string, value: (row: repo.ExportRow) => string | number | null][] = [
  ['Error ID', (r) => r.id],
  ['Status', (r) => r.status],
  ['Severity', (r) => r.severity],
  ['Held by', (r) => r.assignee],
  ['Assigned to', (r) => r.assigned_to],
  ['Age (days)', (r) => (r.age_seconds / 86_400).toFixed(1)],
  ['Waiting since', (r) => r.aged_from],
  ['Raised at', (r) => r.created_at],
  ['Last change', (r) => r.updated_at],
  ['Account', (r) => r.account_name],
  ['Employer', (r) => r.employer_name],
  ['Group external ID', (r) => r.group_external_identifier],
  ['Group ID', (r) => r.group_id],
  ['Member', (r) => r.member_name],
  ['Member external ID', (r) => r.member_external_identifier],
  ['Member ID', (r) => r.member_id],
  ['Plan', (r) => r.plan_name],
  ['Plan ID', (r) => r.plan_id],
  ['Parameter', (r) => r.parameter],
  ['Kind', (r) => r.kind],
  ['Message', (r) => r.message],
  ['Carrier value', (r) => r.carrier_value],
  ['Platform value', (r) => r.platform_value],
  ['Source', (r) => r.source],
  ['Comments', (r) => r.comment_count],
  ['Resolution', (r) => r.resolution_message],
  ['Resolved by', (r) => r.resolved_by],
  ['Resolved at', (r) => r.resolved_at],
]

/**
 * One field: quoted when it holds a separator, quote or line break; text a spreadsheet would run
 * as a formula (=, +, -, @, tab, carriage return first) is prefixed with an apostrophe, because
 * names and messages come from clients (OWASP's CSV injection advice).
 */
export function csvField(value: string | number | null): string {
  if (value === null) return ''
  if (typeof value === 'number') return String(value)
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

const line = (fields: readonly (string | number | null)[]) => `${fields.map(csvField).join(',')}\r\n`

export const CSV_HEADER = `\uFEFF${line(COLUMNS.map(([header]) => header))}`

/**
 * The export as a stream. The rows are read in one repeatable-read transaction, so the file is
 * one consistent picture of the queue even while people work it. A client that goes away ends
 * the reading; a failure midway ends the stream with an error (the status line is already sent).
 * `pageRows` is how many rows each read takes (tests make it small to cross many pages).
 */
export function errorsCsv(db: Db, where: repo.ErrorListScope, filters: ErrorFilters, sort: ErrorSort, pageRows = PAGE_ROWS): Readable {
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
      const resolved = await repo.resolveSearch(tx, filters, where.accountScope)
      await write(CSV_HEADER)
      for (let after: string[] | null = null; !gone(); ) {
        const rows: repo.ExportRow[] = await repo.exportPage(tx, where, resolved, sort, after, pageRows)
        if (rows.length > 0) await write(rows.map((row) => line(COLUMNS.map(([, value]) => value(row)))).join(''))
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
