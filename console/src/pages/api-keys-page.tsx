import { useState } from 'react'
import { api, unwrap, type Schema } from '../api/client'
import { OutcomeMessage, useAction } from '../components/admin-action'
import { AccountPicker, useChosenAccount } from '../components/admin-account-picker'
import { SecretOnce } from '../components/admin-secret'
import { FormDialog } from '../components/dialog'
import { TextField } from '../components/fields'
import { ActiveOr, Empty, ErrorMessage, Loading } from '../components/status'
import { count, formatDateTime } from '../lib/format'
import { failureText } from '../lib/problems'
import { isAdmin, useSession } from '../lib/session'
import { useApi } from '../lib/use-api'
import { useFocusRequest } from '../lib/use-focus-request'

type ApiKey = Schema<'ApiKey'>

type Dialog = { kind: 'create' } | { kind: 'revoke'; key: ApiKey }

/**
 * An account's API keys (GET /accounts/{id}/api_keys): an administrator's own account, or for an
 * operator the account picked. Creating one shows its key once; revoking asks first. Through a
 * console session both need the `admin` role (operators too), so others see the list only.
 */
export function ApiKeysPage() {
  const { session } = useSession()
  const admin = isAdmin(session)
  const { accountId, operator, own } = useChosenAccount()
  const keys = useApi(async (signal) => unwrap(await api.GET('/accounts/{id}/api_keys', { params: { path: { id: accountId } }, signal })).api_keys, [accountId])

  const [dialog, setDialog] = useState<Dialog | null>(null)
  const [name, setName] = useState('')
  const dialogAction = useAction()
  const [outcome, setOutcome] = useState<{ kind: 'ok'; text: string } | null>(null)
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null)
  // A revoked key's button is gone: the outcome takes the focus when the dialog closes.
  const outcomeRegion = useFocusRequest<HTMLDivElement>()

  const open = (next: Dialog) => {
    dialogAction.clear()
    if (next.kind === 'create') setName('')
    setDialog(next)
  }

  const submit = async () => {
    if (!dialog) return
    if (dialog.kind === 'create') {
      if (!name.trim()) {
        dialogAction.setOutcome({ kind: 'error', text: 'Give the key a name that says who or what uses it.' })
        return
      }
      const key = await dialogAction.run(
        async () => unwrap(await api.POST('/accounts/{id}/api_keys', { params: { path: { id: accountId } }, body: { api_key: { name: name.trim() } } })).api_key,
        (k) => `API key ${k.name} created.`,
        'This account',
      )
      if (!key) return
      setDialog(null)
      setOutcome(null)
      setCreated({ name: key.name, key: key.key })
      keys.reload()
    } else {
      const revoked = dialog.key
      const done = await dialogAction.run(
        async () => {
          unwrap(await api.DELETE('/api_keys/{id}', { params: { path: { id: revoked.id } } }))
          return true
        },
        () => `API key ${revoked.name} revoked.`,
        'This API key',
      )
      if (!done) return
      setDialog(null)
      setOutcome({ kind: 'ok', text: `API key ${revoked.name} (${revoked.prefix}…) is revoked: it and every token made from it stop working within seconds.` })
      outcomeRegion.focus()
      keys.reload()
    }
  }

  const list = keys.data
  const active = list?.filter((key) => key.revoked_at === null).length ?? 0

  return (
    <section>
      <h1>API keys</h1>
      <p className="hint">
        Client platforms call the API with these keys (the <code>Service-Api-Key</code> header, or a token from <code>POST /auth/token</code>). The service
        keeps only a hash: a key is shown once, when it is made.
      </p>
      {operator && <AccountPicker />}

      {created && (
        <SecretOnce title={`API key created: ${created.name}`} secret={created.key} onDone={() => setCreated(null)}>
          <p>Give it to whoever needs it over a safe channel. If it is lost, make a new key and revoke this one.</p>
        </SecretOnce>
      )}

      <div className="actions">
        {admin ? (
          <button type="button" className="primary" onClick={() => open({ kind: 'create' })}>
            Create API key
          </button>
        ) : (
          <p className="hint">
            Only users with the <code>admin</code> role can create or revoke API keys.
          </p>
        )}
      </div>
      <OutcomeMessage outcome={outcome} ref={outcomeRegion.ref} />

      {keys.state === 'loading' && <Loading what="Loading the API keys" />}
      {keys.state === 'error' && <ErrorMessage error={failureText(keys.error, own ? 'Your account' : 'This account')} onRetry={keys.reload} />}
      {list && list.length === 0 && keys.state !== 'loading' && <Empty>This account has no API keys yet.</Empty>}
      {list && list.length > 0 && (
        <>
          <div className="table-wrap">
            <table className="admin-table">
              <caption className="table-caption">API keys of {own ? 'your account' : 'the chosen account'}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  {admin && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {list.map((key) => (
                  <tr key={key.id}>
                    <td>{key.name}</td>
                    <td>
                      <code>{key.prefix}…</code>
                    </td>
                    <td className="when">{formatDateTime(key.created_at)}</td>
                    <td>
                      <ActiveOr ended="revoked" endedAt={key.revoked_at} />
                    </td>
                    {admin && (
                      <td>
                        {key.revoked_at === null && (
                          <button type="button" className="danger" onClick={() => open({ kind: 'revoke', key })} aria-label={`Revoke the API key ${key.name}`}>
                            Revoke
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="pager-summary">
            {count(list.length, 'key')}, {active.toLocaleString()} active
          </p>
        </>
      )}

      <FormDialog
        open={dialog !== null}
        title={dialog?.kind === 'revoke' ? 'Revoke this API key?' : 'Create an API key'}
        submitLabel={dialog?.kind === 'revoke' ? 'Revoke key' : 'Create key'}
        busy={dialogAction.busy}
        confirmation={dialog?.kind === 'revoke'}
        onSubmit={() => void submit()}
        onClose={() => setDialog(null)}
      >
        {dialog?.kind === 'create' && (
          <TextField label="Name" value={name} onChange={setName} required autoFocus hint="Who or what uses it, e.g. “production sync”. The key itself is shown once, after this." />
        )}
        {dialog?.kind === 'revoke' && (
          <p>
            <strong>{dialog.key.name}</strong> (<code>{dialog.key.prefix}…</code>) and every token made from it stop working at once. Whatever still uses it
            will be refused. This cannot be undone.
          </p>
        )}
        <OutcomeMessage outcome={dialogAction.outcome?.kind === 'error' ? dialogAction.outcome : null} />
      </FormDialog>
    </section>
  )
}
