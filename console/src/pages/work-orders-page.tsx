import { useRef, useState } from 'react'
import { api, unwrap } from '../api/client'
import { listWorkOrders, workOrderCounts, type WorkOrderQueueQuery, type WorkOrderSort } from '../api/work-orders-queue'
import { FoldingFilters, SearchBox, useAccountUsers } from '../components/errors-filters'
import { SelectField } from '../components/fields'
import { WORK_ORDER_STATUSES } from '../components/groups-common'
import { Pager, pageOf, useLastPageWhenPastEnd } from '../components/pager'
import { SortHeader } from '../components/queue-sort'
import { ShortId } from '../components/short-id'
import { Badge, Empty, ErrorMessage, Loading } from '../components/status'
import { csvFileName, downloadCsv, exportQuery } from '../lib/download-csv'
import { pickValue } from '../lib/enums'
import { ageText, ageWords, formatDateTime, words } from '../lib/format'
import { LiveNote, useLiveRefresh } from '../lib/live-events'
import { failureText } from '../lib/problems'
import { Link, navigate, useLocation, withQuery } from '../lib/router'
import { useSession } from '../lib/session'
import { useApi } from '../lib/use-api'

const PER_PAGE = 25
/** The service's own default: oldest opened first. */
const DEFAULT_SORT: WorkOrderSort = 'created_at'

/** Every order of the queue in words, for the sort select (phones have no column headers). */
const SORT_OPTIONS: { value: WorkOrderSort; label: string }[] = [
  { value: 'created_at', label: 'Opened: oldest first' },
  { value: '-created_at', label: 'Opened: newest first' },
  { value: '-age', label: 'Longest in its status first' },
  { value: 'age', label: 'Shortest in its status first' },
  { value: 'status', label: 'Status: open first' },
  { value: '-status', label: 'Status: cancelled first' },
]

/**
 * The operations team's queue (operators only): every account's work orders. Search (`q`),
 * filters, sort and page live in the URL, so a view can be linked and reloaded; "My queue" is
 * `assigned_user_id=me`. One list request and one counts request per view. Export CSV downloads
 * every order of the current view (not one page), in its order. Below 640 px the rows are cards
 * with status and age first (styles.css, as the error queue).
 */
