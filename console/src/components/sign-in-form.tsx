import { useId, useState, type FormEvent } from 'react'
import { api, problemText } from '../api/client'
import { UNREACHABLE } from '../lib/problems'
import type { Session } from '../lib/session'
import { TextField } from './fields'
import { ErrorMessage } from './status'

/**
 * The email and password form, on the sign-in page and in the dialog that asks to sign in again
 * over a page whose session ended. A `notice` says why it shows: an `urgent` one (the session
 * ended or changed without the user asking) is an alert, read at once; either way the email field
 * is described by it, so it is read again with the field that has the focus.
 */
export function SignInForm({
  notice,
  urgent = false,
  initialEmail = '',
  onSignedIn,
}: {
  notice?: string | undefined
  urgent?: boolean
  initialEmail?: string
  onSignedIn: (session: Session) => void
}) {
  const [email, setEmail] = useState(initialEmail)
  const [password, setPassword] = useState('')
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const noticeId = useId()

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setFailure(null)
    try {
      const { data, error } = await api.POST('/session', { body: { email, password } })
      if (data) onSignedIn(data.session)
      else setFailure(problemText(error, 'Signing in failed.'))
    } catch {
      setFailure(UNREACHABLE)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form onSubmit={submit}>
      <h2>Sign in</h2>
      {notice && (
        <p id={noticeId} className="notice" role={urgent ? 'alert' : 'status'}>
          {notice}
        </p>
      )}
      <TextField label="Email" type="email" autoComplete="username" value={email} onChange={setEmail} required autoFocus={!initialEmail} describedBy={notice ? noticeId : undefined} />
      <TextField label="Password" type="password" autoComplete="current-password" value={password} onChange={setPassword} required autoFocus={Boolean(initialEmail)} />
      {failure && <ErrorMessage error={failure} />}
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      <p className="hint">No password yet, or forgot it? Ask an administrator of your account for a set-password link.</p>
    </form>
  )
}
