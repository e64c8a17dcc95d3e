import type { Readable } from 'node:stream'
import { keysetCsvExport } from '../../db/csv-export.js'
import type { Db } from '../../db/schema.js'
import { csvDays, type CsvColumn } from '../../lib/csv.js'
import * as repo from './errors.repo.js'
import type { ErrorFilters, ErrorSort } from './errors.schema.js'

/**
 * The error queue as CSV (Accept: text/csv on the list routes): every error the filters match,
 * not one page, streamed by keyset pages (db/csv-export.ts) in the form of lib/csv.ts. The
 * columns are what a person reads in a spreadsheet.
 */
const COLUMNS: readonly CsvColumn<repo.ExportRow>[] = [
  ['Error ID', (r) => r.id],
  ['Status', (r) => r.status],
  ['Severity', (r) => r.severity],
  ['Held by', (r) => r.assignee],
  ['Assigned to', (r) => r.assigned_to],
  ['Age (days)', (r) => csvDays(r.age_seconds)],
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
 * The export as a stream; the search is resolved inside the export's transaction, as the pages
 * are read. `pageRows`: how many rows each read takes (tests make it small to cross many pages).
 */
export function errorsCsv(db: Db, where: repo.ErrorListScope, filters: ErrorFilters, sort: ErrorSort, pageRows?: number): Readable {
  return keysetCsvExport(db, COLUMNS, async (tx) => {
    const resolved = await repo.resolveSearch(tx, filters, where.accountScope)
    return (after, limit) => repo.exportPage(tx, where, resolved, sort, after, limit)
  }, { pageRows })
}