export function WorkOrdersPage() {
  const { session } = useSession()
  const location = useLocation()
  const page = pageOf(location.query)
  const status = pickValue(WORK_ORDER_STATUSES, location.query.get('status'))
  const carrier = location.query.get('carrier_name') ?? ''
  const q = location.query.get('q') ?? ''
  const assignedUserId = location.query.get('assigned_user_id') ?? ''
  const sort = pickValue(
    SORT_OPTIONS.map((o) => o.value),
    location.query.get('sort'),
  ) ?? DEFAULT_SORT
  const searchRef = useRef<HTMLInputElement>(null)
  const [notice, setNotice] = useState<string | null>(null)

  const carriers = useApi(async (signal) => unwrap(await api.GET('/carriers', { params: { query: { page: 1, per_page: 100 } }, signal })).carriers, [])
  const users = useAccountUsers()

  // Counts ignore the status: they label the status buttons.
  const filters = { ...(carrier ? { carrier_name: carrier } : {}), ...(q ? { q } : {}), ...(assignedUserId ? { assigned_user_id: assignedUserId } : {}) } satisfies WorkOrderQueueQuery
  const sortParam = sort === DEFAULT_SORT ? {} : { sort }
  const listKey = JSON.stringify([page, status, filters, sort])
  const list = useApi((signal) => listWorkOrders({ page, per_page: PER_PAGE, ...(status ? { status } : {}), ...filters, ...sortParam }, signal), [listKey])
  const counts = useApi((signal) => workOrderCounts(filters, signal), [JSON.stringify(filters)])
  const live = useLiveRefresh(
    () => {
      list.reload()
      counts.reload()
    },
    (event) => event.type.startsWith('work_order.'),
  )
  useLastPageWhenPastEnd(page, PER_PAGE, list.state === 'ready' ? { rows: list.data.workOrders.length, total: list.data.total } : undefined)

  const setFilter = (name: 'status' | 'carrier_name' | 'q' | 'assigned_user_id' | 'sort', value: string) =>
    navigate(withQuery(location, { [name]: name === 'sort' && value === DEFAULT_SORT ? '' : value, page: undefined }))

  const exportCsv = async () => {
    setNotice(null)
    const reason = await downloadCsv(`/work_orders?${exportQuery({ ...filters, status, ...sortParam })}`, csvFileName('work-orders'))
    if (reason) setNotice(reason)
  }

  const carrierNames = carriers.data?.map((c) => ({ value: c.name, label: c.display_name })) ?? []
  // Keep a carrier named in the URL selectable even before (or without) the carrier list.
  if (carrier && !carrierNames.some((c) => c.value === carrier)) carrierNames.push({ value: carrier, label: carrier })
  const carrierLabel = (name: string) => carriers.data?.find((c) => c.name === name)?.display_name ?? name
  const people = [{ value: 'me', label: 'Me (my queue)' }, { value: 'none', label: 'Nobody' }, ...users.map((user) => ({ value: user.id, label: user.email }))]
  if (assignedUserId && !people.some((p) => p.value === assignedUserId)) people.push({ value: assignedUserId, label: 'A person' })
  const filtered = Boolean(status || carrier || q || assignedUserId)
  const mine = assignedUserId === 'me'
  const rows = list.data?.workOrders ?? []
  const header = (column: string, label: string, first: WorkOrderSort) => <SortHeader column={column} label={label} first={first} sort={sort} onSort={(next) => setFilter('sort', next)} />

  return (
    <section>
      <div className="queue-heading">
        <h1>{mine ? 'My work orders' : 'Work orders'}</h1>
        <div className="queue-tools">
          <LiveNote mode={live} />
          <button type="button" aria-pressed={mine} onClick={() => setFilter('assigned_user_id', mine ? '' : 'me')}>
            My queue
          </button>
          <button type="button" onClick={() => void exportCsv()}>
            Export CSV
          </button>
        </div>
      </div>
      <p className="hint">
        {mine ? `The work orders assigned to you (${session.user.email}).` : 'Every account’s work orders.'} Open one to move it along or assign it.
      </p>
      {notice && (
        <p className="error-message" role="alert">
          {notice}
        </p>
      )}

      <div className="queue-bar">
        <SearchBox
          value={q}
          onSearch={(text) => setFilter('q', text)}
          inputRef={searchRef}
          placeholder="Employer, group identifier or account"
          hint="Searches employer names, group external identifiers and account names."
        />
        {counts.data && (
          <div className="queue-counts" role="group" aria-label="Work order counts">
            <button type="button" className="queue-count" aria-pressed={!status} onClick={() => setFilter('status', '')}>
              All <strong>{counts.data.total.toLocaleString()}</strong>
            </button>
            {WORK_ORDER_STATUSES.map((value) => (
              <button key={value} type="button" className="queue-count" aria-pressed={status === value} onClick={() => setFilter('status', value)}>
                {words(value)} <strong>{(counts.data?.by_status[value] ?? 0).toLocaleString()}</strong>
              </button>
            ))}
          </div>
        )}
      </div>
      <FoldingFilters label="Filter the work orders" activeCount={[status, carrier, assignedUserId, sort === DEFAULT_SORT ? '' : sort].filter(Boolean).length}>
        <SelectField label="Status" value={status ?? ''} options={WORK_ORDER_STATUSES} onChange={(value) => setFilter('status', value)} />
        <SelectField label="Carrier" value={carrier} options={carrierNames} onChange={(value) => setFilter('carrier_name', value)} />
        <SelectField label="Assigned to" value={assignedUserId} options={people} anyLabel="Anyone" onChange={(value) => setFilter('assigned_user_id', value)} />
        <SelectField label="Sort" value={sort} options={SORT_OPTIONS} anyLabel={null} onChange={(value) => setFilter('sort', value)} />
      </FoldingFilters>
      {carriers.state === 'error' && <ErrorMessage error={`The list of carriers could not be loaded: ${failureText(carriers.error)}`} onRetry={carriers.reload} />}
      {counts.state === 'error' && <ErrorMessage error={`The counts could not be read: ${failureText(counts.error)}`} onRetry={counts.reload} />}

      {list.state === 'error' && <ErrorMessage error={failureText(list.error)} onRetry={list.reload} />}
      {list.state === 'loading' && <Loading what={list.data ? 'Updating the work orders' : 'Loading the work orders'} />}
      {list.data &&
        (rows.length === 0 ? (
          <Empty>{filtered ? 'No work orders match these filters.' : 'No work orders yet: one opens when a coverage period’s setup is completed.'}</Empty>
        ) : (
          <>
            <div className="table-wrap queue-wrap">
              <table className="queue-table work-orders-table" aria-busy={list.state === 'loading'}>
                <caption className="table-caption">
                  Work orders{status ? `, status ${words(status)}` : ''}
                  {carrier ? `, carrier ${carrierLabel(carrier)}` : ''}
                  {filtered ? ' (filtered)' : ''}, page {page}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Work order</th>
                    {header('status', 'Status', 'status')}
                    {header('age', 'Age', '-age')}
                    <th scope="col">Employer</th>
                    <th scope="col">Account</th>
                    <th scope="col">Coverage period</th>
                    <th scope="col">Carrier</th>
                    <th scope="col">Assigned to</th>
                    {header('created_at', 'Opened', 'created_at')}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((workOrder) => (
                    <tr key={workOrder.id} data-work-order-id={workOrder.id}>
                      {/* First, so a 390 px screen shows the way in without scrolling the table sideways. */}
                      <td className="groups-nowrap queue-main">
                        <Link
                          to={`/work-orders/${workOrder.id}`}
                          className="queue-open"
                          aria-label={`Open the work order of ${workOrder.employer_name}, ${workOrder.coverage_period_external_identifier}`}
                        >
                          Open <ShortId id={workOrder.id} />
                        </Link>
                      </td>
                      <td className="queue-status" data-label="Status">
                        <Badge value={workOrder.status} />
                      </td>
                      <td className="queue-age groups-nowrap" data-label="Age">
                        <span title={`${ageWords(workOrder.age_seconds)} in this status · since ${formatDateTime(workOrder.status_changed_at)}`}>
                          {ageText(workOrder.age_seconds)}
                          <span className="groups-visually-hidden"> ({ageWords(workOrder.age_seconds)} in this status)</span>
                        </span>
                      </td>
                      <td data-label="Employer">
                        <Link to={`/groups/${workOrder.group_id}`}>{workOrder.employer_name}</Link>
                        <div className="hint">{workOrder.group_external_identifier}</div>
                      </td>
                      <td data-label="Account">{workOrder.account_name}</td>
                      <td data-label="Coverage period">{workOrder.coverage_period_external_identifier}</td>
                      <td data-label="Carrier">{carrierLabel(workOrder.carrier_name)}</td>
                      <td data-label="Assigned to">
                        {workOrder.assigned_user ? (
                          workOrder.assigned_user.id === session.user.id ? `${workOrder.assigned_user.email} (me)` : workOrder.assigned_user.email
                        ) : (
                          <span className="hint">nobody</span>
                        )}
                      </td>
                      <td className="groups-nowrap" data-label="Opened">
                        {formatDateTime(workOrder.created_at)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={page} perPage={PER_PAGE} total={list.data.total} label="work orders" />
          </>
        ))}
    </section>
  )
}
