import { refusalText, UNREACHABLE } from './problems'

/**
 * Downloads a queue as CSV (the error queue, the work-order queue): the same URL as the JSON list
 * with `Accept: text/csv` (a link cannot set that header), saved through a Blob. The service
 * streams every matching row. Answers null, or the service's reason in words (its problem+json).
 */
export async function downloadCsv(path: string, filename: string): Promise<string | null> {
  try {
    const response = await fetch(path, { headers: { Accept: 'text/csv' }, credentials: 'same-origin' })
    if (!response.ok) return `The export failed: ${refusalText(response.status, await response.json().catch(() => null))}`
    const blob = await response.blob()
    const url = URL.createObjectURL(blob)
    const link = document.createElement('a')
    link.href = url
    link.download = filename
    document.body.append(link)
    link.click()
    link.remove()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
    return null
  } catch {
    return UNREACHABLE
  }
}

/** A file name for today's export of a queue: `<stem>-YYYY-MM-DD.csv`, as the service names it. */
export const csvFileName = (stem: string): string => `${stem}-${new Date().toISOString().slice(0, 10)}.csv`

/** The query string of the current view, without empty values: what the export filters by. */
export function exportQuery(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value))
  return params.toString()
}
