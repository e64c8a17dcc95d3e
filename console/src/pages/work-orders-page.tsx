import { api, unwrap } from '../api/client'
import { listWorkOrders, workOrderCounts, type WorkOrderQueueQuery } from '../api/work-orders-queue'
import { SelectField } from '../components/fields'
import { WORK_ORDER_STATUSES } from '../components/groups-common'
import { Pager, pageOf, useLastPageWhenPastEnd } from '../components/pager'
import { ShortId } from '../components/short-id'
import { Badge, Empty, ErrorMessage, Loading } from '../components/status'
import { pickValue } from '../lib/enums'
import { ageText, ageWords, formatDateTime, words } from '../lib/format'
import { LiveNote, useLiveRefresh } from '../lib/live-events'
import { failureText } from '../lib/problems'
import { Link, navigate, useLocation, withQuery } from '../lib/router'
import { useApi } from '../lib/use-api'

const PER_PAGE = 25

/**
 * The operations team's queue (operators only): every account's work orders, oldest first as the
 * service gives them, filtered by status and carrier from the URL query.
 */
export function WorkOrdersPage() {
  const location = useLocation()
  const page = pageOf(location.query)
  const status = pickValue(WORK_ORDER_STATUSES, location.query.get('status'))
  const carrier = location.query.get('carrier_name') ?? ''

  const carriers = useApi(async (signal) => unwrap(await api.GET('/carriers', { params: { query: { page: 1, per_page: 100 } }, signal })).carriers, [])

  const list = useApi(
    (signal) => {
      const query: WorkOrderQueueQuery = { page, per_page: PER_PAGE, ...(status ? { status } : {}), ...(carrier ? { carrier_name: carrier } : {}) }
      return listWorkOrders(query, signal)
    },
    [page, status, carrier],
  )
  const counts = useApi((signal) => workOrderCounts(carrier ? { carrier_name: carrier } : {}, signal), [carrier])
  const live = useLiveRefresh(
    () => {
      list.reload()
      counts.reload()
    },
    (event) => event.type.startsWith('work_order.'),
  )
  const ageOf = (workOrder: { age_seconds: number }) => workOrder.age_seconds
  useLastPageWhenPastEnd(page, PER_PAGE, list.state === 'ready' ? { rows: list.data.workOrders.length, total: list.data.total } : undefined)

  const setFilter = (name: 'status' | 'carrier_name', value: string) => navigate(withQuery(location, { [name]: value, page: undefined }))

  const carrierNames = carriers.data?.map((c) => ({ value: c.name, label: c.display_name })) ?? []
  // Keep a carrier named in the URL selectable even before (or without) the carrier list.
  if (carrier && !carrierNames.some((c) => c.value === carrier)) carrierNames.push({ value: carrier, label: carrier })
  const carrierLabel = (name: string) => carriers.data?.find((c) => c.name === name)?.display_name ?? name
  const filtered = Boolean(status || carrier)
  // Work orders are the operators' queue, across every account.
  const withAccounts = true

  return (
    <section>
      <div className="queue-heading">
        <h1>Work orders</h1>
        <div className="queue-tools">
          <LiveNote mode={live} />
        </div>
      </div>
      <p className="hint">Every account's work orders, oldest first. Open one to move it along.</p>
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
      <div className="filters">
        <SelectField label="Status" value={status ?? ''} options={WORK_ORDER_STATUSES} onChange={(value) => setFilter('status', value)} />
        <SelectField label="Carrier" value={carrier} options={carrierNames} onChange={(value) => setFilter('carrier_name', value)} />
      </div>
      {carriers.state === 'error' && <ErrorMessage error={`The list of carriers could not be loaded: ${failureText(carriers.error)}`} onRetry={carriers.reload} />}

      {list.state === 'error' && <ErrorMessage error={failureText(list.error)} onRetry={list.reload} />}
      {list.state === 'loading' && <Loading what={list.data ? 'Updating the work orders' : 'Loading the work orders'} />}
      {list.data &&
        (list.data.workOrders.length === 0 ? (
          <Empty>{filtered ? 'No work orders match these filters.' : 'No work orders yet: one opens when a coverage period’s setup is completed.'}</Empty>
        ) : (
          <>
            <div className="table-wrap queue-wrap">
              <table className="queue-table">
                <caption className="table-caption">
                  Work orders{status ? `, status ${words(status)}` : ''}
                  {carrier ? `, carrier ${carrierLabel(carrier)}` : ''}, page {page}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Work order</th>
                    <th scope="col">Status</th>
                    <th scope="col">Age</th>
                    <th scope="col">Employer</th>
                    {withAccounts && <th scope="col">Account</th>}
                    <th scope="col">Coverage period</th>
                    <th scope="col">Carrier</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.workOrders.map((workOrder) => (
                    <tr key={workOrder.id}>
                      {/* First, so a 390 px screen shows the way in without scrolling the table sideways. */}
                      <td className="groups-nowrap queue-main">
                        <Link to={`/work-orders/${workOrder.id}`} aria-label={`Open the work order of ${workOrder.group_name}, ${workOrder.coverage_period_external_identifier}`}>
                          Open <ShortId id={workOrder.id} />
                        </Link>
                      </td>
                      <td className="queue-status" data-label="Status">
                        <Badge value={workOrder.status} />
                      </td>
                      <td className="queue-age groups-nowrap" data-label="Age">
                        <span title={`${ageWords(ageOf(workOrder))} · opened ${formatDateTime(workOrder.created_at)}`}>{ageText(ageOf(workOrder))}</span>
                      </td>
                      <td data-label="Employer">
                        <Link to={`/groups/${workOrder.group_id}`}>{workOrder.employer_name}</Link>
                      </td>
                      {withAccounts && <td data-label="Account">{workOrder.account_name}</td>}
                      <td data-label="Coverage period">{workOrder.coverage_period_external_identifier}</td>
                      <td data-label="Carrier">{carrierLabel(workOrder.carrier_name)}</td>
                      <td className="groups-nowrap" data-label="Updated">
                        {formatDateTime(workOrder.updated_at)}
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
