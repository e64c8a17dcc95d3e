import { createHash } from 'node:crypto'
import type { Db } from '../../db/schema.js'
import type { RateLimitStore } from '../../http/rate-limit.js'
import type { Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import { KeyedQueue } from '../../lib/keyed-queue.js'
import { verifyAgainstDummy, verifyPassword } from '../../lib/passwords.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { presentUser } from '../users/users.service.js'
import { createFailureLockout } from './failure-lockout.js'
import { signInFailed, SignInRateLimited, signInUnavailable } from './sessions.errors.js'
import * as repo from './sessions.repo.js'
import type { Session, SignInInput } from './sessions.schema.js'
import { hashSessionToken, looksLikeSessionToken, newCsrfToken, newSessionToken } from './session-cookie.js'
import type { ConsoleSessionSettings } from './session-settings.js'

/** A live session as the guard found it: what the actor is built from and what GET /session answers. */
export interface ConsoleSession {
  id: string
  csrfToken: string
  view: Session
  actor: Omit<Actor, 'requestId'>
}

export type SessionLookup = { status: 'live'; session: ConsoleSession } | { status: 'ended' }

export interface SessionsServiceDeps {
  db: Db
  /** The rate-limit store: failed sign-ins are counted there, shared by every instance with Redis. */
  failureCounter: RateLimitStore
  settings: ConsoleSessionSettings
  now?: () => Date
}

/** Counter keys hold a hash of the email, so no email reaches Redis. */
const emailKey = (email: string) => `sign-in:email:${createHash('sha256').update(email).digest('hex')}`
const addressKey = (address: string) => `sign-in:address:${address}`

/** Who a console session acts as: the user's account, through the console, named by the user. */
function consoleActor(
  account: { id: string; kind: Actor['accountKind'] },
  user: { id: string; email: string; role_names: string[] },
): Omit<Actor, 'requestId'> {
  return {
    accountId: account.id,
    accountKind: account.kind,
    apiKeyId: null,
    apiKeyName: null,
    channel: 'console',
    user: { id: user.id, email: user.email, roleNames: user.role_names },
  }
}

export function createSessionsService({ db, failureCounter, settings, now = () => new Date() }: SessionsServiceDeps) {
  const lockout = createFailureLockout(failureCounter, settings.failureWindowSeconds, signInUnavailable)
  // The lockout is peek, verify, then count: attempts on one email or from one address run one at
  // a time in this process, so parallel guesses cannot all pass the peek before any is counted
  // (with several instances, each may let one extra attempt through). It also bounds the scrypt
  // work a single address can queue at once.
  const attempts = new KeyedQueue()

  /** Refuses before the password is checked when this email or address used up its failures. */
  async function refuseWhenLockedOut(keys: { email: string; address: string }): Promise<void> {
    const retryAfter = await lockout.retryAfterSeconds([
      { key: keys.email, max: settings.maxFailuresPerEmail },
      { key: keys.address, max: settings.maxFailuresPerAddress },
    ])
    if (retryAfter !== undefined) throw new SignInRateLimited(retryAfter)
  }

  return {
    settings,

    /**
     * Checks the email and password and opens a session. Every failure is the same `sign_in_failed`
     * and takes the same time (an unknown email is verified against a dummy hash).
     */
    async signIn(input: SignInInput & { address: string; requestId: string }): Promise<{ token: string; session: Session }> {
      const email = input.email.trim().toLowerCase()
      const keys = { email: emailKey(email), address: addressKey(input.address) }
      const candidate = await attempts.run([keys.email, keys.address], async () => {
        await refuseWhenLockedOut(keys)
        const found = await repo.findSignInCandidate(db, email)
        const verified = found ? await verifyPassword(input.password, found.user.password_hash) : await verifyAgainstDummy(input.password)
        if (!found || !verified) {
          await lockout.countFailure([keys.email, keys.address])
          throw signInFailed()
        }
        return found
      })

      const { user, account } = candidate
      const { token, hash } = newSessionToken()
      const at = now()
      const expiresAt = new Date(at.getTime() + settings.ttlSeconds * 1000)
      const actor: Actor = { ...consoleActor(account, user), requestId: input.requestId }
      const row = await db.transaction().execute(async (tx) => {
        await repo.deleteExpiredSessionsOfUser(tx, user.id, at)
        const inserted = await repo.insertSession(tx, {
          id: uuidv7(),
          token_hash: hash,
          user_id: user.id,
          account_id: account.id,
          csrf_token: newCsrfToken(),
          expires_at: expiresAt,
        })
        await recordAuditEvent(tx, actor, { accountId: account.id, action: 'session.created', resourceType: 'console_session', resourceId: inserted.id })
        return inserted
      })
      return {
        token,
        session: { user: presentUser(user), account, csrf_token: row.csrf_token, expires_at: row.expires_at.toISOString() },
      }
    },

    /**
     * The session a cookie names, if it still works: not expired, its user active and still of the
     * session's account. A session that stopped working is deleted on the way.
     */
    async authenticate(token: string): Promise<SessionLookup> {
      if (!looksLikeSessionToken(token)) return { status: 'ended' }
      const row = await repo.findSessionByTokenHash(db, hashSessionToken(token))
      if (!row) return { status: 'ended' }
      if (row.expires_at.getTime() <= now().getTime() || row.user_deactivated_at !== null || row.user_account_id !== row.account_id) {
        await repo.deleteSession(db, row.id)
        return { status: 'ended' }
      }
      const user = { id: row.user_id, email: row.user_email, role_names: row.user_role_names }
      const account = { id: row.account_id, name: row.account_name, kind: row.account_kind }
      return {
        status: 'live',
        session: {
          id: row.id,
          csrfToken: row.csrf_token,
          view: {
            user: { ...user, created_at: row.user_created_at.toISOString() },
            account,
            csrf_token: row.csrf_token,
            expires_at: row.expires_at.toISOString(),
          },
          actor: consoleActor(account, user),
        },
      }
    },

    /** Ends the session (sign-out). Ending an ended session is not an error. */
    async signOut(actor: Actor, sessionId: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        if (await repo.deleteSession(tx, sessionId)) {
          await recordAuditEvent(tx, actor, { accountId: actor.accountId, action: 'session.deleted', resourceType: 'console_session', resourceId: sessionId })
        }
      })
    },
  }
}

export type SessionsService = ReturnType<typeof createSessionsService>
