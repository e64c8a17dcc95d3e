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

/**
 * How long something has waited, in the largest unit that says it (age_seconds of the API):
 * "just now", "12 min", "5 h", "3 d". A queue is read by age, not by timestamp.
 */
export function ageText(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—'
  if (seconds < 60) return 'just now'
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`
  return `${Math.floor(seconds / 86_400).toLocaleString()} d`
}

/** The same age in words for screen readers and titles: "waiting 3 days". */
export function ageWords(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return 'age unknown'
  if (seconds < 60) return 'waiting less than a minute'
  if (seconds < 3600) return `waiting ${count(Math.floor(seconds / 60), 'minute')}`
  if (seconds < 86_400) return `waiting ${count(Math.floor(seconds / 3600), 'hour')}`
  return `waiting ${count(Math.floor(seconds / 86_400), 'day')}`
}
