import { useId, useState, type ReactNode } from 'react'
import type { Schema } from '../api/client'
import { useSession } from '../lib/session'
import { ErrorMessage } from './status'

type Person = Pick<Schema<'User'>, 'id' | 'email'>

/**
 * Who works on something (an error, a work order): the person assigned, and for whoever may
 * assign, a choice of `users`, "Assign to me" and "Unassign". `assign` calls the service and
 * answers null or the service's reason in words, which stays on the page under the control.
 * `children` adds what the thing itself says about who holds it.
 */
export function PersonAssignment({
  assigned,
  users,
  mayAssign,
  unassignOnly = false,
  assign,
  onChanged,
  onAttempt,
  children,
}: {
  assigned: Person | null
  users: readonly Person[]
  mayAssign: boolean
  /** Closed (a resolved error, a completed or cancelled work order): nobody's work, so only Unassign is offered. */
  unassignOnly?: boolean
  assign: (userId: string | null) => Promise<string | null>
  onChanged: (text: string) => void
  /** Called as an assignment starts: an earlier outcome announced by the page is stale then. */
  onAttempt?: () => void
  children?: ReactNode
}) {
  const { session } = useSession()
  const me: Person = session.user
  const id = useId()
  const [choice, setChoice] = useState('')
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const save = async (userId: string | null) => {
    setBusy(true)
    setFailure(null)
    onAttempt?.()
    const reason = await assign(userId)
    setBusy(false)
    if (reason) setFailure(reason)
    else {
      setChoice('')
      const who = userId === me.id ? `you (${me.email})` : (users.find((u) => u.id === userId)?.email ?? 'the chosen person')
      onChanged(userId ? `Assigned to ${who}.` : 'Nobody is assigned any more.')
    }
  }
  return (
    <div>
      <p>
        Assigned to <strong>{assigned ? (assigned.id === me.id ? `${assigned.email} (me)` : assigned.email) : 'nobody'}</strong>
        {children}
      </p>
      {mayAssign && (
        <div className="error-assignment">
          {!unassignOnly && (
            <>
              <div className="field">
                <label htmlFor={id}>Assign to</label>
                <select id={id} value={choice} onChange={(event) => setChoice(event.target.value)}>
                  <option value="">Choose a person…</option>
                  {users.map((user) => (
                    <option key={user.id} value={user.id}>
                      {user.id === me.id ? `${user.email} (me)` : user.email}
                    </option>
                  ))}
                </select>
              </div>
              <button type="button" disabled={busy || choice === ''} onClick={() => void save(choice)}>
                Assign
              </button>
              {assigned?.id !== me.id && (
                <button type="button" disabled={busy} onClick={() => void save(me.id)}>
                  Assign to me
                </button>
              )}
            </>
          )}
          {assigned && (
            <button type="button" disabled={busy} onClick={() => void save(null)}>
              Unassign
            </button>
          )}
        </div>
      )}
      {failure && <ErrorMessage error={failure} />}
    </div>
  )
}
