import { useEffect, useState, type FormEvent } from 'react'
import { api, totalOf, unwrap, type Schema } from '../api/client'
import type { paths } from '../api/schema'
import { AccountName, useAccountNames } from '../components/admin-account-picker'
import { SelectField, TextField } from '../components/fields'
import { Pager, pageOf, useLastPageWhenPastEnd } from '../components/pager'
import { ShortId } from '../components/short-id'
import { Badge, Empty, ErrorMessage, Loading } from '../components/status'
import { formatDateTime } from '../lib/format'
import { failureText } from '../lib/problems'
import { Link, navigate, useLocation, withQuery } from '../lib/router'
import { useApi } from '../lib/use-api'

type AuditQuery = NonNullable<paths['/audit_events']['get']['parameters']['query']>
type AuditEvent = Schema<'AuditEvent'>

const PER_PAGE = 50
const FILTERS = ['account_id', 'actor_user_id', 'from', 'to', 'action', 'resource_type', 'resource_id'] as const
/** Typed in; the others are pickers. */
const TEXT_FILTERS = ['action', 'resource_type', 'resource_id'] as const
type FilterName = (typeof FILTERS)[number]
type Filters = Record<FilterName, string>

const FILTER_LABELS: Record<(typeof TEXT_FILTERS)[number], { label: string; hint: string }> = {
  action: { label: 'Action', hint: 'e.g. api_key.revoked, user.created' },
  resource_type: { label: 'Resource type', hint: 'e.g. api_key, user, watcher' },
  resource_id: { label: 'Resource id', hint: 'The id of the changed thing' },
}

/** Console pages that show a resource of the audit log, by its type. */
const RESOURCE_PAGES: Record<string, (id: string) => string> = {
  watcher: (id) => `/watchers/${id}`,
  error: (id) => `/errors/${id}`,
  group: (id) => `/groups/${id}`,
  work_order: (id) => `/work-orders/${id}`,
}

function filtersOf(query: URLSearchParams): Filters {
  return Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ''])) as Filters
}

/** A calendar day (YYYY-MM-DD, the reader's own time zone) as the instant it starts; `next`: the one after. */
function dayStart(day: string, next = false): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  return new Date(y, m - 1, d + (next ? 1 : 0)).toISOString()
}

/**
 * Every change made through the API, the console or the command line (GET /audit_events, newest
 * first), filtered by the query parameters the API offers, applied on submit.
 */
