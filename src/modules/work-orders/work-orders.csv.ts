import type { Readable } from 'node:stream'
import { keysetCsvExport } from '../../db/csv-export.js'
import type { Db } from '../../db/schema.js'
import { csvDays, type CsvColumn } from '../../lib/csv.js'
import * as repo from './work-orders.repo.js'
import type { WorkOrderSort } from './work-orders.schema.js'

/**
 * The operators' work-order queue as CSV (GET /work_orders with Accept: text/csv): every order
 * the filters match, in the queue's order, streamed by keyset pages (db/csv-export.ts) in the form
 * of lib/csv.ts. The headers are what a spreadsheet user reads; the ids come after the names, for
 * whoever joins the file to other data.
 */
export const WORK_ORDER_CSV_COLUMNS: readonly CsvColumn<repo.WorkOrderExportRow>[] = [
  ['Work order ID', (r) => r.id],
  ['Status', (r) => r.status],
  ['Age (days)', (r) => csvDays(r.age_seconds)],
  ['In status since', (r) => r.status_changed_at],
  ['Account', (r) => r.account_name],
  ['Employer', (r) => r.employer_name],
  ['Group external ID', (r) => r.group_external_identifier],
  ['Coverage period', (r) => r.coverage_period_external_identifier],
  ['Coverage start', (r) => r.coverage_start_date],
  ['Coverage end', (r) => r.coverage_end_date],
  ['Carrier', (r) => r.carrier_name],
  ['Carrier group number', (r) => r.carrier_group_number],
  ['Assigned to', (r) => r.assigned_to],
  ['Last message', (r) => r.last_message],
  ['Last change by', (r) => r.last_changed_by],
  ['Created', (r) => r.created_at],
  ['Updated', (r) => r.updated_at],
  ['Account ID', (r) => r.account_id],
  ['Group ID', (r) => r.group_id],
  ['Coverage period ID', (r) => r.coverage_period_id],
]

/** The export as a stream, read in one repeatable-read transaction. */
export function workOrdersCsv(db: Db, filters: repo.WorkOrderFilters, sort: WorkOrderSort | undefined): Readable {
  return keysetCsvExport(db, WORK_ORDER_CSV_COLUMNS, async (tx) => (after, limit) => repo.exportWorkOrdersPage(tx, filters, sort, after, limit))
}
