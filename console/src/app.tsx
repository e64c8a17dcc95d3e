import { Fragment, useCallback, useEffect, useState } from 'react'
import { api, onSessionEnded, problemText, setCsrfToken } from './api/client'
import { Layout } from './components/layout'
import { SignInAgainDialog } from './components/sign-in-again-dialog'
import { Loading } from './components/status'
import { UNREACHABLE } from './lib/problems'
import { navigate, useLocation } from './lib/router'
import { SessionContext, type Session } from './lib/session'
import { publicPage, resolveRoute } from './routes'
import { SignInPage } from './pages/sign-in-page'

/** Why sign-in shows: `urgent` when the session ended without the user asking (announced as an alert). */
type Notice = { text: string; urgent: boolean }
/** Signed in; `ended` when the service has since said the session is over (sign in again over the page). */
type Gate = { state: 'checking' } | { state: 'signed-out'; notice?: Notice } | { state: 'signed-in'; session: Session; ended?: string }

/**
 * The console shell: asks the service who is signed in (GET /session), shows sign-in when
 * nobody is, and otherwise the page the URL names.
 */
export function App() {
  const [gate, setGate] = useState<Gate>({ state: 'checking' })
  const location = useLocation()

  const startSession = useCallback((session: Session) => {
    setCsrfToken(session.csrf_token)
    setGate({ state: 'signed-in', session })
  }, [])

  useEffect(() => {
    api.GET('/session').then(({ data }) => (data ? startSession(data.session) : setGate({ state: 'signed-out' })), () => setGate({ state: 'signed-out' }))
  }, [startSession])

  useEffect(
    () =>
      onSessionEnded((reason) => {
        setCsrfToken(null)
        // The page stays mounted under a sign-in dialog: whatever was being written is not lost.
        setGate((current) => (current.state === 'signed-in' ? { ...current, ended: reason } : current))
      }),
    [],
  )

  /** 204, or 401 (the session was already over): signed out. Anything else: still signed in, and why. */
  const signOut = useCallback(async (): Promise<string | null> => {
    let status: number
    let problem: unknown
    try {
      const result = await api.DELETE('/session')
      status = result.response.status
      problem = result.error
    } catch {
      return `You are still signed in: ${UNREACHABLE}`
    }
    if (status === 204 || status === 401) {
      setCsrfToken(null)
      setGate({ state: 'signed-out', notice: { text: 'You are signed out.', urgent: false } })
      navigate('/', { replace: true })
      return null
    }
    return `You are still signed in: signing out failed. ${problemText(problem)}`
  }, [])

  // Whoever is signed in (or nobody), a set-password link shows its own page.
  const open = publicPage(location.path)
  if (open) return open
  if (gate.state === 'checking') return <Loading what="Opening the console" />
  if (gate.state === 'signed-out') return <SignInPage notice={gate.notice?.text} urgent={gate.notice?.urgent ?? false} onSignedIn={startSession} />

  const { session, ended } = gate
  const signedInAgain = (renewed: Session) => {
    // Someone else signed in: the page on screen holds the previous user's data, so start over.
    if (renewed.user.id !== session.user.id) navigate('/', { replace: true })
    startSession(renewed)
  }
  const route = resolveRoute(location.path, session)
  return (
    <SessionContext.Provider value={{ session, signOut }}>
      <Layout title={route.title}>
        {/* Another address is another page: B's page never shows A's heading while it loads. */}
        <Fragment key={location.path}>{route.element}</Fragment>
      </Layout>
      {ended && <SignInAgainDialog notice={ended} email={session.user.email} onSignedIn={signedInAgain} />}
    </SessionContext.Provider>
  )
}
