import { sql, type RawBuilder } from 'kysely'

/**
 * A timestamp column as the API writes it (ISO 8601, UTC, milliseconds, `Z`), formatted by
 * PostgreSQL: for answers built as JSON in SQL, where json_build_object would give `+00:00` and
 * microseconds, and for rows read only to be printed again.
 */
export function isoTimestamp(column: string): RawBuilder<string> {
  return sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
}
