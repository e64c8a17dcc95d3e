/**
 * CSV as a spreadsheet user opens it: RFC 4180 fields and CRLF line ends, a UTF-8 byte order mark
 * before the header (without it, Excel misreads accented names), and text a spreadsheet would run
 * as a formula neutralised. Shared by every export (the error queue, the work-order queue).
 */

export type CsvValue = string | number | null

/** A column: its human header and how a row gives its value. */
export type CsvColumn<Row> = readonly [header: string, value: (row: Row) => CsvValue]

/**
 * One field: quoted when it holds a separator, quote or line break; text a spreadsheet would run
 * as a formula (=, +, -, @, tab, carriage return first) is prefixed with an apostrophe, because
 * names and messages come from clients (OWASP's CSV injection advice).
 */
export function csvField(value: CsvValue): string {
  if (value === null) return ''
  if (typeof value === 'number') return String(value)
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** One record, CRLF-terminated. */
export function csvLine(fields: readonly CsvValue[]): string {
  return `${fields.map(csvField).join(',')}\r\n`
}

/** The byte order mark and the header record: the first bytes of every export. */
export function csvHeader<Row>(columns: readonly CsvColumn<Row>[]): string {
  return `\uFEFF${csvLine(columns.map(([header]) => header))}`
}

/** The records of some rows, one per row, in the columns' order. */
export function csvRecords<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[]): string {
  return rows.map((row) => csvLine(columns.map(([, value]) => value(row)))).join('')
}

/** Whole seconds as days with one decimal, the unit a queue's age is read in. */
export const csvDays = (seconds: number): string => (seconds / 86_400).toFixed(1)
