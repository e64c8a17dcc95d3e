const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' })

/** A timestamp in the reader's own time zone and words. */
export function formatDateTime(value: string | null | undefined): string {
  return value ? dateTime.format(new Date(value)) : '—'
}

/** A calendar date (YYYY-MM-DD) as written, never shifted by the reader's time zone. */
export function formatDate(value: string | null | undefined): string {
  return value ? dateOnly.format(new Date(`${value}T00:00:00Z`)) : '—'
}

/** snake_case enum values as words: needs_information → needs information. */
export function words(value: string | null | undefined): string {
  return value ? value.replace(/_/g, ' ') : '—'
}

export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`
}

/**
 * The last eight characters of a UUID: the random end, since time-ordered (v7) ids made close
 * together share their first blocks. Show the full id in a title beside it (`ShortId`).
 */
export function shortId(id: string): string {
  return id.length > 8 ? `…${id.slice(-8)}` : id
}
