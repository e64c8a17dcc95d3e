import { useState } from 'react'
import { api, unwrap } from '../api/client'
import { OutcomeMessage, useAction } from '../components/admin-action'
import { AccountName, useAccountNames } from '../components/admin-account-picker'
import { SecretOnce } from '../components/admin-secret'
import { FormDialog } from '../components/dialog'
import { Badge, ErrorMessage, Loading } from '../components/status'
import { Deliveries } from '../components/watchers-deliveries'
import { draftOf, draftProblem, EMPTY_WATCHER_DRAFT, EVENT_TYPE_LABELS, updateBodyOf, WatcherFields, type Watcher, type WatcherDraft } from '../components/watchers-form'
import { formatDateTime } from '../lib/format'
import { failureText } from '../lib/problems'
import { Link, navigate } from '../lib/router'
import { isOperator, useSession } from '../lib/session'
import { useApi } from '../lib/use-api'

type DialogKind = 'edit' | 'rotate' | 'delete'

/** One watcher: its settings and actions (change, disable or re-enable, rotate the secret, delete) and its deliveries. */
export function WatcherPage({ id }: { id: string }) {
  const { session } = useSession()
  const operator = isOperator(session)
  const names = useAccountNames(operator)

  const loaded = useApi(async (signal) => unwrap(await api.GET('/watchers/{id}', { params: { path: { id } }, signal })).watcher, [id])
  const action = useAction()
  const dialogAction = useAction()
  const [dialog, setDialog] = useState<DialogKind | null>(null)
  const [draft, setDraft] = useState<WatcherDraft>(EMPTY_WATCHER_DRAFT)
  const [secret, setSecret] = useState<{ secret: string; previousUntil: string | null } | null>(null)

  const watcher = loaded.data

  const openDialog = (kind: DialogKind) => {
    dialogAction.clear()
    if (kind === 'edit' && watcher) setDraft(draftOf(watcher))
    setDialog(kind)
  }

  const setStatus = async (current: Watcher) => {
    const next = current.status === 'active' ? 'disabled' : 'active'
    const done = await action.run(
      async () => unwrap(await api.PATCH('/watchers/{id}', { params: { path: { id } }, body: { watcher: { status: next } } })).watcher,
      (w) => (w.status === 'active' ? 'The watcher is active again: new events will be delivered.' : 'The watcher is disabled: it receives nothing until re-enabled.'),
      'This watcher',
    )
    if (done) loaded.reload()
  }

  const submitDialog = async () => {
    if (dialog === 'edit') {
      const problem = draftProblem(draft)
      if (problem) {
        dialogAction.setOutcome({ kind: 'error', text: problem })
        return
      }
      const done = await dialogAction.run(
        async () => unwrap(await api.PATCH('/watchers/{id}', { params: { path: { id } }, body: { watcher: updateBodyOf(draft) } })).watcher,
        () => 'The watcher was changed.',
        'This watcher',
      )
      if (done) {
        setDialog(null)
        action.setOutcome({ kind: 'ok', text: 'The watcher was changed.' })
        loaded.reload()
      }
    } else if (dialog === 'rotate') {
      const done = await dialogAction.run(
        async () => unwrap(await api.POST('/watchers/{id}/rotate_secret', { params: { path: { id } } })).watcher,
        () => 'A new signing secret was made.',
        'This watcher',
      )
      if (done) {
        setDialog(null)
        action.clear()
        setSecret({ secret: done.secret, previousUntil: done.previous_secret_expires_at })
        loaded.reload()
      }
    } else if (dialog === 'delete') {
      const done = await dialogAction.run(
        async () => {
          unwrap(await api.DELETE('/watchers/{id}', { params: { path: { id } } }))
          return true
        },
        () => 'The watcher was deleted.',
        'This watcher',
      )
      if (done) {
        setDialog(null)
        // Replaced: Back must not return to the page of a watcher that is gone.
        navigate('/watchers?deleted=1', { replace: true })
      }
    }
  }

  const dialogTitle = dialog === 'edit' ? 'Change the watcher' : dialog === 'rotate' ? 'Make a new signing secret?' : 'Delete this watcher?'
  const dialogSubmit = dialog === 'edit' ? 'Save changes' : dialog === 'rotate' ? 'Make a new secret' : 'Delete watcher'

  return (
    <section>
      <p>
        <Link to="/watchers">← All watchers</Link>
      </p>
      <h1>Watcher{watcher ? <span className="watchers-title-url">: {watcher.url}</span> : null}</h1>

      {loaded.state === 'loading' && !watcher && <Loading what="Loading the watcher" />}
      {loaded.state === 'error' && <ErrorMessage error={failureText(loaded.error, 'This watcher')} onRetry={loaded.reload} />}

      {secret && (
        <SecretOnce title="The new signing secret" secret={secret.secret} onDone={() => setSecret(null)}>
          <p>
            {secret.previousUntil
              ? `The previous secret keeps signing beside this one until ${formatDateTime(secret.previousUntil)}, so your receiver can switch over meanwhile.`
              : 'Deliveries are signed with it from now on.'}
          </p>
        </SecretOnce>
      )}

      {watcher && (
        <>
          <div className="panel">
            <dl className="facts watchers-facts">
              <dt>URL</dt>
              <dd className="watchers-url">
                <code>{watcher.url}</code>
              </dd>
              <dt>Status</dt>
              <dd>
                <Badge value={watcher.status} />
                {watcher.disabled_reason && <span className="hint"> {watcher.disabled_reason}</span>}
              </dd>
              <dt>Events</dt>
              <dd>
                <ul className="watchers-event-list">
                  {watcher.event_types.map((type) => (
                    <li key={type}>
                      {EVENT_TYPE_LABELS[type]} <code>{type}</code>
                    </li>
                  ))}
                </ul>
              </dd>
              <dt>Description</dt>
              <dd>{watcher.description ?? '—'}</dd>
              <dt>Only for group</dt>
              <dd>{watcher.group_id ? <Link to={`/groups/${watcher.group_id}`}>{watcher.group_id}</Link> : 'Any group'}</dd>
              <dt>Only for coverage period</dt>
              <dd>
                {watcher.coverage_period_id ? (
                  <>
                    <code>{watcher.coverage_period_id}</code> (<Link to={`/coverage-periods/${watcher.coverage_period_id}/errors`}>its errors</Link>)
                  </>
                ) : (
                  'Any coverage period'
                )}
              </dd>
              {operator && (
                <>
                  <dt>Account</dt>
                  <dd>
                    <AccountName id={watcher.account_id} names={names} />
                  </dd>
                </>
              )}
              <dt>Created</dt>
              <dd>{formatDateTime(watcher.created_at)}</dd>
              <dt>Last changed</dt>
              <dd>{formatDateTime(watcher.updated_at)}</dd>
              {watcher.previous_secret_expires_at && (
                <>
                  <dt>Previous secret</dt>
                  <dd>Still signs beside the new one until {formatDateTime(watcher.previous_secret_expires_at)}</dd>
                </>
              )}
            </dl>
            <div className="actions">
              <button type="button" onClick={() => openDialog('edit')} disabled={action.busy}>
                Change
              </button>
              <button type="button" onClick={() => void setStatus(watcher)} disabled={action.busy}>
                {action.busy ? 'Working…' : watcher.status === 'active' ? 'Disable' : 'Re-enable'}
              </button>
              <button type="button" onClick={() => openDialog('rotate')} disabled={action.busy}>
                Rotate secret
              </button>
              <button type="button" className="danger" onClick={() => openDialog('delete')} disabled={action.busy}>
                Delete
              </button>
            </div>
            <OutcomeMessage outcome={action.outcome} />
          </div>

          <Deliveries watcherId={id} watcherDisabled={watcher.status === 'disabled'} />
        </>
      )}

      <FormDialog
        open={dialog !== null}
        title={dialogTitle}
        submitLabel={dialogSubmit}
        busy={dialogAction.busy}
        confirmation={dialog === 'delete'}
        onSubmit={() => void submitDialog()}
        onClose={() => setDialog(null)}
      >
        {dialog === 'edit' && <WatcherFields draft={draft} onChange={setDraft} />}
        {dialog === 'rotate' && (
          <p>
            The service makes a new secret and shows it once. The current secret keeps signing beside it for a while (24 hours unless the deployment says otherwise), so
            your receiver can switch without losing deliveries.
          </p>
        )}
        {dialog === 'delete' && watcher && (
          <p>
            The watcher for <code>{watcher.url}</code> will receive nothing from now on, and queued attempts fail unsent. This cannot be undone.
          </p>
        )}
        <OutcomeMessage outcome={dialogAction.outcome?.kind === 'error' ? dialogAction.outcome : null} />
      </FormDialog>
    </section>
  )
}
