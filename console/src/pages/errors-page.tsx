import { useEffect, useState } from 'react'
import { api, totalOf, unwrap } from '../api/client'
import { BulkOutcome, ErrorsTable, type BulkReport } from '../components/errors-list'
import {
  actOnError,
  ERROR_ASSIGNEES,
  ERROR_PARAMETERS,
  ERROR_SEVERITIES,
  ERROR_SOURCES,
  ERROR_STATUSES,
  ErrorMessageDialog,
  forEachLimited,
  type ErrorAction,
} from '../components/errors-shared'
import { SelectField } from '../components/fields'
import { Pager, pageOf, useLastPageWhenPastEnd } from '../components/pager'
import { ShortId } from '../components/short-id'
import { Badge, Empty, ErrorMessage, Loading } from '../components/status'
import { pickValue } from '../lib/enums'
import { count } from '../lib/format'
import { failureText, isNotFound, notFoundText } from '../lib/problems'
import { Link, navigate, useLocation, withQuery } from '../lib/router'
import { isOperator, useSession } from '../lib/session'
import { useApi } from '../lib/use-api'
import { useFocusRequest } from '../lib/use-focus-request'

const PER_PAGE = 50
/** Bulk actions call the service this many errors at a time. */
const PARALLEL = 4

/**
 * The error queue: every error the user may see (an operator: every account's), or those of one
 * coverage period. Filters and the page number live in the URL; one list request per page (the
 * heading of a coverage period adds one small read), never one per row. Several errors can be
 * resolved or returned at once, each signed by the signed-in user.
 */
