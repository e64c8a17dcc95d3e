import { useEffect, useRef, useState } from 'react'
import { api, totalOf, unwrap } from '../api/client'
import { BulkOutcome, ErrorsTable, SORT_OPTIONS, type BulkReport } from '../components/errors-list'
import { QueueFilters, SearchBox, StatusCounts, useAccountUsers, usePickerChoices } from '../components/errors-filters'
import {
  ACTION_WORDS,
  actOnError,
  assignErrors,
  ERROR_ASSIGNEES,
  ERROR_PARAMETERS,
  ERROR_SEVERITIES,
  ERROR_SOURCES,
  ERROR_STATUSES,
  ErrorMessageDialog,
  forEachLimited,
  type ErrorAction,
  type ErrorListQuery,
  type ErrorSort,
} from '../components/errors-shared'
import { Pager, pageOf, useLastPageWhenPastEnd } from '../components/pager'
import { ShortcutsButton, ShortcutsHelp } from '../components/shortcuts-help'
import { ShortId } from '../components/short-id'
import { Badge, Empty, ErrorMessage, Loading } from '../components/status'
import { csvFileName, downloadCsv, exportQuery } from '../lib/download-csv'
import { pickValue } from '../lib/enums'
import { count } from '../lib/format'
import { LiveNote, useLiveRefresh } from '../lib/live-events'
import { failureText, isNotFound, notFoundText } from '../lib/problems'
import { Link, navigate, useLocation, withQuery } from '../lib/router'
import { isOperator, useSession } from '../lib/session'
import { useShortcuts } from '../lib/shortcuts'
import { useApi } from '../lib/use-api'
import { useFocusRequest } from '../lib/use-focus-request'

const PER_PAGE = 50
/** Bulk actions call the service this many errors at a time. */
const PARALLEL = 4
/** A day's work starts with what has waited longest. */
const DEFAULT_SORT: ErrorSort = '-age'

/**
 * The error queue: every error the user may see (an operator: every account's), or those of one
 * coverage period. Search, filters, sort and page live in the URL; the status defaults to
 * unresolved (`status=all` shows every status). One list request and one counts request per
 * view, never one per row. Several errors can be resolved, returned, commented on or assigned at
 * once. The queue reloads itself on the service's events; j/k/x/r/c/? work from the keyboard.
 */
