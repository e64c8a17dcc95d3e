import { useEffect, useRef } from 'react'
import { ageText, ageWords, count, formatDateTime, shortId, words } from '../lib/format'
import { Link } from '../lib/router'
import { ACTION_WORDS, shortValueText, type ErrorAction, type ErrorSort, type ListedError } from './errors-shared'
import { SortHeader } from './queue-sort'
import { ShortId } from './short-id'
import { Badge } from './status'

/** What a bulk action of the error queue did: how many were tried, how many went through, why the others did not. */
export interface BulkReport {
  action: ErrorAction
  attempted: number
  succeeded: number
  failures: { error: ListedError; reason: string }[]
}

/** The columns a click sorts by, and the order a first click gives (age: oldest waiting first). */
const SORTABLE = {
  parameter: { label: 'Error', first: 'parameter' },
  status: { label: 'Status', first: 'status' },
  age: { label: 'Age', first: '-age' },
  severity: { label: 'Severity', first: 'severity' },
} as const satisfies Record<string, { label: string; first: ErrorSort }>
type SortColumn = keyof typeof SORTABLE

/** Every order of the queue in words, for the sort select (phones have no column headers). */
export const SORT_OPTIONS: { value: ErrorSort; label: string }[] = [
  { value: '-age', label: 'Oldest waiting first' },
  { value: 'age', label: 'Newest waiting first' },
  { value: 'severity', label: 'Severity: failures first' },
  { value: '-severity', label: 'Severity: info first' },
  { value: 'status', label: 'Status: unresolved first' },
  { value: '-status', label: 'Status: resolved first' },
  { value: 'parameter', label: 'Error: A to Z' },
  { value: '-parameter', label: 'Error: Z to A' },
  { value: 'created_at', label: 'Raised: oldest first' },
  { value: '-created_at', label: 'Raised: newest first' },
]

/**
 * One page of the error queue as a table, each row with a labelled checkbox. `disabled` while a
 * bulk action runs or another page loads, so a tick never lands on a row that is going away.
 * Below 640 px the rows become cards (styles.css): status and age first, then the rest with
 * their column names, so nothing scrolls sideways. Clicking a sortable header sorts the queue
 * (aria-sort says how); `active` is the row the j/k shortcuts point at.
 */
export function ErrorsTable({
  caption,
  rows,
  selected,
  disabled,
  loading,
  sort,
  showAccount,
  active,
  onSort,
  onToggle,
  onToggleAll,
  onActivate,
}: {
  caption: string
  rows: ListedError[]
  selected: ReadonlySet<string>
  disabled: boolean
  loading: boolean
  sort: ErrorSort
  showAccount: boolean
  active: number
  onSort: (sort: ErrorSort) => void
  onToggle: (id: string, on: boolean) => void
  onToggleAll: (on: boolean) => void
  onActivate: (index: number) => void
}) {
  const ticked = rows.filter((row) => selected.has(row.id)).length
  const allSelected = rows.length > 0 && ticked === rows.length
  const header = (column: SortColumn) => <SortHeader column={column} label={SORTABLE[column].label} first={SORTABLE[column].first} sort={sort} onSort={onSort} />
  return (
    <div className="table-wrap queue-wrap">
      <table className="errors-table queue-table" aria-busy={loading}>
        <caption className="table-caption">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">
              <SelectAll checked={allSelected} mixed={ticked > 0 && !allSelected} disabled={disabled} onChange={onToggleAll} />
            </th>
            {header('parameter')}
            <th scope="col">Member</th>
            <th scope="col">Employer</th>
            {showAccount && <th scope="col">Account</th>}
            <th scope="col">Plan</th>
            {header('status')}
            {header('age')}
            <th scope="col">Assigned to</th>
            {header('severity')}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <ErrorRow
              key={row.id}
              row={row}
              active={index === active}
              showAccount={showAccount}
              checked={selected.has(row.id)}
              disabled={disabled}
              onToggle={(on) => onToggle(row.id, on)}
              onFocus={() => onActivate(index)}
            />
          ))}
        </tbody>
      </table>
    </div>
  )
}

