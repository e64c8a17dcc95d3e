import { useEffect, useId, useState, type ReactNode, type Ref } from 'react'
import { api, type Schema } from '../api/client'
import { everyPage } from '../lib/every-page'
import { useApi } from '../lib/use-api'
import { ERROR_ASSIGNEES, ERROR_PARAMETERS, ERROR_SEVERITIES, ERROR_SOURCES, type ErrorSort } from './errors-shared'
import { SORT_OPTIONS } from './errors-list'
import { SelectField } from './fields'

/*
 * The error queue's search box, pickers and status counts. Every value lives in the URL (the
 * page reads it back), so a view can be linked, reloaded and shared.
 */

export type ErrorCounts = Schema<'ErrorCounts'>
export type AccountUser = Schema<'User'>

/**
 * The search box of a queue (`q`): typed text goes to the URL after a pause, so every key press is
 * not a request. The placeholder and hint say what the queue searches (the error queue's by default).
 */
export function SearchBox({
  value,
  onSearch,
  inputRef,
  placeholder = 'Member, employer or identifier',
  hint = 'Searches member names and identifiers, employer names and group identifiers; press / to come here.',
}: {
  value: string
  onSearch: (text: string) => void
  inputRef?: Ref<HTMLInputElement>
  placeholder?: string
  hint?: string
}) {
  const id = useId()
  const [text, setText] = useState(value)
  useEffect(() => setText(value), [value])
  useEffect(() => {
    if (text.trim() === value) return
    const timer = setTimeout(() => onSearch(text.trim()), 350)
    return () => clearTimeout(timer)
    // eslint-disable-next-line react-hooks/exhaustive-deps -- onSearch changes with every render
  }, [text, value])
  return (
    <div className="field queue-search">
      <label htmlFor={id}>Search</label>
      <input
        id={id}
        ref={inputRef}
        type="search"
        value={text}
        placeholder={placeholder}
        aria-describedby={`${id}-hint`}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') onSearch(text.trim())
        }}
      />
      <small id={`${id}-hint`} className="hint groups-visually-hidden">
        {hint}
      </small>
    </div>
  )
}

/** The status buttons with their counts (GET …/counts without the status filter), "All" last. */
export function StatusCounts({ counts, status, onStatus }: { counts: ErrorCounts | undefined; status: string; onStatus: (status: string) => void }) {
  const items: { value: string; label: string; n: number | undefined }[] = [
    { value: 'unresolved', label: 'Unresolved', n: counts?.by_status.unresolved },
    { value: 'returned', label: 'Returned', n: counts?.by_status.returned },
    { value: 'resolved', label: 'Resolved', n: counts?.by_status.resolved },
    { value: 'all', label: 'All', n: counts?.total },
  ]
  return (
    <div className="queue-counts" role="group" aria-label="Error counts">
      {items.map((item) => (
        <button key={item.value} type="button" aria-pressed={status === item.value} className="queue-count" onClick={() => onStatus(item.value)}>
          {item.label} <strong>{item.n === undefined ? '…' : item.n.toLocaleString()}</strong>
        </button>
      ))}
      {counts && counts.by_severity.failure > 0 && (
        <span className="hint queue-count-note">
          {counts.by_severity.failure.toLocaleString()} {counts.by_severity.failure === 1 ? 'failure' : 'failures'} among them
        </span>
      )}
    </div>
  )
}

/**
 * Active users of the signed-in user's own account: who errors and work orders can be assigned
 * to. Every page of them (up to MAX_PICKER_CHOICES), so a team of more than a hundred finds
 * each of its people in the pickers.
 */
export function useAccountUsers(): AccountUser[] {
  const users = useApi(
    (signal) => everyPage((paging) => api.GET('/users', { params: { query: { status: 'active', ...paging } }, signal }), (data) => data.users),
    [],
  )
  return users.data ?? []
}

type Choice = { value: string; label: string }

/**
 * The Group picker's groups: every group of the chosen account (GET /groups?account_id=), or of
 * every account the caller sees when none is chosen, page by page up to MAX_PICKER_CHOICES. The
 * filter runs in the API, not here: filtering a first page in the browser hid an account's groups
 * created after the hundredth group of the deployment.
 */
function useGroupChoices(enabled: boolean, accountId: string | undefined): Choice[] {
  const groups = useApi(
    async (signal) => ({
      accountId,
      groups: enabled
        ? await everyPage((paging) => api.GET('/groups', { params: { query: { ...paging, account_id: accountId } }, signal }), (data) => data.groups)
        : [],
    }),
    [enabled, accountId],
  )
  // While another account's groups load, the previous account's are not offered.
  const loaded = groups.data && groups.data.accountId === accountId ? groups.data.groups : []
  return loaded.map((group) => ({ value: group.id, label: group.employer.organization_name })).sort(byLabel)
}

