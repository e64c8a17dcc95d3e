import { useState } from 'react'
import { api, totalOf, unwrap, type Schema } from '../api/client'
import { everyValueOf, pickValue } from '../lib/enums'
import { count, formatDateTime } from '../lib/format'
import { failureText } from '../lib/problems'
import { navigate, useLocation, withQuery } from '../lib/router'
import { useApi } from '../lib/use-api'
import { useFocusRequest } from '../lib/use-focus-request'
import { OutcomeMessage, useAction } from './admin-action'
import { SelectField } from './fields'
import { Pager, pageOf, useLastPageWhenPastEnd } from './pager'
import { Badge, Empty, ErrorMessage, Loading } from './status'

type Delivery = Schema<'WatcherDelivery'>
type DeliveryStatus = Delivery['status']

const DELIVERY_STATUSES = everyValueOf<DeliveryStatus>()(['pending', 'succeeded', 'failed'])
const PER_PAGE = 25

/** The watcher's deliveries, newest first, each with its attempts; failed ones can be sent again. */
export function Deliveries({ watcherId, watcherDisabled }: { watcherId: string; watcherDisabled: boolean }) {
  const location = useLocation()
  const page = pageOf(location.query)
  const status = pickValue(DELIVERY_STATUSES, location.query.get('status'))
  const list = useApi(
    async (signal) => {
      const result = await api.GET('/watchers/{id}/deliveries', {
        params: { path: { id: watcherId }, query: { page, per_page: PER_PAGE, ...(status ? { status } : {}) } },
        signal,
      })
      return { deliveries: unwrap(result).watcher_deliveries, total: totalOf(result.response) }
    },
    [watcherId, page, status],
  )
  const retry = useAction()
  const outcomeRegion = useFocusRequest<HTMLDivElement>()
  const [retrying, setRetrying] = useState<string | null>(null)
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set())

  const toggle = (deliveryId: string) =>
    setExpanded((previous) => {
      const next = new Set(previous)
      if (next.has(deliveryId)) next.delete(deliveryId)
      else next.add(deliveryId)
      return next
    })

  const sendAgain = async (delivery: Delivery) => {
    setRetrying(delivery.id)
    const done = await retry.run(
      async () => unwrap(await api.POST('/watcher_deliveries/{id}/retry', { params: { path: { id: delivery.id } } })).watcher_delivery,
      (d) => `The ${d.event_type} delivery is queued for another attempt, right away.`,
      'This delivery',
    )
    setRetrying(null)
    // The row's Retry is gone once it is queued again (or the failure is told): the outcome takes the focus.
    outcomeRegion.focus()
    if (done) list.reload()
  }

  useLastPageWhenPastEnd(page, PER_PAGE, list.state === 'ready' ? { rows: list.data.deliveries.length, total: list.data.total } : undefined)

  const data = list.data
  const disabledHintId = `watcher-disabled-${watcherId}`
  return (
    <section aria-labelledby="watcher-deliveries">
      <h2 id="watcher-deliveries">Deliveries</h2>
      <p className="hint">
        A failed answer (5xx, 408, 429, time-out) is tried again on the service's retry schedule (by default after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h); a 410 Gone disables the watcher.
      </p>
      {watcherDisabled && (
        <p className="hint" id={disabledHintId}>
          This watcher is disabled: re-enable it before sending a delivery again.
        </p>
      )}
      <div className="filters">
        <SelectField label="Delivery status" value={status ?? ''} options={DELIVERY_STATUSES} onChange={(value) => navigate(withQuery(location, { status: value, page: undefined }))} />
        <button type="button" onClick={list.reload} disabled={list.state === 'loading'}>
          Refresh
        </button>
      </div>
      <OutcomeMessage outcome={retry.outcome} ref={outcomeRegion.ref} />
      {list.state === 'error' && <ErrorMessage error={failureText(list.error, 'This watcher')} onRetry={list.reload} />}
      {list.state === 'loading' && <Loading what="Loading the deliveries" />}
      {data && data.deliveries.length === 0 && list.state !== 'loading' && <Empty>{status ? `No ${status} deliveries.` : 'No deliveries yet: nothing this watcher asks for has happened since it was created.'}</Empty>}
      {data && data.deliveries.length > 0 && (
        <>
          <div className="table-wrap">
            <table className="watchers-table">
              <caption className="table-caption">Deliveries{status ? ` (${status})` : ''}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="number">
                    Attempts
                  </th>
                  <th scope="col">Last result</th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {data.deliveries.map((delivery) => {
                  const open = expanded.has(delivery.id)
                  const detailsId = `delivery-${delivery.id}`
                  return (
                    <DeliveryRows
                      key={delivery.id}
                      delivery={delivery}
                      open={open}
                      detailsId={detailsId}
                      onToggle={() => toggle(delivery.id)}
                      onRetry={() => void sendAgain(delivery)}
                      retrying={retrying === delivery.id}
                      busy={retry.busy}
                      retryBlockedBy={watcherDisabled ? disabledHintId : undefined}
                    />
                  )
                })}
              </tbody>
            </table>
          </div>
          <Pager page={page} perPage={PER_PAGE} total={data.total} label="deliveries" />
        </>
      )}
    </section>
  )
}

