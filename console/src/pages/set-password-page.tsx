import { useState, type FormEvent } from 'react'
import { api, problemText } from '../api/client'
import { TextField } from '../components/fields'
import { SignInForm } from '../components/sign-in-form'
import { ErrorMessage } from '../components/status'
import { UNREACHABLE } from '../lib/problems'
import { BASE } from '../lib/router'

const MIN_LENGTH = 12
const MAX_LENGTH = 256

/**
 * The token of a set-password link, from the part of the URL after `#` (`#token=…`): browsers
 * never send that part to a server, so the token stays out of access logs and Referer headers.
 */
function tokenOfLocation(): string {
  return new URLSearchParams(window.location.hash.replace(/^#/, '')).get('token') ?? ''
}

/**
 * /console/set-password#token=…: where a set-password link lands. Nobody is signed in; the link's
 * token is the credential (POST /password_links/redemption). Once the password is set, the same
 * page signs the user in.
 */
export function SetPasswordPage() {
  const [token] = useState(tokenOfLocation)
  const [password, setPassword] = useState('')
  const [repeated, setRepeated] = useState('')
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const [email, setEmail] = useState<string | null>(null)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setFailure(null)
    // Characters, not UTF-16 units, as the service counts them.
    const length = [...password].length
    if (length < MIN_LENGTH || length > MAX_LENGTH) return setFailure(`The password must be ${MIN_LENGTH} to ${MAX_LENGTH} characters long.`)
    if (password !== repeated) return setFailure('The two passwords are not the same. Type the same password twice.')
    setBusy(true)
    try {
      const { data, error } = await api.POST('/password_links/redemption', { body: { token, password } })
      if (data) setEmail(data.user.email)
      else setFailure(problemText(error, 'Setting the password failed.'))
    } catch {
      setFailure(UNREACHABLE)
    } finally {
      setBusy(false)
    }
  }

  if (email !== null) {
    return (
      <main className="sign-in" id="main">
        <h1>Enrollsync console</h1>
        <p className="notice" role="status">
          Your password is set. Sign in with it now; the link you used no longer works.
        </p>
        {/* A full load: the console starts over with the new session, as after any sign-in page. */}
        <SignInForm initialEmail={email} onSignedIn={() => window.location.assign(`${BASE}/`)} />
      </main>
    )
  }

  return (
    <main className="sign-in" id="main">
      <h1>Enrollsync console</h1>
      {token === '' ? (
        <ErrorMessage error="This page needs the whole set-password link your administrator gave you, including the part after #. Open the link again, or ask for a new one." />
      ) : (
        <form onSubmit={submit}>
          <h2>Choose your password</h2>
          <p className="hint">
            This link works once and for a limited time. Choose a password of {MIN_LENGTH} to {MAX_LENGTH} characters; a few unrelated words make a good one.
          </p>
          <TextField label="New password" type="password" autoComplete="new-password" value={password} onChange={setPassword} required autoFocus />
          <TextField label="New password again" type="password" autoComplete="new-password" value={repeated} onChange={setRepeated} required />
          {failure && <ErrorMessage error={failure} />}
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Setting the password…' : 'Set password'}
          </button>
        </form>
      )}
      <p className="hint">
        Already have a password? <a href={`${BASE}/`}>Sign in</a>.
      </p>
    </main>
  )
}
