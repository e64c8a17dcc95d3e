import { useEffect, useState, type FormEvent } from 'react'
import { api, totalOf, unwrap, type JsonOf } from '../api/client'
import type { paths } from '../api/schema'
import { OutcomeMessage, useAction } from '../components/admin-action'
import { AccountPicker, useChosenAccount } from '../components/admin-account-picker'
import { FormDialog } from '../components/dialog'
import { SelectField, TextField } from '../components/fields'
import { Pager, pageOf, useLastPageWhenPastEnd } from '../components/pager'
import { ActiveOr, Empty, ErrorMessage, Loading } from '../components/status'
import { everyValueOf, pickValue } from '../lib/enums'
import { formatDateTime } from '../lib/format'
import { failureText } from '../lib/problems'
import { navigate, useLocation, withQuery } from '../lib/router'
import { isAdmin, useSession } from '../lib/session'
import { useApi } from '../lib/use-api'
import { useFocusRequest } from '../lib/use-focus-request'

type UserQuery = paths['/users']['get']['parameters']['query']
type User = JsonOf<'/users'>['users'][number]
type UserStatus = NonNullable<UserQuery['status']>

const USER_STATUSES = everyValueOf<UserStatus>()(['active', 'deactivated'])
const PER_PAGE = 25

type Dialog = { kind: 'add' } | { kind: 'deactivate'; user: User }

/** Roles as typed: comma-separated, trimmed, each once. */
function rolesOf(text: string): string[] {
  return [...new Set(text.split(',').map((role) => role.trim()).filter(Boolean))]
}

/**
 * The users of an account (GET /users): an administrator's own, or for an operator the account
 * picked. Add a user (POST /users), deactivate one (POST /users/{id}/deactivation): through a
 * console session both need the `admin` role (operators too), so others see the list only.
 */
