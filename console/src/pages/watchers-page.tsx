import { useEffect, useState } from 'react'
import { api, totalOf, unwrap } from '../api/client'
import { OutcomeMessage, useAction } from '../components/admin-action'
import { AccountName, useAccountNames } from '../components/admin-account-picker'
import { SecretOnce } from '../components/admin-secret'
import { FormDialog } from '../components/dialog'
import { SelectField } from '../components/fields'
import { Pager, pageOf, useLastPageWhenPastEnd } from '../components/pager'
import { Badge, Empty, ErrorMessage, Loading } from '../components/status'
import { createBodyOf, draftProblem, EMPTY_WATCHER_DRAFT, WATCHER_STATUSES, WatcherFields, type WatcherDraft } from '../components/watchers-form'
import { pickValue } from '../lib/enums'
import { formatDateTime } from '../lib/format'
import { failureText } from '../lib/problems'
import { Link, navigate, useLocation, withQuery } from '../lib/router'
import { isOperator, useSession } from '../lib/session'
import { useApi } from '../lib/use-api'

const PER_PAGE = 25

/** Webhook subscriptions: the list (GET /watchers), and a dialog that creates one and shows its secret once. */
export function WatchersPage() {
  const { session } = useSession()
  const operator = isOperator(session)
  const location = useLocation()
  const page = pageOf(location.query)
  const status = pickValue(WATCHER_STATUSES, location.query.get('status'))

  const list = useApi(
    async (signal) => {
      const result = await api.GET('/watchers', { params: { query: { page, per_page: PER_PAGE, ...(status ? { status } : {}) } }, signal })
      return { watchers: unwrap(result).watchers, total: totalOf(result.response) }
    },
    [page, status],
  )
  useLastPageWhenPastEnd(page, PER_PAGE, list.state === 'ready' ? { rows: list.data.watchers.length, total: list.data.total } : undefined)
  const names = useAccountNames(operator)

  // The watcher page sends ?deleted=1 after a deletion: say so once, then drop it from the URL.
  const [deletedNotice] = useState(() => location.query.get('deleted') !== null)
  useEffect(() => {
    if (location.query.get('deleted') !== null) navigate(withQuery(location, { deleted: undefined }), { replace: true })
  }, [location])

  const [dialogOpen, setDialogOpen] = useState(false)
  const [draft, setDraft] = useState<WatcherDraft>(EMPTY_WATCHER_DRAFT)
  const create = useAction()
  const [created, setCreated] = useState<{ id: string; url: string; secret: string } | null>(null)

  const openDialog = () => {
    create.clear()
    setDialogOpen(true)
  }

  const submit = async () => {
    const problem = draftProblem(draft)
    if (problem) {
      create.setOutcome({ kind: 'error', text: problem })
      return
    }
    const watcher = await create.run(
      async () => unwrap(await api.POST('/watchers', { body: { watcher: createBodyOf(draft) } })).watcher,
      (w) => `Watcher for ${w.url} created.`,
    )
    if (!watcher) return
    setDialogOpen(false)
    setDraft(EMPTY_WATCHER_DRAFT)
    setCreated({ id: watcher.id, url: watcher.url, secret: watcher.secret })
    list.reload()
  }

  const data = list.data
  return (
    <section>
      <h1>Watchers</h1>
      <p className="hint">
        A watcher POSTs the events it asks for to a URL of yours, signed with its secret (Standard Webhooks).
        {operator && ' Operators see the watchers of every account; an operator watcher receives the events of every account.'}
      </p>
      {deletedNotice && (
        <p className="notice" role="status">
          The watcher was deleted.
        </p>
      )}

      {created && (
        <SecretOnce title="Watcher created: its signing secret" secret={created.secret} onDone={() => setCreated(null)}>
          <p>
            The watcher for <code>{created.url}</code> signs every delivery with this secret. Your receiver needs it to check the{' '}
            <code>webhook-signature</code> header. <Link to={`/watchers/${created.id}`}>Open the watcher</Link>
          </p>
        </SecretOnce>
      )}

      <div className="filters">
        <SelectField label="Status" value={status ?? ''} options={WATCHER_STATUSES} onChange={(value) => navigate(withQuery(location, { status: value, page: undefined }))} />
        <button type="button" className="primary" onClick={openDialog}>
          New watcher
        </button>
      </div>

      {list.state === 'error' && <ErrorMessage error={failureText(list.error)} onRetry={list.reload} />}
      {list.state === 'loading' && <Loading what="Loading the watchers" />}
      {data && data.watchers.length === 0 && list.state !== 'loading' && (
        <Empty>{status ? `No ${status} watchers.` : 'No watchers yet. Create one to be told about events as they happen.'}</Empty>
      )}
      {data && data.watchers.length > 0 && (
        <>
          <div className="table-wrap">
            <table className="watchers-table">
              <caption className="table-caption">Watchers{status ? ` (${status})` : ''}, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Status</th>
                  {operator && <th scope="col">Account</th>}
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {data.watchers.map((watcher) => (
                  <tr key={watcher.id}>
                    <td className="watchers-url">
                      <Link to={`/watchers/${watcher.id}`}>{watcher.url}</Link>
                      {watcher.description && <div className="hint">{watcher.description}</div>}
                    </td>
                    <td>
                      <ul className="watchers-event-list">
                        {watcher.event_types.map((type) => (
                          <li key={type}>
                            <code>{type}</code>
                          </li>
                        ))}
                      </ul>
                    </td>
                    <td>
                      <Badge value={watcher.status} />
                      {watcher.disabled_reason && <div className="hint">{watcher.disabled_reason}</div>}
                    </td>
                    {operator && (
                      <td>
                        <AccountName id={watcher.account_id} names={names} />
                      </td>
                    )}
                    <td className="when">{formatDateTime(watcher.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} perPage={PER_PAGE} total={data.total} label="watchers" />
        </>
      )}

      <FormDialog open={dialogOpen} title="New watcher" submitLabel="Create watcher" busy={create.busy} onSubmit={() => void submit()} onClose={() => setDialogOpen(false)}>
        <WatcherFields draft={draft} onChange={setDraft} />
        <p className="hint">Its signing secret is shown once, right after it is created.</p>
        <OutcomeMessage outcome={create.outcome?.kind === 'error' ? create.outcome : null} />
      </FormDialog>
    </section>
  )
}