/** The Account picker's partner accounts (the operator accounts have no queue of their own), up to MAX_PICKER_CHOICES. */
function useAccountChoices(operator: boolean): Choice[] {
  const accounts = useApi(
    async (signal) =>
      operator ? everyPage((paging) => api.GET('/accounts', { params: { query: { ...paging, kind: 'partner' } }, signal }), (data) => data.accounts) : [],
    [operator],
  )
  return (accounts.data ?? []).map((account) => ({ value: account.id, label: account.name })).sort(byLabel)
}

const byLabel = (a: Choice, b: Choice) => a.label.localeCompare(b.label)

/**
 * The queue's account and group pickers' choices, each sorted by name. `operator` enables the
 * Account picker; `showGroups` false (a coverage period's own queue) loads no group at all.
 */
export function usePickerChoices(operator: boolean, accountId: string | undefined, showGroups = true) {
  return { groupChoices: useGroupChoices(showGroups, accountId), accountChoices: useAccountChoices(operator) }
}

export interface QueueFilterValues {
  assignedUserId: string
  accountId: string
  groupId: string
  severity: string
  assignee: string
  source: string
  parameter: string
  sort: ErrorSort
}

/**
 * The pickers. On a phone they fold behind a "Filters" toggle (the search and status counts
 * stay in view); on a wide screen they are always open.
 */
export function QueueFilters({
  values,
  users,
  operator,
  showAccountAndGroup,
  groupChoices,
  accountChoices,
  activeCount,
  onChange,
  onClear,
}: {
  values: QueueFilterValues
  users: AccountUser[]
  operator: boolean
  showAccountAndGroup: boolean
  groupChoices: { value: string; label: string }[]
  accountChoices: { value: string; label: string }[]
  activeCount: number
  onChange: (name: string, value: string) => void
  onClear: () => void
}) {
  const keep = (choices: { value: string; label: string }[], value: string, label: string) =>
    value && !choices.some((c) => c.value === value) ? [...choices, { value, label }] : choices
  const people = [
    { value: 'me', label: 'Me' },
    { value: 'none', label: 'Nobody' },
    ...users.map((user) => ({ value: user.id, label: user.email })),
  ]
  return (
    <FoldingFilters label="Filter the errors" activeCount={activeCount}>
      <SelectField label="Assigned to" value={values.assignedUserId} options={keep(people, values.assignedUserId, 'A person')} anyLabel="Anyone" onChange={(v) => onChange('assigned_user_id', v)} />
      {showAccountAndGroup && operator && (
        <SelectField label="Account" value={values.accountId} options={keep(accountChoices, values.accountId, 'The chosen account')} anyLabel="Every account" onChange={(v) => onChange('account_id', v)} />
      )}
      {showAccountAndGroup && (
        <SelectField label="Group" value={values.groupId} options={keep(groupChoices, values.groupId, 'The chosen group')} anyLabel="Every group" onChange={(v) => onChange('group_id', v)} />
      )}
      <SelectField label="Severity" value={values.severity} options={ERROR_SEVERITIES} onChange={(v) => onChange('severity', v)} />
      <SelectField label="Waiting on" value={values.assignee} options={ERROR_ASSIGNEES} anyLabel="Either party" onChange={(v) => onChange('assignee', v)} />
      <SelectField label="Source" value={values.source} options={ERROR_SOURCES} onChange={(v) => onChange('source', v)} />
      <SelectField label="Parameter" value={values.parameter} options={ERROR_PARAMETERS} onChange={(v) => onChange('parameter', v)} />
      <SelectField label="Sort" value={values.sort} options={SORT_OPTIONS} anyLabel={null} onChange={(v) => onChange('sort', v)} />
      {activeCount > 0 && (
        <button type="button" onClick={onClear}>
          Clear filters
        </button>
      )}
    </FoldingFilters>
  )
}

/**
 * A queue's pickers. On a phone they fold behind a "Filters" toggle, saying how many are set, so
 * the search, the counts and the first rows fill the first screen; on a wide screen they are
 * always open (styles.css, .queue-filter-fields).
 */
export function FoldingFilters({ label, activeCount, children }: { label: string; activeCount: number; children: ReactNode }) {
  const [open, setOpen] = useState(false)
  const id = useId()
  return (
    <div className="queue-filters">
      <button type="button" className="queue-filters-toggle" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)}>
        Filters{activeCount > 0 ? ` (${activeCount})` : ''}
      </button>
      <div id={id} className={`filters queue-filter-fields${open ? ' open' : ''}`} role="group" aria-label={label}>
        {children}
      </div>
    </div>
  )
}
