import { createContext, useContext } from 'react'
import type { Schema } from '../api/client'

// The session object as the published contract describes it (POST /session, GET /session).
export type Session = Schema<'Session'>

export interface SessionContextValue {
  session: Session
  /** Ends the session; answers null when signed out, else why it could not (the user stays signed in). */
  signOut: () => Promise<string | null>
}

export const SessionContext = createContext<SessionContextValue | null>(null)

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext)
  if (!value) throw new Error('useSession outside a signed-in console')
  return value
}

/** Operators are the users of the service's own account: they see every account. */
export const isOperator = (session: Session): boolean => session.account.kind === 'service'
/** Account administrators (the `admin` role) manage their account's API keys and users. */
export const isAdmin = (session: Session): boolean => session.user.role_names.includes('admin')
