import { createHash, randomBytes } from 'node:crypto'
import type { Db } from '../../db/schema.js'
import type { RateLimitStore } from '../../http/rate-limit.js'
import { accountScopeOf, type Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { asConsoleEmailTaken, checkMayHoldPassword, hashNewPassword, storePassword } from '../sessions/console-passwords.service.js'
import { createFailureLockout } from '../sessions/failure-lockout.js'
import { lockUser } from '../sessions/sessions.repo.js'
import type { ConsoleSessionSettings } from '../sessions/session-settings.js'
import { userNotFound } from '../users/users.errors.js'
import { requireAdminInConsole } from '../users/users.service.js'
import { passwordLinkInvalid, PasswordLinkRateLimited, passwordLinksUnavailable } from './password-links.errors.js'
import * as repo from './password-links.repo.js'
import type { PasswordLink, PasswordLinkRedeemed, RedeemPasswordLinkInput } from './password-links.schema.js'

/** Where the console's set-password page is, below the origin the link is made for. */
export const SET_PASSWORD_PATH = '/console/set-password'

export interface PasswordLinksDeps {
  db: Db
  /** Failed redemptions are counted per address there, like failed sign-ins (shared across instances with Redis). */
  failureCounter: RateLimitStore
  settings: Pick<ConsoleSessionSettings, 'passwordLinkTtlSeconds' | 'maxFailuresPerAddress' | 'failureWindowSeconds'>
  now?: () => Date
}

const hashToken = (token: string) => createHash('sha256').update(token).digest()
const addressKey = (address: string) => `password-link:address:${address}`

/**
 * One-time set-password links: how a console user gets a password while the service runs (the
 * command line cannot open an embedded database the service holds). No mail is sent; the link is
 * answered once to whoever made it, to be handed over.
 */
export function createPasswordLinksService({ db, failureCounter, settings, now = () => new Date() }: PasswordLinksDeps) {
  const lockout = createFailureLockout(failureCounter, settings.failureWindowSeconds, passwordLinksUnavailable)

  async function refuseWhenLockedOut(key: string): Promise<void> {
    const retryAfter = await lockout.retryAfterSeconds([{ key, max: settings.maxFailuresPerAddress }])
    if (retryAfter !== undefined) throw new PasswordLinkRateLimited(retryAfter)
  }

  async function failed(key: string): Promise<never> {
    await lockout.countFailure([key])
    throw passwordLinkInvalid()
  }

  return {
    settings,

    /**
     * A new link for a user of the actor's account (any account for an operator); older unused
     * links of the user stop working. `origin` is where the link points (the request's origin).
     */
    async createLink(actor: Actor, userId: string, origin: string): Promise<PasswordLink> {
      requireAdminInConsole(actor, 'create set-password links')
      const token = randomBytes(32).toString('base64url')
      const at = now()
      const row = await db.transaction().execute(async (tx) => {
        const user = await repo.lockUserInScope(tx, accountScopeOf(actor), userId)
        if (!user) throw userNotFound()
        // Refused now rather than when the link is opened: the administrator can act on it.
        await checkMayHoldPassword(tx, user)
        await repo.revokeUnusedLinks(tx, user.id, at)
        const inserted = await repo.insertLink(tx, {
          id: uuidv7(),
          token_hash: hashToken(token),
          user_id: user.id,
          account_id: user.account_id,
          created_at: at,
          expires_at: new Date(at.getTime() + settings.passwordLinkTtlSeconds * 1000),
        })
        await recordAuditEvent(tx, actor, { accountId: user.account_id, action: 'user.password_link_created', resourceType: 'user', resourceId: user.id })
        return inserted
      })
      return {
        id: row.id,
        user_id: row.user_id,
        url: `${origin}${SET_PASSWORD_PATH}#token=${token}`,
        token,
        created_at: row.created_at.toISOString(),
        expires_at: row.expires_at.toISOString(),
      }
    },

    /**
     * Sets the password of the link's user and uses the link up; the user's open sessions end.
     * Every link that does not work answers the same `password_link_invalid` and is counted
     * against the caller's address.
     */
    async redeem(input: RedeemPasswordLinkInput, caller: { address: string; requestId: string }): Promise<PasswordLinkRedeemed> {
      const key = addressKey(caller.address)
      await refuseWhenLockedOut(key)
      const tokenHash = hashToken(input.token)
      // Checked before hashing the password: a wrong token must not cost a tenth of a second of scrypt.
      if (!(await repo.isUsable(db, tokenHash, now()))) return failed(key)
      const passwordHash = await hashNewPassword(input.password)
      try {
        const outcome = await db.transaction().execute(async (tx) => {
          const at = now()
          const link = await repo.lockUsableLink(tx, tokenHash, at)
          // Used by a concurrent redemption since the check above.
          if (!link) return undefined
          const user = await lockUser(tx, link.user_id)
          if (!user || user.deactivated_at || user.account_id !== link.account_id) return undefined
          const actor: Actor = {
            accountId: user.account_id,
            accountKind: await repo.accountKindOf(tx, user.account_id),
            apiKeyId: null,
            apiKeyName: null,
            requestId: caller.requestId,
            channel: 'console',
            user: { id: user.id, email: user.email, roleNames: user.role_names },
          }
          const set = await storePassword(tx, actor, user, passwordHash)
          await repo.markUsed(tx, link.id, at)
          return { user: { id: user.id, email: user.email }, password_set_at: set.password_set_at }
        })
        return outcome ?? (await failed(key))
      } catch (error) {
        throw asConsoleEmailTaken(error)
      }
    },
  }
}

export type PasswordLinksService = ReturnType<typeof createPasswordLinksService>
