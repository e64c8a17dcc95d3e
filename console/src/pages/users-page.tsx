import { useEffect, useState, type FormEvent } from 'react'
import { api, totalOf, unwrap, type Schema } from '../api/client'
import type { paths } from '../api/schema'
import { OutcomeMessage, useAction } from '../components/admin-action'
import { SecretOnce } from '../components/admin-secret'
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

type UserQuery = NonNullable<paths['/users']['get']['parameters']['query']>
type User = Schema<'User'>
type UserStatus = NonNullable<UserQuery['status']>
type RoleName = NonNullable<NonNullable<paths['/users']['post']['requestBody']>['content']['application/json']['user']['role_names']>[number]
type PasswordLink = Schema<'PasswordLink'>

const USER_STATUSES = everyValueOf<UserStatus>()(['active', 'deactivated'])
/** The service's closed list of roles, each with what it means (POST /users documents the same). */
const ROLES = everyValueOf<RoleName>()(['admin', 'benefits_admin', 'operations'])
const ROLE_MEANINGS: Record<RoleName, string> = {
  admin: 'administers the account here: users, their set-password links, API keys',
  benefits_admin: 'works on groups, members and their errors',
  operations: 'works the error queue and follows up with carriers',
}
const PER_PAGE = 25

type Dialog = { kind: 'add' } | { kind: 'deactivate'; user: User } | { kind: 'link'; user: Pick<User, 'id' | 'email'> }

/** A link just made, shown once: the service keeps only its hash. */
interface ShownLink {
  email: string
  link: PasswordLink
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
  const [newRoles, setNewRoles] = useState<RoleName[]>([])
  const [withLink, setWithLink] = useState(true)
  const [shownLink, setShownLink] = useState<ShownLink | null>(null)
  const dialogAction = useAction()
  const [outcome, setOutcome] = useState<{ kind: 'ok'; text: string } | null>(null)
  // A deactivated user's button is gone: the outcome takes the focus when the dialog closes.
  const outcomeRegion = useFocusRequest<HTMLDivElement>()

  const open = (next: Dialog) => {
    dialogAction.clear()
    if (next.kind === 'add') {
      setNewEmail('')
      setNewRoles([])
      setWithLink(true)
    }
    setDialog(next)
  }

  const createLink = (userId: string) =>
    api.POST('/users/{id}/password_links', { params: { path: { id: userId } } }).then((result) => unwrap(result).password_link)

  const toggleRole = (role: RoleName, on: boolean) => setNewRoles((roles) => (on ? [...roles, role] : roles.filter((r) => r !== role)))

  const submit = async () => {
    if (!dialog) return
    if (dialog.kind === 'link') {
      const target = dialog.user
      const link = await dialogAction.run(() => createLink(target.id), () => `A set-password link for ${target.email} was made.`, 'This user')
      if (!link) return
      setDialog(null)
      setOutcome(null)
      setShownLink({ email: target.email, link })
      users.reload()
    } else if (dialog.kind === 'add') {
      if (!newEmail.trim()) {
        dialogAction.setOutcome({ kind: 'error', text: 'Enter the email address of the new user.' })
        return
      }
      const user = await dialogAction.run(
        async () => unwrap(await api.POST('/users', { body: { user: { email: newEmail.trim(), role_names: ROLES.filter((role) => newRoles.includes(role)) } } })).user,
        (u) => `${u.email} was added.`,
      )
      if (!user) return
      const added = `${user.email} was added${user.role_names.length ? ` with the roles ${user.role_names.join(', ')}` : ''}.`
      if (withLink) {
        // The user exists now: if the link fails, say so over the list, where "Set-password link" can try again.
        const link = await createLink(user.id).catch((error: unknown) => {
          setOutcome({ kind: 'ok', text: `${added} The set-password link could not be made (${failureText(error)}); use "Set-password link" beside them.` })
          return undefined
        })
        setDialog(null)
        if (link) {
          setOutcome(null)
          setShownLink({ email: user.email, link })
        } else outcomeRegion.focus()
      } else {
        setDialog(null)
        setOutcome({ kind: 'ok', text: `${added} Give them a set-password link ("Set-password link" beside them) before they sign in.` })
        outcomeRegion.focus()
      }
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
        account (API keys and users). A user chooses their password (or a new one) with a one-time set-password link that you make here and hand over.
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
      {shownLink && (
        <SecretOnce title={`Set-password link for ${shownLink.email}`} secret={shownLink.link.url} onDone={() => setShownLink(null)}>
          <p>
            Hand this link to {shownLink.email} yourself (no mail is sent). It works once, until {formatDateTime(shownLink.link.expires_at)}; making another
            link for them replaces it. When they use it they choose their password, and any console session they had ends.
          </p>
        </SecretOnce>
      )}

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
                      <td className="admin-row-actions">
                        {!user.deactivated_at && (
                          <button type="button" onClick={() => open({ kind: 'link', user })} aria-label={`Set-password link for ${user.email}`}>
                            Set-password link
                          </button>
                        )}
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
        title={dialog?.kind === 'deactivate' ? 'Deactivate this user?' : dialog?.kind === 'link' ? 'Make a set-password link?' : 'Add a console user'}
        submitLabel={dialog?.kind === 'deactivate' ? 'Deactivate' : dialog?.kind === 'link' ? 'Make link' : 'Add user'}
        busy={dialogAction.busy}
        confirmation={dialog?.kind === 'deactivate' || dialog?.kind === 'link'}
        onSubmit={() => void submit()}
        onClose={() => setDialog(null)}
      >
        {dialog?.kind === 'add' && (
          <>
            <TextField label="Email" type="email" autoComplete="off" value={newEmail} onChange={setNewEmail} required autoFocus />
            <fieldset className="admin-role-choices">
              <legend>Roles</legend>
              {ROLES.map((role) => (
                <label key={role} className="admin-role-choice">
                  <input type="checkbox" checked={newRoles.includes(role)} onChange={(event) => toggleRole(role, event.target.checked)} />
                  <span>
                    <code>{role}</code>: {ROLE_MEANINGS[role]}
                  </span>
                </label>
              ))}
            </fieldset>
            <label className="admin-role-choice">
              <input type="checkbox" checked={withLink} onChange={(event) => setWithLink(event.target.checked)} />
              <span>Make a set-password link for them now, to hand over (shown once)</span>
            </label>
            <p className="hint">The user is added to your own account.</p>
          </>
        )}
        {dialog?.kind === 'link' && (
          <p>
            A new link lets <strong>{dialog.user.email}</strong> choose a password, also to replace a forgotten one. Any earlier link for them that was not
            used stops working. Their current password, if any, keeps working until the link is used; then their open sessions end.
          </p>
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
