import { useState } from 'react'
import { api, totalOf, unwrap } from '../api/client'
import type { components } from '../api/schema'
import { formatDate, formatDateTime, words } from '../lib/format'
import { Link, useLocation } from '../lib/router'
import { useApi } from '../lib/use-api'
import { Pager, pageOf } from './pager'
import { failureText, refusalText, UNREACHABLE } from '../lib/problems'
import { CoveragePeriodFacts, orNullOn404, type CoveragePeriod } from './groups-common'
import { ShortId } from './short-id'
import { Badge, Empty, ErrorMessage, Loading } from './status'

const PER_PAGE = 10

/**
 * The details of one coverage period on the group page, loaded only for the period shown: its
 * work order (none before setup is completed), its file deliveries and census requests (each
 * paginated on the server, the page in the URL: a group in member management gets a change
 * delivery every few minutes), and a link to its errors.
 */
export function GroupsCoveragePeriodDetails({ period, operator }: { period: CoveragePeriod; operator: boolean }) {
  const id = period.id
  const { query } = useLocation()
  const deliveriesPage = pageOf(query, 'deliveries_page')
  const censusPage = pageOf(query, 'census_page')
  const workOrder = useApi(
    async (signal) => orNullOn404(api.GET('/coverage_periods/{id}/work_order', { params: { path: { id } }, signal }).then((r) => unwrap(r).work_order)),
    [id],
  )
  const deliveries = useApi(async (signal) => {
    const result = await api.GET('/coverage_periods/{id}/file_deliveries', { params: { path: { id }, query: { page: deliveriesPage, per_page: PER_PAGE } }, signal })
    return { items: unwrap(result).file_deliveries, total: totalOf(result.response) }
  }, [id, deliveriesPage])
  const census = useApi(async (signal) => {
    const result = await api.GET('/coverage_periods/{id}/census_requests', { params: { path: { id }, query: { page: censusPage, per_page: PER_PAGE } }, signal })
    return { items: unwrap(result).census_requests, total: totalOf(result.response) }
  }, [id, censusPage])

  const latest = workOrder.data?.history.at(-1)

  return (
    <section className="panel" aria-labelledby="groups-period-details">
      <h2 id="groups-period-details">Coverage period {period.external_identifier}</h2>
      <CoveragePeriodFacts period={period} />
      <p className="actions">
        <Link to={`/coverage-periods/${id}/errors`}>Errors of this coverage period</Link>
      </p>

      <h3>Work order</h3>
      {workOrder.state === 'error' && <ErrorMessage error={failureText(workOrder.error, 'The work order')} onRetry={workOrder.reload} />}
      {workOrder.state === 'loading' && workOrder.data === undefined && <Loading what="Loading the work order" />}
      {workOrder.state === 'ready' && workOrder.data === null && <Empty>No work order yet (setup not completed).</Empty>}
      {workOrder.data && (
        <dl className="facts">
          <dt>Status</dt>
          <dd>
            <Badge value={workOrder.data.status} />
          </dd>
          <dt>Opened</dt>
          <dd>{formatDateTime(workOrder.data.created_at)}</dd>
          {latest && (
            <>
              <dt>Last change</dt>
              <dd>
                {words(latest.status)}, {formatDateTime(latest.at)} by {latest.by}: {latest.message}
              </dd>
            </>
          )}
          {operator && (
            <>
              <dt>Operations</dt>
              <dd>
                <Link to={`/work-orders/${workOrder.data.id}`}>
                  Open work order <ShortId id={workOrder.data.id} />
                </Link>
              </dd>
            </>
          )}
        </dl>
      )}

      <h3>File deliveries</h3>
      {deliveries.state === 'error' && <ErrorMessage error={failureText(deliveries.error, 'This coverage period')} onRetry={deliveries.reload} />}
      {deliveries.state === 'loading' && !deliveries.data && <Loading what="Loading the file deliveries" />}
      {deliveries.data &&
        (deliveries.data.items.length === 0 ? (
          <Empty>No files delivered to the carrier yet.</Empty>
        ) : (
          <>
            <Pager page={deliveriesPage} perPage={PER_PAGE} total={deliveries.data.total} label="file deliveries" param="deliveries_page" />
            <div className="table-wrap">
              <table>
                <caption className="table-caption">File deliveries, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Kind</th>
                    <th scope="col">Status</th>
                    <th scope="col">Carrier's answer</th>
                    <th scope="col">Sent</th>
                    <th scope="col">File</th>
                    <th scope="col">Created</th>
                    <th scope="col" className="number">
                      Transactions
                    </th>
                    <th scope="col" className="number">
                      Members
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {deliveries.data.items.map((delivery) => (
                    <tr key={delivery.id}>
                      <td>
                        {words(delivery.kind)} ({words(delivery.channel)})
                      </td>
                      <td>
                        <Badge value={delivery.status} />
                        {delivery.last_error && <div className="hint">{delivery.last_error}</div>}
                      </td>
                      <td>
                        <AcknowledgementCell delivery={delivery} operator={operator} onResent={deliveries.reload} />
                      </td>
                      <td>{formatDateTime(delivery.sent_at)}</td>
                      <td className="mono">{delivery.file_name}</td>
                      <td>{formatDateTime(delivery.created_at)}</td>
                      <td className="number">{delivery.transaction_count.toLocaleString()}</td>
                      <td className="number">{delivery.member_count.toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        ))}

      <h3>Census requests</h3>
      {census.state === 'error' && <ErrorMessage error={failureText(census.error, 'This coverage period')} onRetry={census.reload} />}
      {census.state === 'loading' && !census.data && <Loading what="Loading the census requests" />}
      {census.data &&
        (census.data.items.length === 0 ? (
          <Empty>No census received from the carrier yet.</Empty>
        ) : (
          <>
            <Pager page={censusPage} perPage={PER_PAGE} total={census.data.total} label="census requests" param="census_page" />
            <div className="table-wrap">
              <table>
                <caption className="table-caption">Census requests, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Received</th>
                    <th scope="col">As of</th>
                    <th scope="col">Format</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="number">
                      Members
                    </th>
                    <th scope="col" className="number">
                      Matched
                    </th>
                    <th scope="col" className="number">
                      Discrepancies
                    </th>
                    <th scope="col">Errors opened / reopened / resolved</th>
                  </tr>
                </thead>
                <tbody>
                  {census.data.items.map((request) => (
                    <tr key={request.id}>
                      <td>{formatDateTime(request.created_at)}</td>
                      <td>{formatDate(request.as_of)}</td>
                      <td>{request.format === 'x12_834' ? 'X12 834' : 'JSON'}</td>
                      <td>
                        <Badge value={request.status} />
                        {request.errors.length > 0 && <div className="hint">{request.errors.join(' ')}</div>}
                      </td>
                      <td className="number">{request.member_count.toLocaleString()}</td>
                      <td className="number">{request.matched_count.toLocaleString()}</td>
                      <td className="number">{request.discrepancy_count.toLocaleString()}</td>
                      <td>
                        {request.errors_created} / {request.errors_reopened} / {request.errors_resolved}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        ))}
    </section>
  )
}

type FileDelivery = components['schemas']['FileDelivery']

/**
 * What the carrier answered to a file (its TA1 and 999), and for operators a rejected file's
 * "Send again" (POST /file_deliveries/{id}/resend): the rejection already took back what the file
 * told the carrier; this sends it all again now, once.
 */
function AcknowledgementCell({ delivery, operator, onResent }: { delivery: FileDelivery; operator: boolean; onResent: () => void }) {
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  if (delivery.acknowledgement_status === null) return <span className="hint">none expected</span>
  const rejected = delivery.acknowledgement_status === 'rejected'
  async function resend() {
    setBusy(true)
    setFailure(null)
    try {
      const { error, response } = await api.POST('/file_deliveries/{id}/resend', { params: { path: { id: delivery.id } } })
      if (response.ok) onResent()
      else setFailure(refusalText(response.status, error, 'This file delivery'))
    } catch {
      setFailure(UNREACHABLE)
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <Badge value={delivery.acknowledgement_status} />
      {rejected && delivery.resent_at && <div className="hint">Sent again {formatDateTime(delivery.resent_at)}</div>}
      {rejected && !delivery.resent_at && operator && (
        <div>
          <button
            type="button"
            onClick={resend}
            disabled={busy}
            title="What the file told the carrier was taken back: each family's next change carries it again. This sends all of it now, once."
          >
            {busy ? 'Sending again…' : 'Send again'}
          </button>
        </div>
      )}
      {failure && (
        <div className="error-message" role="alert">
          {failure}
        </div>
      )}
    </>
  )
}
