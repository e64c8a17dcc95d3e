import { useEffect } from 'react'
import { Link, navigate, useLocation, withQuery } from '../lib/router'

/**
 * Server-side pages: the page number lives in the URL (?page=), so the list can be linked to
 * and reloaded; the total comes from the service's Total header. A page past the end (an old
 * link, or the last rows just resolved) says so and links back to the last page.
 */
export function Pager({
  page,
  perPage,
  total,
  label,
  param = 'page',
}: {
  page: number
  perPage: number
  total: number
  label: string
  /** The query parameter holding this list's page, for a page showing several paginated lists. */
  param?: string
}) {
  const location = useLocation()
  const pages = Math.max(1, Math.ceil(total / perPage))
  if (total <= perPage && page === 1) return <p className="pager-summary">{total.toLocaleString()} {total === 1 ? singular(label) : label}</p>
  const pastEnd = page > pages
  const first = (page - 1) * perPage + 1
  const last = Math.min(total, page * perPage)
  const summary = pastEnd
    ? `Page ${page.toLocaleString()} is past the end: ${total === 0 ? `no ${label}` : `${total.toLocaleString()} ${total === 1 ? singular(label) : label} on ${pages.toLocaleString()} ${pages === 1 ? 'page' : 'pages'}`}`
    : `${first.toLocaleString()}–${last.toLocaleString()} of ${total.toLocaleString()} ${label} · page ${page.toLocaleString()} of ${pages.toLocaleString()}`
  const previous = pastEnd ? pages : page - 1
  return (
    <nav className="pager" aria-label={`Pages of ${label}`}>
      <span className="pager-summary">{summary}</span>
      {page > 1 ? (
        <Link to={withQuery(location, { [param]: previous > 1 ? previous : undefined })} rel="prev">
          {pastEnd ? 'Last page' : 'Previous page'}
        </Link>
      ) : (
        <span aria-hidden="true" className="pager-off">
          Previous page
        </span>
      )}
      {page < pages ? (
        <Link to={withQuery(location, { [param]: page + 1 })} rel="next">
          Next page
        </Link>
      ) : (
        <span aria-hidden="true" className="pager-off">
          Next page
        </span>
      )}
    </nav>
  )
}

/** "1 error", "1 delivery": every label the console passes is a regular English plural. */
function singular(plural: string): string {
  return plural.endsWith('ies') ? `${plural.slice(0, -3)}y` : plural.replace(/s$/, '')
}

/** The page number of the current URL, 1 when absent or nonsense. */
export function pageOf(query: URLSearchParams, param = 'page'): number {
  const page = Number(query.get(param) ?? '1')
  return Number.isInteger(page) && page >= 1 ? page : 1
}

/**
 * When a page of a list comes back empty past page 1 (its last rows were just resolved, or an
 * old link), go to the last page that exists (replacing the URL, so Back skips the empty one).
 * `list` is the loaded page: its row count and the Total the service gave; pass it only once
 * the current page is loaded (`state === 'ready'`).
 */
export function useLastPageWhenPastEnd(page: number, perPage: number, list: { rows: number; total: number } | undefined): void {
  const location = useLocation()
  const rows = list?.rows
  const total = list?.total
  useEffect(() => {
    if (rows === undefined || total === undefined || rows > 0 || page <= 1) return
    // Never the same page again (a Total that still counts the gone rows): at most one before.
    const last = Math.max(1, Math.min(page - 1, Math.ceil(total / perPage)))
    navigate(withQuery(location, { page: last > 1 ? last : undefined }), { replace: true })
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the location is read when the page turns out empty
  }, [rows, total, page, perPage])
}