export function UsersPage() {
  const { session } = useSession()
  const admin = isAdmin(session)
  const { accountId, operator, own } = useChosenAccount()
  const location = useLocation()
  const page = pageOf(location.query)
  const status = pickValue(USER_STATUSES, location.query.get('status'))
  const email = location.query.get('email') ?? ''
  const [emailDraft, setEmailDraft] = useState(email)
  useEffect(() => setEmailDraft(email), [email])

  const users = useApi(
    async (signal) => {
      const query: UserQuery = { page, per_page: PER_PAGE }
      if (status) query.status = status
      if (email) query.email = email
      if (operator) query.account_id = accountId
      const result = await api.GET('/users', { params: { query }, signal })
      return { users: unwrap(result).users, total: totalOf(result.response) }
    },
    [page, status, email, operator, accountId],
  )
  useLastPageWhenPastEnd(page, PER_PAGE, users.state === 'ready' ? { rows: users.data.users.length, total: users.data.total } : undefined)

  const [dialog, setDialog] = useState<Dialog | null>(null)
  const [newEmail, setNewEmail] = useState('')
  const [newRoles, setNewRoles] = useState('')
  const dialogAction = useAction()
  const [outcome, setOutcome] = useState<{ kind: 'ok'; text: string } | null>(null)
  // A deactivated user's button is gone: the outcome takes the focus when the dialog closes.
  const outcomeRegion = useFocusRequest<HTMLDivElement>()

  const open = (next: Dialog) => {
    dialogAction.clear()
    if (next.kind === 'add') {
      setNewEmail('')
      setNewRoles('')
    }
    setDialog(next)
  }

  const submit = async () => {
    if (!dialog) return
    if (dialog.kind === 'add') {
      if (!newEmail.trim()) {
        dialogAction.setOutcome({ kind: 'error', text: 'Enter the email address of the new user.' })
        return
      }
      const user = await dialogAction.run(
        async () => unwrap(await api.POST('/users', { body: { user: { email: newEmail.trim(), role_names: rolesOf(newRoles) } } })).user,
        (u) => `${u.email} was added.`,
      )
      if (!user) return
      setDialog(null)
      setOutcome({ kind: 'ok', text: `${user.email} was added${user.role_names.length ? ` with the roles ${user.role_names.join(', ')}` : ''}. Set their password with the command line before they sign in.` })
      outcomeRegion.focus()
      users.reload()
    } else {
      const target = dialog.user
      const user = await dialogAction.run(
        async () => unwrap(await api.POST('/users/{id}/deactivation', { params: { path: { id: target.id } } })).user,
        (u) => `${u.email} was deactivated.`,
        'This user',
      )
      if (!user) return
      setDialog(null)
      setOutcome({ kind: 'ok', text: `${user.email} is deactivated: they can no longer sign in nor be named in comments or resolutions.` })
      outcomeRegion.focus()
      users.reload()
    }
  }

  const applyEmail = (event: FormEvent) => {
    event.preventDefault()
    navigate(withQuery(location, { email: emailDraft.trim(), page: undefined }))
  }

  const isSelf = (user: User) => own && user.id === session.user.id
  const data = users.data
  return (
    <section>
      <h1>Users</h1>
      {operator && <AccountPicker />}
      <p className="notice admin-note">
        Users sign in to this console and are who error comments and resolutions name. The role <code>admin</code> makes a user an administrator of their
        account (API keys and users). Passwords are set with the command line, <code>users set-password</code> (see the README).
      </p>

      <form className="filters" onSubmit={applyEmail}>
        <SelectField label="Status" value={status ?? ''} options={USER_STATUSES} onChange={(value) => navigate(withQuery(location, { status: value, page: undefined }))} />
        <TextField label="Email (exact)" type="email" value={emailDraft} onChange={setEmailDraft} />
        <button type="submit">Apply</button>
        {email && (
          <button type="button" onClick={() => navigate(withQuery(location, { email: undefined, page: undefined }))}>
            Clear email
          </button>
        )}
      </form>

      <div className="actions">
        <button type="button" className="primary" onClick={() => open({ kind: 'add' })} disabled={!admin || !own} aria-describedby={admin && own ? undefined : 'users-add-note'}>
          Add user
        </button>
        {!admin ? (
          <span id="users-add-note" className="hint">
            Only users with the <code>admin</code> role can add or deactivate users.
          </span>
        ) : (
          !own && (
            <span id="users-add-note" className="hint">
              The API adds users to the account you are signed in with only; pick your own account to add one.
            </span>
          )
        )}
      </div>
      <OutcomeMessage outcome={outcome} ref={outcomeRegion.ref} />

      {users.state === 'loading' && <Loading what="Loading the users" />}
      {users.state === 'error' && <ErrorMessage error={failureText(users.error)} onRetry={users.reload} />}
      {data && data.users.length === 0 && users.state !== 'loading' && (
        <Empty>{status || email ? 'No users match these filters.' : 'This account has no users yet.'}</Empty>
      )}
      {data && data.users.length > 0 && (
        <>
          <div className="table-wrap">
            <table className="admin-table">
              <caption className="table-caption">Users of {own ? 'your account' : 'the chosen account'}</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Roles</th>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  {admin && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {data.users.map((user) => (
                  <tr key={user.id}>
                    <td>
                      {user.email}
                      {isSelf(user) && <span className="hint"> (you)</span>}
                    </td>
                    <td>
                      {user.role_names.length > 0 ? (
                        <ul className="admin-roles">
                          {user.role_names.map((role) => (
                            <li key={role}>
                              <code>{role}</code>
                            </li>
                          ))}
                        </ul>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td className="when">{formatDateTime(user.created_at)}</td>
                    <td>
                      <ActiveOr ended="deactivated" endedAt={user.deactivated_at} />
                    </td>
                    {admin && (
                      <td>
                        {!user.deactivated_at && (
                          <button
                            type="button"
                            className="danger"
                            disabled={isSelf(user)}
                            title={isSelf(user) ? 'You cannot deactivate yourself' : undefined}
                            onClick={() => open({ kind: 'deactivate', user })}
                            aria-label={isSelf(user) ? 'Deactivate (not available for yourself)' : `Deactivate ${user.email}`}
                          >
                            Deactivate
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} perPage={PER_PAGE} total={data.total} label="users" />
        </>
      )}

      <FormDialog
        open={dialog !== null}
        title={dialog?.kind === 'deactivate' ? 'Deactivate this user?' : 'Add a user'}
        submitLabel={dialog?.kind === 'deactivate' ? 'Deactivate' : 'Add user'}
        busy={dialogAction.busy}
        confirmation={dialog?.kind === 'deactivate'}
        onSubmit={() => void submit()}
        onClose={() => setDialog(null)}
      >
        {dialog?.kind === 'add' && (
          <>
            <TextField label="Email" type="email" autoComplete="off" value={newEmail} onChange={setNewEmail} required autoFocus />
            <TextField
              label="Roles"
              value={newRoles}
              onChange={setNewRoles}
              hint={
                <>
                  Comma-separated, lower-case letters, digits and underscores, e.g. <code>benefits_admin, admin</code>. <code>admin</code> gives account
                  administration (API keys and users).
                </>
              }
            />
            <p className="hint">The user is added to your own account. Set their password with the command line afterwards.</p>
          </>
        )}
        {dialog?.kind === 'deactivate' && (
          <p>
            <strong>{dialog.user.email}</strong> will no longer be able to sign in nor be named in comments or resolutions. The service has no way to
            reactivate a user.
          </p>
        )}
        <OutcomeMessage outcome={dialogAction.outcome?.kind === 'error' ? dialogAction.outcome : null} />
      </FormDialog>
    </section>
  )
}
