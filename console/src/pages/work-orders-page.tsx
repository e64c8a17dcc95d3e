import { api, totalOf, unwrap } from '../api/client'
import { SelectField } from '../components/fields'
import { WORK_ORDER_STATUSES } from '../components/groups-common'
import { Pager, pageOf, useLastPageWhenPastEnd } from '../components/pager'
import { ShortId } from '../components/short-id'
import { Badge, Empty, ErrorMessage, Loading } from '../components/status'
import { pickValue } from '../lib/enums'
import { formatDateTime, words } from '../lib/format'
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
    async (signal) => {
      const result = await api.GET('/work_orders', {
        params: { query: { page, per_page: PER_PAGE, ...(status ? { status } : {}), ...(carrier ? { carrier_name: carrier } : {}) } },
        signal,
      })
      return { workOrders: unwrap(result).work_orders, total: totalOf(result.response) }
    },
    [page, status, carrier],
  )
  useLastPageWhenPastEnd(page, PER_PAGE, list.state === 'ready' ? { rows: list.data.workOrders.length, total: list.data.total } : undefined)

  const setFilter = (name: 'status' | 'carrier_name', value: string) => navigate(withQuery(location, { [name]: value, page: undefined }))

  const carrierNames = carriers.data?.map((c) => ({ value: c.name, label: c.display_name })) ?? []
  // Keep a carrier named in the URL selectable even before (or without) the carrier list.
  if (carrier && !carrierNames.some((c) => c.value === carrier)) carrierNames.push({ value: carrier, label: carrier })
  const carrierLabel = (name: string) => carriers.data?.find((c) => c.name === name)?.display_name ?? name
  const filtered = Boolean(status || carrier)

  return (
    <section>
      <h1>Work orders</h1>
      <p className="hint">Every account's work orders, oldest first. Open one to move it along.</p>
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
            <div className="table-wrap">
              <table>
                <caption className="table-caption">
                  Work orders{status ? `, status ${words(status)}` : ''}
                  {carrier ? `, carrier ${carrierLabel(carrier)}` : ''}, page {page}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Work order</th>
                    <th scope="col">Created</th>
                    <th scope="col">Group</th>
                    <th scope="col">Coverage period</th>
                    <th scope="col">Carrier</th>
                    <th scope="col">Status</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.workOrders.map((workOrder) => (
                    <tr key={workOrder.id}>
                      {/* First, so a 390 px screen shows the way in without scrolling the table sideways. */}
                      <td className="groups-nowrap">
                        <Link to={`/work-orders/${workOrder.id}`} aria-label={`Open the work order of ${workOrder.group_name}, ${workOrder.coverage_period_external_identifier}`}>
                          Open <ShortId id={workOrder.id} />
                        </Link>
                      </td>
                      <td className="groups-nowrap">{formatDateTime(workOrder.created_at)}</td>
                      <td>
                        <Link to={`/groups/${workOrder.group_id}`}>{workOrder.group_name}</Link>
                      </td>
                      <td>{workOrder.coverage_period_external_identifier}</td>
                      <td>{carrierLabel(workOrder.carrier_name)}</td>
                      <td>
                        <Badge value={workOrder.status} />
                      </td>
                      <td className="groups-nowrap">{formatDateTime(workOrder.updated_at)}</td>
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