function ErrorRow({
  row,
  active,
  showAccount,
  checked,
  disabled,
  onToggle,
  onFocus,
}: {
  row: ListedError
  active: boolean
  showAccount: boolean
  checked: boolean
  disabled: boolean
  onToggle: (on: boolean) => void
  onFocus: () => void
}) {
  const { parameter } = row.discrepancy
  return (
    <tr className={`${active ? 'queue-active' : ''}${checked ? ' queue-checked' : ''}`} data-error-id={row.id} onFocus={onFocus}>
      <td className="queue-tick">
        <input
          type="checkbox"
          checked={checked}
          disabled={disabled}
          aria-label={`Select the ${words(parameter)} error ${shortId(row.id)}${row.member_name ? ` of ${row.member_name}` : ''}`}
          onChange={(event) => onToggle(event.target.checked)}
        />
      </td>
      <td className="queue-main" data-label="Error">
        <Link to={`/errors/${row.id}`} className="queue-open">
          {words(parameter)}
        </Link>
        <div className="hint">{row.message}</div>
        <div className="hint queue-values">
          Carrier: {shortValueText(parameter, row.discrepancy.carrier)} · Platform: {shortValueText(parameter, row.discrepancy.platform)}
        </div>
      </td>
      <td data-label="Member">{row.member_name ?? (row.member_id ? <ShortId id={row.member_id} /> : '—')}</td>
      <td data-label="Employer">
        <Link to={`/groups/${row.group_id}`}>{row.employer_name}</Link>
      </td>
      {showAccount && <td data-label="Account">{row.account_name}</td>}
      <td data-label="Plan">{row.plan_name ?? (row.plan_id ? <ShortId id={row.plan_id} /> : '—')}</td>
      <td className="queue-status" data-label="Status">
        <Badge value={row.status} />
      </td>
      <td className="queue-age errors-nowrap" data-label="Age">
        <span title={`${ageWords(row.age_seconds)} · raised ${formatDateTime(row.created_at)}`}>
          {ageText(row.age_seconds)}
          <span className="groups-visually-hidden"> ({ageWords(row.age_seconds)})</span>
        </span>
      </td>
      <td data-label="Assigned to">
        {row.assigned_user ? row.assigned_user.email : <span className="hint">nobody</span>}
        <div className="hint">with the {row.assignee}</div>
      </td>
      <td className="queue-severity" data-label="Severity">
        <Badge value={row.severity} />
      </td>
    </tr>
  )
}

/** "Select all on this page", showing the mixed state when only some rows are ticked. */
function SelectAll({ checked, mixed, disabled, onChange }: { checked: boolean; mixed: boolean; disabled: boolean; onChange: (on: boolean) => void }) {
  const ref = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = mixed
  }, [mixed])
  return <input ref={ref} type="checkbox" checked={checked} disabled={disabled} aria-label="Select all errors on this page" onChange={(event) => onChange(event.target.checked)} />
}

/**
 * What a bulk action did, in words: how many succeeded, then each failure with the service's
 * reason. `ref` names the region, which takes the focus when the action ends (its buttons are
 * then disabled or gone).
 */
export function BulkOutcome({
  report,
  busy,
  progress,
  onDismiss,
}: {
  report: BulkReport | null
  busy: boolean
  progress: string | undefined
  onDismiss: () => void
}) {
  const verb = report ? ACTION_WORDS[report.action].done : 'resolved'
  return (
    <div className="errors-bulk-outcome" role="status" aria-live="polite">
      {busy && progress && <p>{progress}</p>}
      {report && (
        <div className={report.failures.length > 0 ? 'error-message' : 'notice'}>
          <p>
            {report.succeeded === report.attempted
              ? `${count(report.succeeded, 'error')} ${verb}.`
              : `${report.succeeded.toLocaleString()} of ${count(report.attempted, 'error')} ${verb}; ${report.failures.length.toLocaleString()} could not be ${verb} (${report.failures.length === 1 ? 'it stays' : 'they stay'} selected):`}
          </p>
          {report.failures.length > 0 && (
            <ul>
              {report.failures.map(({ error, reason }) => (
                <li key={error.id}>
                  <Link to={`/errors/${error.id}`}>
                    {words(error.discrepancy.parameter)} {shortId(error.id)}
                  </Link>
                  {error.member_id ? ` (member ${shortId(error.member_id)})` : ''}: {reason}
                </li>
              ))}
            </ul>
          )}
          <button type="button" onClick={onDismiss}>
            Dismiss
          </button>
        </div>
      )}
    </div>
  )
}
