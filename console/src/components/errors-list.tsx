import { useEffect, useRef, type Ref } from 'react'
import { count, formatDateTime, shortId, words } from '../lib/format'
import { Link } from '../lib/router'
import { shortValueText, type ErrorAction, type ListedError } from './errors-shared'
import { ShortId } from './short-id'
import { Badge } from './status'

/** What a bulk action of the error queue did: how many were tried, how many went through, why the others did not. */
export interface BulkReport {
  action: ErrorAction
  attempted: number
  succeeded: number
  failures: { error: ListedError; reason: string }[]
}

/**
 * One page of the error queue as a table, each row with a labelled checkbox. `disabled` while a
 * bulk action runs or the page is (re)loading, so a tick never lands on a row that is going away.
 * The carrier's and the platform's values come right after the error, where a 390 px screen
 * still shows them.
 */
export function ErrorsTable({
  caption,
  rows,
  selected,
  disabled,
  loading,
  onToggle,
  onToggleAll,
}: {
  caption: string
  rows: ListedError[]
  selected: ReadonlySet<string>
  disabled: boolean
  loading: boolean
  onToggle: (id: string, on: boolean) => void
  onToggleAll: (on: boolean) => void
}) {
  const ticked = rows.filter((row) => selected.has(row.id)).length
  const allSelected = rows.length > 0 && ticked === rows.length
  return (
    <div className="table-wrap">
      <table className="errors-table" aria-busy={loading}>
        <caption className="table-caption">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">
              <SelectAll checked={allSelected} mixed={ticked > 0 && !allSelected} disabled={disabled} onChange={onToggleAll} />
            </th>
            <th scope="col">Error</th>
            <th scope="col">Carrier value</th>
            <th scope="col">Platform value</th>
            <th scope="col">Member</th>
            <th scope="col">Plan</th>
            <th scope="col">Status</th>
            <th scope="col">Assignee</th>
            <th scope="col">Severity</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <ErrorRow key={row.id} row={row} checked={selected.has(row.id)} disabled={disabled} onToggle={(on) => onToggle(row.id, on)} />
          ))}
        </tbody>
      </table>
    </div>
  )
}

function ErrorRow({ row, checked, disabled, onToggle }: { row: ListedError; checked: boolean; disabled: boolean; onToggle: (on: boolean) => void }) {
  const { parameter } = row.discrepancy
  return (
    <tr>
      <td>
        <input
          type="checkbox"
          checked={checked}
          disabled={disabled}
          aria-label={`Select the ${words(parameter)} error ${shortId(row.id)}${row.member_id ? ` of member ${shortId(row.member_id)}` : ''}`}
          onChange={(event) => onToggle(event.target.checked)}
        />
      </td>
      <td>
        <Link to={`/errors/${row.id}`}>{words(parameter)}</Link>
        <div className="hint">{row.message}</div>
      </td>
      <td>{shortValueText(parameter, row.discrepancy.carrier)}</td>
      <td>{shortValueText(parameter, row.discrepancy.platform)}</td>
      <td>{row.member_id ? <ShortId id={row.member_id} /> : '—'}</td>
      <td>{row.plan_id ? <ShortId id={row.plan_id} /> : '—'}</td>
      <td>
        <Badge value={row.status} />
      </td>
      <td>{words(row.assignee)}</td>
      <td>
        <Badge value={row.severity} />
      </td>
      <td className="errors-nowrap">{formatDateTime(row.created_at)}</td>
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
  ref,
}: {
  report: BulkReport | null
  busy: boolean
  progress: string | undefined
  onDismiss: () => void
  ref?: Ref<HTMLDivElement>
}) {
  const verb = report?.action === 'return' ? 'returned' : 'resolved'
  return (
    <div className="errors-bulk-outcome" role="status" aria-live="polite" tabIndex={-1} ref={ref}>
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