export function ErrorsPage({ coveragePeriodId }: { coveragePeriodId?: string }) {
  const { session } = useSession()
  const email: string = session.user.email
  const location = useLocation()
  const query = location.query
  const page = pageOf(query)
  const status = pickValue(ERROR_STATUSES, query.get('status'))
  const assignee = pickValue(ERROR_ASSIGNEES, query.get('assignee'))
  const severity = pickValue(ERROR_SEVERITIES, query.get('severity'))
  const source = pickValue(ERROR_SOURCES, query.get('source'))
  const parameter = pickValue(ERROR_PARAMETERS, query.get('parameter'))
  // Narrowing links from other pages (a group's or a member's errors); the API checks the ids.
  const groupId = coveragePeriodId ? undefined : (query.get('group_id') ?? undefined)
  const memberId = query.get('member_id') ?? undefined
  const listKey = [coveragePeriodId, page, status, assignee, severity, source, parameter, groupId, memberId].join('|')

  const coveragePeriod = useApi(
    async (signal) => {
      if (!coveragePeriodId) return null
      const result = await api.GET('/coverage_periods/{id}', { params: { path: { id: coveragePeriodId } }, signal })
      return unwrap(result).coverage_period
    },
    [coveragePeriodId],
  )

  const list = useApi(
    async (signal) => {
      const filters = { page, per_page: PER_PAGE, status, assignee, severity, source, parameter, member_id: memberId }
      if (coveragePeriodId) {
        const result = await api.GET('/coverage_periods/{id}/errors', { params: { path: { id: coveragePeriodId }, query: filters }, signal })
        return { errors: unwrap(result).errors, total: totalOf(result.response) }
      }
      const result = await api.GET('/errors', { params: { query: { ...filters, group_id: groupId } }, signal })
      return { errors: unwrap(result).errors, total: totalOf(result.response) }
    },
    [listKey],
  )

  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  const [action, setAction] = useState<ErrorAction | null>(null)
  const [busy, setBusy] = useState(false)
  const [progress, setProgress] = useState<string | undefined>(undefined)
  const [report, setReport] = useState<BulkReport | null>(null)

  const outcome = useFocusRequest<HTMLDivElement>()

  // Another page or other filters: what was ticked is no longer on screen.
  useEffect(() => setSelected(new Set()), [listKey])
  // A reload (after a bulk action): keep ticked only the rows still on the page.
  const loadedRows = list.data?.errors
  useEffect(() => {
    if (loadedRows) setSelected((previous) => (previous.size === 0 ? previous : new Set(loadedRows.filter((row) => previous.has(row.id)).map((row) => row.id))))
  }, [loadedRows])
  const rows = loadedRows ?? []
  // The last rows of the last page resolved (or an old link): go to the last page there is.
  useLastPageWhenPastEnd(page, PER_PAGE, list.state === 'ready' ? { rows: list.data.errors.length, total: list.data.total } : undefined)

  // Ticking and acting wait for the page on screen to be the page the URL names, loaded afresh.
  const ready = list.state === 'ready'
  const selectedRows = rows.filter((row) => selected.has(row.id))

  const toggle = (id: string, on: boolean) =>
    setSelected((previous) => {
      const next = new Set(previous)
      if (on) next.add(id)
      else next.delete(id)
      return next
    })
  const toggleAll = (on: boolean) => setSelected(on ? new Set(rows.map((row) => row.id)) : new Set())

  const setFilter = (name: string, value: string) => navigate(withQuery(location, { [name]: value, page: undefined }))

  const runBulk = async (message: string) => {
    if (!action) return
    const targets = selectedRows
    setBusy(true)
    setReport(null)
    let done = 0
    setProgress(`${action === 'resolve' ? 'Resolving' : 'Returning'}: 0 of ${targets.length} done`)
    const outcomes = await forEachLimited(targets, PARALLEL, async (target) => {
      const reason = await actOnError(action, target.id, message, email)
      done += 1
      setProgress(`${action === 'resolve' ? 'Resolving' : 'Returning'}: ${done} of ${targets.length} done`)
      return { error: target, reason }
    })
    const failures = outcomes.flatMap((outcome) => (outcome.reason === null ? [] : [{ error: outcome.error, reason: outcome.reason }]))
    setReport({ action, attempted: targets.length, succeeded: targets.length - failures.length, failures })
    setSelected(new Set(failures.map((failure) => failure.error.id)))
    setBusy(false)
    setProgress(undefined)
    setAction(null)
    // The buttons that started it are disabled now (nothing or only failures ticked, the list
    // reloading): the report takes the focus, once the dialog has closed.
    outcome.focus()
    list.reload()
  }

  const notFound = !!coveragePeriodId && ((coveragePeriod.state === 'error' && isNotFound(coveragePeriod.error)) || (list.state === 'error' && isNotFound(list.error)))
  const cp = coveragePeriod.data ?? null
  const heading = coveragePeriodId ? (cp ? `Errors of coverage period ${cp.external_identifier}` : 'Errors of a coverage period') : 'Errors'
  const filtered = Boolean(status || assignee || severity || source || parameter || groupId || memberId)

  if (notFound) {
    return (
      <section>
        <h1>Coverage period not found</h1>
        <ErrorMessage error={notFoundText('This coverage period')} />
        <p>
          <Link to="/errors">See all errors</Link>
        </p>
      </section>
    )
  }

  return (
    <section>
      <h1>{heading}</h1>
      {coveragePeriodId && (
        <p>
          {cp ? (
            <>
              Carrier {cp.carrier_name} · coverage period <Badge value={cp.state} /> · <Link to={`/groups/${cp.group_id}`}>Back to the group</Link> ·{' '}
            </>
          ) : coveragePeriod.state === 'error' ? (
            <span>The coverage period could not be read: {failureText(coveragePeriod.error)} · </span>
          ) : null}
          <Link to="/errors">All errors</Link>
        </p>
      )}
      {!coveragePeriodId && (
        <p className="hint">
          {isOperator(session) ? 'Errors of every account, oldest first.' : `Errors of ${session.account.name}, oldest first.`}
        </p>
      )}
      {(groupId || memberId) && (
        <p className="notice">
          {groupId && (
            <>
              Only the errors of group <ShortId id={groupId} />.{' '}
            </>
          )}
          {memberId && (
            <>
              Only the errors of member <ShortId id={memberId} />.{' '}
            </>
          )}
          <Link to={withQuery(location, { group_id: undefined, member_id: undefined, page: undefined })}>Show them all</Link>
        </p>
      )}

      <div className="filters" role="group" aria-label="Filter the errors">
        <SelectField label="Status" value={status ?? ''} options={ERROR_STATUSES} onChange={(v) => setFilter('status', v)} />
        <SelectField label="Assignee" value={assignee ?? ''} options={ERROR_ASSIGNEES} onChange={(v) => setFilter('assignee', v)} />
        <SelectField label="Severity" value={severity ?? ''} options={ERROR_SEVERITIES} onChange={(v) => setFilter('severity', v)} />
        <SelectField label="Source" value={source ?? ''} options={ERROR_SOURCES} onChange={(v) => setFilter('source', v)} />
        <SelectField label="Parameter" value={parameter ?? ''} options={ERROR_PARAMETERS} onChange={(v) => setFilter('parameter', v)} />
        {filtered && (
          <button type="button" onClick={() => navigate(coveragePeriodId ? location.path : '/errors')}>
            Clear filters
          </button>
        )}
      </div>

      <div className="actions errors-bulk" role="group" aria-label="Act on the selected errors">
        <span className="errors-selected-count">{selectedRows.length === 0 ? 'No error selected' : `${count(selectedRows.length, 'error')} selected`}</span>
        <button type="button" className="primary" disabled={busy || !ready || selectedRows.length === 0} onClick={() => setAction('resolve')}>
          Resolve selected
        </button>
        <button type="button" disabled={busy || !ready || selectedRows.length === 0} onClick={() => setAction('return')}>
          Return selected
        </button>
      </div>

      <BulkOutcome report={report} busy={busy} progress={progress} onDismiss={() => setReport(null)} ref={outcome.ref} />

      {list.state === 'error' && <ErrorMessage error={failureText(list.error)} onRetry={list.reload} />}
      {list.state === 'loading' && !list.data && <Loading what="Loading the errors" />}
      {list.data && list.data.errors.length === 0 && (
        <Empty>{filtered ? 'No errors match these filters.' : coveragePeriodId ? 'This coverage period has no errors.' : 'There are no errors: nothing needs attention.'}</Empty>
      )}
      {list.data && list.data.errors.length > 0 && (
        <>
          {list.state === 'loading' && <Loading what="Updating the list" />}
          <ErrorsTable
            caption={`${heading}${filtered ? ' (filtered)' : ''}, page ${page}`}
            rows={list.data.errors}
            selected={selected}
            disabled={busy || !ready}
            loading={list.state === 'loading'}
            onToggle={toggle}
            onToggleAll={toggleAll}
          />
        </>
      )}
      {list.data && <Pager page={page} perPage={PER_PAGE} total={list.data.total} label="errors" />}

      <ErrorMessageDialog
        open={action !== null}
        title={action === 'return' ? `Return ${count(selectedRows.length, 'error')} to the other party` : `Resolve ${count(selectedRows.length, 'error')}`}
        submitLabel={action === 'return' ? 'Return them' : 'Resolve them'}
        label={action === 'return' ? 'Why they go back (recorded as a comment)' : 'What was done, or why the data is correct'}
        intro={
          action === 'return'
            ? 'Only unresolved errors assigned to your party can be returned; the others will be listed with the service’s reason.'
            : `The resolution is signed by ${email}.`
        }
        busy={busy}
        progress={progress}
        failure={null}
        onSubmit={(message) => void runBulk(message)}
        onClose={() => {
          if (!busy) setAction(null)
        }}
      />
    </section>
  )
}