export function ErrorsPage({ coveragePeriodId }: { coveragePeriodId?: string }) {
  const { session } = useSession()
  const email: string = session.user.email
  const operator = isOperator(session)
  const location = useLocation()
  const query = location.query
  const page = pageOf(query)
  const statusParam = query.get('status') === 'all' ? 'all' : (pickValue(ERROR_STATUSES, query.get('status')) ?? 'unresolved')
  const status = statusParam === 'all' ? undefined : statusParam
  const assignee = pickValue(ERROR_ASSIGNEES, query.get('assignee'))
  const severity = pickValue(ERROR_SEVERITIES, query.get('severity'))
  const source = pickValue(ERROR_SOURCES, query.get('source'))
  const parameter = pickValue(ERROR_PARAMETERS, query.get('parameter'))
  const sort = pickValue(SORT_OPTIONS.map((o) => o.value), query.get('sort')) ?? DEFAULT_SORT
  const q = query.get('q') ?? ''
  const assignedUserId = query.get('assigned_user_id') ?? ''
  // Narrowing links from other pages (a group's or a member's errors), and the pickers; the API checks the ids.
  const groupId = coveragePeriodId ? undefined : (query.get('group_id') ?? undefined)
  const accountId = coveragePeriodId || !operator ? undefined : (query.get('account_id') ?? undefined)
  const memberId = query.get('member_id') ?? undefined
  const filters = {
    assignee,
    severity,
    source,
    parameter,
    member_id: memberId,
    ...(q ? { q } : {}),
    ...(assignedUserId ? { assigned_user_id: assignedUserId } : {}),
  } satisfies ErrorListQuery
  const scope = coveragePeriodId ? {} : { group_id: groupId, account_id: accountId }
  const listKey = JSON.stringify([coveragePeriodId, page, status, sort, filters, scope])

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
      const paged = { ...filters, status, sort, page, per_page: PER_PAGE }
      const result = coveragePeriodId
        ? await api.GET('/coverage_periods/{id}/errors', { params: { path: { id: coveragePeriodId }, query: paged }, signal })
        : await api.GET('/errors', { params: { query: { ...paged, ...scope } }, signal })
      return { key: listKey, errors: unwrap(result).errors, total: totalOf(result.response) }
    },
    [listKey],
  )
  // Counts ignore the status: they label the status buttons.
  const countsKey = JSON.stringify([coveragePeriodId, filters, scope])
  const counts = useApi(
    async (signal) =>
      coveragePeriodId
        ? unwrap(await api.GET('/coverage_periods/{id}/errors/counts', { params: { path: { id: coveragePeriodId }, query: filters }, signal })).counts
        : unwrap(await api.GET('/errors/counts', { params: { query: { ...filters, ...scope } }, signal })).counts,
    [countsKey],
  )

  const users = useAccountUsers()
  const { groupChoices, accountChoices } = usePickerChoices(operator && !coveragePeriodId, accountId, !coveragePeriodId)

  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  const [action, setAction] = useState<ErrorAction | null>(null)
  const [busy, setBusy] = useState(false)
  const [progress, setProgress] = useState<string | undefined>(undefined)
  const [report, setReport] = useState<BulkReport | null>(null)
  const [assignTo, setAssignTo] = useState('')
  const [notice, setNotice] = useState<{ tone: 'ok' | 'failed'; text: string } | null>(null)
  const [active, setActive] = useState(-1)
  const searchRef = useRef<HTMLInputElement>(null)
  const busyNow = useRef(busy)
  busyNow.current = busy

  const outcome = useFocusRequest<HTMLDivElement>()

  const live = useLiveRefresh(
    () => {
      if (busyNow.current) return
      list.reload()
      counts.reload()
    },
    (event) => event.type.startsWith('error.') && (!coveragePeriodId || event.data?.coverage_period_id === undefined || event.data.coverage_period_id === coveragePeriodId),
  )

  // Another page or other filters: what was ticked is no longer on screen.
  useEffect(() => {
    setSelected(new Set())
    setActive(-1)
  }, [listKey])
  // A reload (after a bulk action, or a live update): keep ticked only the rows still on the page.
  const loadedRows = list.data?.errors
  useEffect(() => {
    if (loadedRows) setSelected((previous) => (previous.size === 0 ? previous : new Set(loadedRows.filter((row) => previous.has(row.id)).map((row) => row.id))))
  }, [loadedRows])
  // The rows on screen are the ones the URL names (a live reload of the same view keeps them usable).
  const current = list.data?.key === listKey
  const rows = current ? (loadedRows ?? []) : []
  useLastPageWhenPastEnd(page, PER_PAGE, list.state === 'ready' ? { rows: list.data.errors.length, total: list.data.total } : undefined)

  const ready = current && !busy
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

  /** What an action applies to: the ticked rows, else the row the keyboard points at. */
  const targetsNow = () => (selectedRows.length > 0 ? selectedRows : active >= 0 && rows[active] ? [rows[active]] : [])
  const [targets, setTargets] = useState<typeof rows>([])
  const startAction = (next: ErrorAction) => {
    const chosen = targetsNow()
    if (!ready || chosen.length === 0) return
    setTargets(chosen)
    setAction(next)
  }

  const runBulk = async (message: string) => {
    if (!action) return
    const words = ACTION_WORDS[action]
    setBusy(true)
    setReport(null)
    setNotice(null)
    let done = 0
    setProgress(`${words.doing}: 0 of ${targets.length} done`)
    const outcomes = await forEachLimited(targets, PARALLEL, async (target) => {
      const reason = await actOnError(action, target.id, message, email)
      done += 1
      setProgress(`${words.doing}: ${done} of ${targets.length} done`)
      return { error: target, reason }
    })
    const failures = outcomes.flatMap((outcome) => (outcome.reason === null ? [] : [{ error: outcome.error, reason: outcome.reason }]))
    setReport({ action, attempted: targets.length, succeeded: targets.length - failures.length, failures })
    setSelected(new Set(failures.map((failure) => failure.error.id)))
    setBusy(false)
    setProgress(undefined)
    setAction(null)
    // The buttons that started it are disabled now: the report takes the focus, once the dialog has closed.
    outcome.focus()
    list.reload()
    counts.reload()
  }

  const assign = async () => {
    const chosen = targetsNow()
    if (chosen.length === 0 || assignTo === '') return
    const userId = assignTo === 'none' ? null : assignTo
    setBusy(true)
    setNotice(null)
    setReport(null)
    const reason = await assignErrors(
      chosen.map((row) => row.id),
      userId,
    )
    setBusy(false)
    const who = userId ? (users.find((user) => user.id === userId)?.email ?? 'the chosen person') : 'nobody'
    setNotice(reason === null ? { tone: 'ok', text: `${count(chosen.length, 'error')} assigned to ${who}.` } : { tone: 'failed', text: `Nothing was assigned: ${reason}` })
    outcome.focus()
    list.reload()
    counts.reload()
  }

  const exportCsv = async () => {
    setNotice(null)
    const path = coveragePeriodId ? `/coverage_periods/${encodeURIComponent(coveragePeriodId)}/errors` : '/errors'
    const reason = await downloadCsv(`${path}?${exportQuery({ ...filters, ...scope, status, sort })}`, csvFileName('errors'))
    if (reason) setNotice({ tone: 'failed', text: reason })
  }

  const moveTo = (index: number) => {
    if (rows.length === 0) return
    const next = Math.max(0, Math.min(rows.length - 1, index))
    setActive(next)
    const link = document.querySelector<HTMLAnchorElement>(`tr[data-error-id="${rows[next]!.id}"] a.queue-open`)
    link?.focus()
  }
  const shortcuts = [
    { key: 'j', what: 'Next error', run: () => moveTo(active + 1) },
    { key: 'k', what: 'Previous error', run: () => moveTo(active < 0 ? 0 : active - 1) },
    { key: 'x', what: 'Select or unselect the current error', run: () => active >= 0 && rows[active] && ready && toggle(rows[active].id, !selected.has(rows[active].id)) },
    { key: 'r', what: 'Resolve the selected errors (or the current one)', run: () => startAction('resolve') },
    { key: 'c', what: 'Comment on the selected errors (or the current one)', run: () => startAction('comment') },
    { key: '/', what: 'Search', run: () => searchRef.current?.focus() },
  ]
  const help = useShortcuts(shortcuts)

  const notFound = !!coveragePeriodId && ((coveragePeriod.state === 'error' && isNotFound(coveragePeriod.error)) || (list.state === 'error' && isNotFound(list.error)))
  const cp = coveragePeriod.data ?? null
  const heading = coveragePeriodId ? (cp ? `Errors of coverage period ${cp.external_identifier}` : 'Errors of a coverage period') : 'Errors'
  const activeFilters = [assignee, severity, source, parameter, assignedUserId, groupId, accountId, memberId].filter(Boolean).length
  const filtered = activeFilters > 0 || q !== ''

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

  const actionCount = action ? count(targets.length, 'error') : ''
  return (
    <section>
      <div className="queue-heading">
        <h1>{heading}</h1>
        <div className="queue-tools">
          <LiveNote mode={live} />
          <button type="button" onClick={() => void exportCsv()}>
            Export CSV
          </button>
          <ShortcutsButton onClick={help.openHelp} />
        </div>
      </div>
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
      {!coveragePeriodId && <p className="hint">{operator ? 'Errors of every account.' : `Errors of ${session.account.name}.`}</p>}
      {memberId && (
        <p className="notice">
          Only the errors of member <ShortId id={memberId} />. <Link to={withQuery(location, { member_id: undefined, page: undefined })}>Show them all</Link>
        </p>
      )}

      <div className="queue-bar">
        <SearchBox value={q} onSearch={(text) => setFilter('q', text)} inputRef={searchRef} />
        <StatusCounts counts={counts.data} status={statusParam} onStatus={(value) => setFilter('status', value === 'unresolved' ? '' : value)} />
      </div>
      <QueueFilters
        values={{ assignedUserId, accountId: accountId ?? '', groupId: groupId ?? '', severity: severity ?? '', assignee: assignee ?? '', source: source ?? '', parameter: parameter ?? '', sort }}
        users={users}
        operator={operator}
        showAccountAndGroup={!coveragePeriodId}
        groupChoices={groupChoices}
        accountChoices={accountChoices}
        activeCount={activeFilters}
        onChange={(name, value) => setFilter(name, name === 'sort' && value === DEFAULT_SORT ? '' : value)}
        onClear={() => navigate(withQuery(location, { assignee: undefined, severity: undefined, source: undefined, parameter: undefined, assigned_user_id: undefined, group_id: undefined, account_id: undefined, member_id: undefined, q: undefined, page: undefined }))}
      />

      <div className={`actions errors-bulk${selectedRows.length === 0 ? ' errors-bulk-idle' : ''}`} role="group" aria-label="Act on the selected errors">
        <span className="errors-selected-count">{selectedRows.length === 0 ? 'No error selected' : `${count(selectedRows.length, 'error')} selected`}</span>
        <button type="button" className="primary" disabled={!ready || selectedRows.length === 0} onClick={() => startAction('resolve')}>
          Resolve selected
        </button>
        <button type="button" disabled={!ready || selectedRows.length === 0} onClick={() => startAction('return')}>
          Return selected
        </button>
        <button type="button" disabled={!ready || selectedRows.length === 0} onClick={() => startAction('comment')}>
          Comment
        </button>
        <span className="errors-assign">
          <label htmlFor="errors-assign-to" className="groups-visually-hidden">
            Assign the selected errors to
          </label>
          <select id="errors-assign-to" value={assignTo} onChange={(event) => setAssignTo(event.target.value)}>
            <option value="">Assign to…</option>
            {users.map((user) => (
              <option key={user.id} value={user.id}>
                {user.email === email ? `${user.email} (me)` : user.email}
              </option>
            ))}
            <option value="none">Nobody (unassign)</option>
          </select>
          <button type="button" disabled={!ready || selectedRows.length === 0 || assignTo === ''} onClick={() => void assign()}>
            Assign
          </button>
        </span>
      </div>

      <div tabIndex={-1} ref={outcome.ref} className="errors-bulk-outcome-wrap">
        {notice && (
          <p className={notice.tone === 'ok' ? 'notice' : 'error-message'} role={notice.tone === 'ok' ? 'status' : 'alert'}>
            {notice.text}
          </p>
        )}
        <BulkOutcome report={report} busy={busy} progress={progress} onDismiss={() => setReport(null)} />
      </div>

      {list.state === 'error' && <ErrorMessage error={failureText(list.error)} onRetry={list.reload} />}
      {counts.state === 'error' && <ErrorMessage error={`The counts could not be read: ${failureText(counts.error)}`} onRetry={counts.reload} />}
      {list.state === 'loading' && !current && <Loading what={list.data ? 'Updating the list' : 'Loading the errors'} />}
      {current && rows.length === 0 && (
        <Empty>
          {filtered || status ? `No ${status ?? ''} errors${filtered ? ' match these filters' : ''}.`.replace('  ', ' ') : coveragePeriodId ? 'This coverage period has no errors.' : 'There are no errors: nothing needs attention.'}
        </Empty>
      )}
      {rows.length > 0 && (
        <ErrorsTable
          caption={`${heading}${status ? `, ${status}` : ', every status'}${filtered ? ' (filtered)' : ''}, page ${page}`}
          rows={rows}
          selected={selected}
          disabled={!ready}
          loading={list.state === 'loading'}
          sort={sort}
          showAccount={operator && !coveragePeriodId}
          active={active}
          onSort={(next) => setFilter('sort', next === DEFAULT_SORT ? '' : next)}
          onToggle={toggle}
          onToggleAll={toggleAll}
          onActivate={setActive}
        />
      )}
      {current && list.data && <Pager page={page} perPage={PER_PAGE} total={list.data.total} label="errors" />}

      <ErrorMessageDialog
        open={action !== null}
        title={action === 'return' ? `Return ${actionCount} to the other party` : action === 'comment' ? `Comment on ${actionCount}` : `Resolve ${actionCount}`}
        submitLabel={action === 'return' ? 'Return them' : action === 'comment' ? 'Add the comment' : 'Resolve them'}
        label={action === 'return' ? 'Why they go back (recorded as a comment)' : action === 'comment' ? 'Comment' : 'What was done, or why the data is correct'}
        intro={
          action === 'return'
            ? 'Only unresolved errors assigned to your party can be returned; the others will be listed with the service’s reason.'
            : action === 'comment'
              ? `The comment is signed by ${email}; it does not change the status.`
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
      <ShortcutsHelp open={help.helpOpen} shortcuts={shortcuts} onClose={help.closeHelp} />
    </section>
  )
}
