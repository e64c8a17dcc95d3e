import { SignInForm } from '../components/sign-in-form'
import type { Session } from '../lib/session'

/** The page shown when nobody is signed in (first visit, after signing out). */
export function SignInPage({ notice, urgent = false, onSignedIn }: { notice?: string | undefined; urgent?: boolean; onSignedIn: (session: Session) => void }) {
  return (
    <main className="sign-in" id="main">
      <h1>Enrollsync console</h1>
      <SignInForm notice={notice} urgent={urgent} onSignedIn={onSignedIn} />
    </main>
  )
}
