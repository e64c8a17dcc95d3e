import { totalOf, unwrap } from '../api/client'

/**
 * The most rows a picker or a name lookup loads: ten pages of the largest size. Past it a select
 * stops being usable anyway, and the page must not stall fetching a huge deployment.
 */
export const MAX_PICKER_CHOICES = 1000

/** The largest page the API serves (PaginationQuery's per_page maximum). */
const PAGE_SIZE = 100

/**
 * Every row of a paginated listing, page by page, up to `cap` rows: reading only the first page
 * silently hid every row after the hundredth. `fetchPage` asks for one page (openapi-fetch's
 * answer); `rowsOf` takes the rows out of its data. Stops on an empty page or at the Total header.
 */
export async function everyPage<Data, Row>(
  fetchPage: (query: { page: number; per_page: number }) => Promise<{ data?: Data; error?: unknown; response: Response }>,
  rowsOf: (data: Data) => Row[],
  cap: number = MAX_PICKER_CHOICES,
): Promise<Row[]> {
  const all: Row[] = []
  for (let page = 1; all.length < cap; page++) {
    const result = await fetchPage({ page, per_page: PAGE_SIZE })
    const rows = rowsOf(unwrap(result))
    all.push(...rows)
    if (rows.length === 0 || all.length >= totalOf(result.response)) break
  }
  return all.slice(0, cap)
}
