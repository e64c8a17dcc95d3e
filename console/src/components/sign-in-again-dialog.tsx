import { useEffect, useRef } from 'react'
import type { Session } from '../lib/session'
import { SignInForm } from './sign-in-form'

/**
 * Asks to sign in again over the page whose session just ended (expired, ended elsewhere): the
 * page stays as it was, so a half-written comment or message is still there to send once signed
 * in. Modal and not dismissable: behind it, nothing would work without a session.
 */
export function SignInAgainDialog({ notice, email, onSignedIn }: { notice: string; email: string; onSignedIn: (session: Session) => void }) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog || dialog.open) return
    dialog.showModal()
    // showModal focuses the first field, the email already filled in: the password is what is asked.
    dialog.querySelector<HTMLInputElement>('input[type="password"]')?.focus()
  }, [])
  return (
    <dialog ref={ref} aria-label="Sign in again" onCancel={(event) => event.preventDefault()} className="sign-in-again">
      <SignInForm notice={`${notice} What you were writing is kept.`} urgent initialEmail={email} onSignedIn={onSignedIn} />
    </dialog>
  )
}
