import { useEffect, useRef, useState, type ReactNode } from 'react'
import { Link, useLocation } from '../lib/router'
import { isOperator, useSession } from '../lib/session'
import { mayOpen, NAVIGATION } from '../routes'
import { ErrorMessage } from './status'

/**
 * The frame of every signed-in page: a skip link, the navigation (a menu button on narrow
 * screens), who is signed in, and the page in <main>. The document title follows the page so
 * browser history and screen readers name it. When the address changes to another page, focus
 * moves to <main>, so screen readers start reading the new page (not on the first page shown).
 */
export function Layout({ title, children }: { title: string; children: ReactNode }) {
  const { session, signOut } = useSession()
  const location = useLocation()
  const [menuOpen, setMenuOpen] = useState(false)
  const [signingOut, setSigningOut] = useState(false)
  const [signOutFailure, setSignOutFailure] = useState<string | null>(null)
  const main = useRef<HTMLElement>(null)
  const shownPath = useRef(location.path)

  useEffect(() => {
    document.title = `${title} · Enrollsync console`
    setMenuOpen(false)
  }, [title, location.path])

  useEffect(() => {
    if (shownPath.current === location.path) return
    shownPath.current = location.path
    setSignOutFailure(null)
    main.current?.focus({ preventScroll: true })
  }, [location.path])

  // The button stays enabled (a disabled one would drop the keyboard focus); a second click waits.
  const signOutNow = async () => {
    if (signingOut) return
    setSigningOut(true)
    setSignOutFailure(null)
    const failure = await signOut()
    setSigningOut(false)
    setSignOutFailure(failure)
  }

  const links = NAVIGATION.filter((link) => mayOpen(link.audience, session))
  const current = (to: string) => location.path === to || location.path.startsWith(`${to}/`)

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <Link to="/" className="brand">
          Enrollsync
        </Link>
        <button type="button" className="menu-button" aria-expanded={menuOpen} aria-controls="main-navigation" onClick={() => setMenuOpen((open) => !open)}>
          Menu
        </button>
        <nav id="main-navigation" aria-label="Main" className={menuOpen ? 'open' : undefined}>
          <ul>
            {links.map((link) => (
              <li key={link.to}>
                <Link to={link.to} aria-current={current(link.to) ? 'page' : undefined}>
                  {link.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>
            {session.user.email}
            <span className="account"> · {session.account.name}{isOperator(session) ? ' (operator)' : ''}</span>
          </span>
          <button type="button" onClick={() => void signOutNow()} aria-busy={signingOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} ref={main}>
        {signOutFailure && <ErrorMessage error={signOutFailure} />}
        {children}
      </main>
    </>
  )
}