export function AuditPage() {
  const location = useLocation()
  const page = pageOf(location.query)
  const applied = filtersOf(location.query)
  const appliedKey = FILTERS.map((name) => applied[name]).join('\u0000')
  const [draft, setDraft] = useState<Filters>(applied)
  // eslint-disable-next-line react-hooks/exhaustive-deps -- appliedKey stands for the applied filters
  useEffect(() => setDraft(filtersOf(location.query)), [appliedKey])

  const names = useAccountNames(true)
  const events = useApi(
    async (signal) => {
      const query: AuditQuery = { page, per_page: PER_PAGE }
      for (const name of TEXT_FILTERS) if (applied[name]) query[name] = applied[name]
      if (applied.account_id) query.account_id = applied.account_id
      if (applied.actor_user_id) query.actor_user_id = applied.actor_user_id
      // The range is whole days, both ends included: from the first day's midnight to the one after the last.
      const after = dayStart(applied.from)
      const before = dayStart(applied.to, true)
      if (after) query.created_after = after
      if (before) query.created_before = before
      const result = await api.GET('/audit_events', { params: { query }, signal })
      return { events: unwrap(result).audit_events, total: totalOf(result.response) }
    },
    [page, appliedKey],
  )
  useLastPageWhenPastEnd(page, PER_PAGE, events.state === 'ready' ? { rows: events.data.events.length, total: events.data.total } : undefined)

  const apply = (event: FormEvent) => {
    event.preventDefault()
    navigate(withQuery(location, { ...trimmed(draft), page: undefined }))
  }
  const clear = () => navigate(withQuery(location, { ...Object.fromEntries(FILTERS.map((name) => [name, undefined])), page: undefined }))
  // Who may have acted: the operators (your own account) and the users of the chosen account.
  const actors = useApi(
    async (signal) => {
      const own = unwrap(await api.GET('/users', { params: { query: { per_page: 100 } }, signal })).users
      const theirs = draft.account_id ? unwrap(await api.GET('/users', { params: { query: { per_page: 100, account_id: draft.account_id } }, signal })).users : []
      return [...own, ...theirs.filter((user) => !own.some((o) => o.id === user.id))]
    },
    [draft.account_id],
  )
  const accountOptions = [...names.entries()].map(([value, label]) => ({ value, label })).sort((a, b) => a.label.localeCompare(b.label))
  if (draft.account_id && !names.has(draft.account_id)) accountOptions.push({ value: draft.account_id, label: `Account ${draft.account_id}` })
  const actorOptions = (actors.data ?? []).map((user) => ({ value: user.id, label: user.email }))
  if (draft.actor_user_id && !actorOptions.some((o) => o.value === draft.actor_user_id)) actorOptions.push({ value: draft.actor_user_id, label: `User ${draft.actor_user_id}` })
  const filtered = FILTERS.some((name) => applied[name])

  const data = events.data
  return (
    <section>
      <h1>Audit log</h1>
      <p className="hint">Every change made through the API, the console or the command line, newest first. It holds ids, never personal data.</p>

      <form className="filters" onSubmit={apply} aria-label="Filter the audit log">
        <SelectField label="Account" value={draft.account_id} options={accountOptions} anyLabel="Every account" onChange={(value) => setDraft({ ...draft, account_id: value, actor_user_id: '' })} />
        <SelectField label="Actor" value={draft.actor_user_id} options={actorOptions} anyLabel="Anyone" onChange={(value) => setDraft({ ...draft, actor_user_id: value })} />
        <div className="audit-range" role="group" aria-label="Date range">
          <TextField label="From" type="date" value={draft.from} onChange={(value) => setDraft({ ...draft, from: value })} />
          <TextField label="To" type="date" value={draft.to} onChange={(value) => setDraft({ ...draft, to: value })} hint="Both days included" />
        </div>
        {TEXT_FILTERS.map((name) => (
          <TextField key={name} label={FILTER_LABELS[name].label} hint={FILTER_LABELS[name].hint} value={draft[name]} onChange={(value) => setDraft({ ...draft, [name]: value })} />
        ))}
        <div className="actions audit-filter-actions">
          <button type="submit" className="primary">
            Apply filters
          </button>
          {filtered && (
            <button type="button" onClick={clear}>
              Clear filters
            </button>
          )}
        </div>
      </form>

      {events.state === 'loading' && <Loading what="Loading the audit log" />}
      {events.state === 'error' && <ErrorMessage error={failureText(events.error)} onRetry={events.reload} />}
      {data && data.events.length === 0 && events.state !== 'loading' && <Empty>{filtered ? 'No audit events match these filters.' : 'Nothing has been changed yet.'}</Empty>}
      {data && data.events.length > 0 && (
        <>
          <div className="table-wrap">
            <table className="admin-table">
              <caption className="table-caption">Audit events{filtered ? ' matching the filters' : ''}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Account</th>
                  <th scope="col">Action</th>
                  <th scope="col">Resource</th>
                  <th scope="col">Actor</th>
                </tr>
              </thead>
              <tbody>
                {data.events.map((event) => (
                  <tr key={event.id}>
                    <td className="when">{formatDateTime(event.created_at)}</td>
                    <td>
                      <AccountName id={event.account_id} names={names} />
                    </td>
                    <td>
                      <code>{event.action}</code>
                    </td>
                    <td>
                      <Resource event={event} />
                    </td>
                    <td>
                      <Actor event={event} names={names} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} perPage={PER_PAGE} total={data.total} label="audit events" />
        </>
      )}
    </section>
  )
}

function trimmed(filters: Filters): Filters {
  return Object.fromEntries(FILTERS.map((name) => [name, filters[name].trim()])) as Filters
}

function Resource({ event }: { event: AuditEvent }) {
  const location = useLocation()
  const page = RESOURCE_PAGES[event.resource_type]
  return (
    <>
      <span>{event.resource_type.replace(/_/g, ' ')}</span>{' '}
      {page ? (
        <Link to={page(event.resource_id)}>
          <ShortId id={event.resource_id} />
        </Link>
      ) : (
        <ShortId id={event.resource_id} />
      )}
      <div>
        <Link
          to={withQuery(location, { resource_type: event.resource_type, resource_id: event.resource_id, page: undefined })}
          className="hint"
          aria-label={`Show only the events of ${event.resource_type.replace(/_/g, ' ')} ${event.resource_id}`}
        >
          Only this one
        </Link>
      </div>
    </>
  )
}

/**
 * Who made the change: the console user's email, else the API key's name (else its id), else
 * the channel alone (the command line, the service itself); then the channel, the acting account
 * when it is not the owner (an operator's change), and the request id to find it in the logs.
 */
function Actor({ event, names }: { event: AuditEvent; names: Map<string, string> }) {
  const who = event.actor_user_email ? (
    <strong title={event.actor_user_id ?? undefined}>{event.actor_user_email}</strong>
  ) : event.api_key_id ? (
    <>API key {event.api_key_name ? <strong title={event.api_key_id}>{event.api_key_name}</strong> : <ShortId id={event.api_key_id} />}</>
  ) : event.actor_user_id ? (
    <>
      User <ShortId id={event.actor_user_id} />
    </>
  ) : null
  return (
    <div className="audit-actor">
      {who && <div>{who}</div>}
      <div>
        <Badge value={event.channel} kind="channel" />
      </div>
      {event.actor_account_id && event.actor_account_id !== event.account_id && (
        <div>
          of <AccountName id={event.actor_account_id} names={names} />
        </div>
      )}
      {event.request_id && (
        <div className="hint">
          request <code>{event.request_id}</code>
        </div>
      )}
    </div>
  )
}
