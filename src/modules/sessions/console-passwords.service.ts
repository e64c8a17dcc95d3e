import type { Db, Executor, UserRow } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/sql-errors.js'
import type { Actor } from '../../lib/actor.js'
import { generatePassword, hashPassword, passwordProblem } from '../../lib/passwords.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { userNotFound } from '../users/users.errors.js'
import type { User } from '../users/users.schema.js'
import { presentUser } from '../users/users.service.js'
import { consoleEmailTaken, passwordRulesNotMet, userDeactivated } from './sessions.errors.js'
import * as repo from './sessions.repo.js'

export interface PasswordSet {
  user: User
  password_set_at: string
  /** Sessions of the user that were open and are now ended. */
  sessions_ended: number
}

/** Checks the password rules and hashes it: done before any transaction, as scrypt takes a tenth of a second. */
export async function hashNewPassword(password: string): Promise<string> {
  const problem = passwordProblem(password)
  if (problem) throw passwordRulesNotMet(problem)
  return hashPassword(password)
}

/** Whether the user may be given a password now: active, and their email not signing in to another account. */
export async function checkMayHoldPassword(tx: Executor, user: UserRow): Promise<void> {
  if (user.deactivated_at) throw userDeactivated()
  if (await repo.findOtherPasswordHolder(tx, user.email, user.id)) throw consoleEmailTaken()
}

/**
 * Stores a new password hash for a user locked in `tx` (repo.lockUser), the one way every path
 * (command line, set-password link) sets a password.
 */
export async function storePassword(tx: Executor, actor: Actor, user: UserRow, passwordHash: string): Promise<PasswordSet> {
  await checkMayHoldPassword(tx, user)
  const at = new Date()
  const updated = await repo.setPasswordHash(tx, user.id, passwordHash, at)
  // A new password ends every open session: whoever knew the old one is signed out.
  const ended = await repo.deleteSessionsOfUser(tx, user.id)
  await recordAuditEvent(tx, actor, { accountId: user.account_id, action: 'user.password_set', resourceType: 'user', resourceId: user.id })
  return { user: presentUser(updated), password_set_at: at.toISOString(), sessions_ended: ended }
}

/** Two accounts giving the same email a password at the same moment: the unique index decides. */
export function asConsoleEmailTaken(error: unknown): unknown {
  return isUniqueViolation(error, 'users_console_email_key') ? consoleEmailTaken() : error
}

/**
 * Gives users a console password (the command line's `users set-password` and `reset-password`).
 * Operator tooling: it acts on a user of any account.
 */
export function createConsolePasswordsService({ db }: { db: Db }) {
  async function setPassword(actor: Actor, userId: string, password: string): Promise<PasswordSet> {
    const passwordHash = await hashNewPassword(password)
    try {
      return await db.transaction().execute(async (tx) => {
        const user = await repo.lockUser(tx, userId)
        if (!user) throw userNotFound()
        return storePassword(tx, actor, user, passwordHash)
      })
    } catch (error) {
      throw asConsoleEmailTaken(error)
    }
  }

  return {
    setPassword,

    /** Sets a generated password and answers it: the only time it is ever shown. */
    async resetPassword(actor: Actor, userId: string): Promise<PasswordSet & { password: string }> {
      const password = generatePassword()
      return { ...(await setPassword(actor, userId, password)), password }
    },
  }
}

export type ConsolePasswordsService = ReturnType<typeof createConsolePasswordsService>