function lastResult(delivery: Delivery): string {
  const parts = [delivery.last_status_code !== null ? `HTTP ${delivery.last_status_code}` : null, delivery.last_error].filter(Boolean)
  if (parts.length > 0) return parts.join(' · ')
  return delivery.attempts === 0 ? 'Not tried yet' : '—'
}

function DeliveryRows({
  delivery,
  open,
  detailsId,
  onToggle,
  onRetry,
  retrying,
  busy,
  retryBlockedBy,
}: {
  delivery: Delivery
  open: boolean
  detailsId: string
  onToggle: () => void
  onRetry: () => void
  retrying: boolean
  busy: boolean
  /** The id of the words that say why Retry cannot work now (the watcher is disabled: the API answers 409). */
  retryBlockedBy: string | undefined
}) {
  return (
    <>
      <tr>
        <td>
          <code>{delivery.event_type}</code>
        </td>
        <td>
          <Badge value={delivery.status} />
        </td>
        <td className="number">{delivery.attempts.toLocaleString()}</td>
        <td>{lastResult(delivery)}</td>
        <td className="when">{delivery.status === 'pending' ? formatDateTime(delivery.next_attempt_at) : '—'}</td>
        <td className="when">{formatDateTime(delivery.created_at)}</td>
        <td>
          <div className="watchers-row-actions">
            <button type="button" aria-expanded={open} aria-controls={detailsId} onClick={onToggle} aria-label={`${open ? 'Hide' : 'Show'} attempts of the ${delivery.event_type} delivery of ${formatDateTime(delivery.created_at)}`}>
              {open ? 'Hide attempts' : 'Attempts'}
            </button>
            {delivery.status === 'failed' && (
              <button
                type="button"
                onClick={onRetry}
                disabled={busy || retryBlockedBy !== undefined}
                title={retryBlockedBy ? 'The watcher is disabled: re-enable it first' : undefined}
                aria-describedby={retryBlockedBy}
                aria-label={`Retry the ${delivery.event_type} delivery of ${formatDateTime(delivery.created_at)}`}
              >
                {retrying ? 'Retrying…' : 'Retry'}
              </button>
            )}
          </div>
        </td>
      </tr>
      <tr id={detailsId} hidden={!open} className="watchers-details-row">
        <td colSpan={7}>
          {open && (
            <div className="watchers-details">
              <dl className="facts watchers-facts">
                <dt>Delivery id (webhook-id)</dt>
                <dd>
                  <code>{delivery.id}</code>
                </dd>
                <dt>Event id</dt>
                <dd>
                  <code>{delivery.event_id}</code>
                </dd>
                <dt>Delivered</dt>
                <dd>{formatDateTime(delivery.delivered_at)}</dd>
              </dl>
              <h3>{count(delivery.attempt_history.length, 'attempt')}</h3>
              {delivery.attempt_history.length === 0 ? (
                <Empty>No attempt has been made yet.</Empty>
              ) : (
                <ol className="thread">
                  {delivery.attempt_history.map((attempt) => (
                    <li key={attempt.attempt}>
                      <div className="meta">
                        Attempt {attempt.attempt} · {formatDateTime(attempt.started_at)} · {attempt.duration_ms.toLocaleString()} ms
                      </div>
                      <Badge value={attempt.outcome} />
                      {attempt.status_code !== null && <span> HTTP {attempt.status_code}</span>}
                      {attempt.error && <span> · {attempt.error}</span>}
                    </li>
                  ))}
                </ol>
              )}
              <details>
                <summary>Payload sent</summary>
                <pre className="watchers-payload">{JSON.stringify(delivery.payload, null, 2)}</pre>
              </details>
            </div>
          )}
        </td>
      </tr>
    </>
  )
}
