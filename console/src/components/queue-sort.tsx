/**
 * A column header of a queue that sorts by clicking (the error queue, the work-order queue). A
 * button inside the header, so it is reached with Tab and pressed with Enter or Space; `aria-sort`
 * says how the column orders the rows now. `sort` is the API's `sort` value (`-` first to
 * reverse); a first click gives `first`, the order people want first (age: oldest waiting first).
 */
export function SortHeader<Sort extends string>({
  column,
  label,
  first,
  sort,
  onSort,
}: {
  column: string
  label: string
  first: Sort
  sort: Sort
  onSort: (sort: Sort) => void
}) {
  const key = sort.replace(/^-/, '')
  const on = key === column
  const descending = sort.startsWith('-')
  const next = (on ? (descending ? key : `-${key}`) : first) as Sort
  return (
    <th scope="col" aria-sort={on ? (descending ? 'descending' : 'ascending') : undefined}>
      <button type="button" className="queue-sort" onClick={() => onSort(next)}>
        {label}
        <span aria-hidden="true" className="queue-sort-mark">
          {on ? (descending ? ' ▼' : ' ▲') : ' ↕'}
        </span>
      </button>
    </th>
  )
}
