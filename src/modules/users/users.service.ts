import { accountScopeOf, isAccountAdmin, isOperator, type Actor } from '../../lib/actor.js'
import { uuidv7 } from '../../lib/ids.js'
import type { Db, UserRow } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/sql-errors.js'
import type { PageRequest } from '../../http/pagination.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { adminRoleRequired } from '../sessions/sessions.errors.js'
import { emailAlreadyRegistered, userNotFound } from './users.errors.js'
import * as repo from './users.repo.js'
import type { CreateUserInput, User } from './users.schema.js'

export function presentUser(row: UserRow): User {
  const user: User = { id: row.id, email: row.email, created_at: row.created_at.toISOString(), role_names: row.role_names }
  if (row.deactivated_at) user.deactivated_at = row.deactivated_at.toISOString()
  return user
}

/**
 * In the console, only administrators manage users. API keys and the command line keep their
 * powers: a key is the account's own integration, configured by whoever holds it.
 */
export function requireAdminInConsole(actor: Actor, what: string): void {
  if (actor.user && !isAccountAdmin(actor.user)) throw adminRoleRequired(what)
}

export function createUsersService({ db }: { db: Db }) {
  return {
    /** Registers a user in `accountId` (the actor's own account unless an operator says otherwise). */
    async createUser(actor: Actor, input: CreateUserInput, accountId = actor.accountId): Promise<User> {
      requireAdminInConsole(actor, 'register users')
      try {
        return await db.transaction().execute(async (tx) => {
          const row = await repo.insertUser(tx, {
            id: uuidv7(),
            account_id: accountId,
            email: input.email.trim().toLowerCase(),
            role_names: input.role_names,
          })
          await recordAuditEvent(tx, actor, { accountId, action: 'user.created', resourceType: 'user', resourceId: row.id })
          return presentUser(row)
        })
      } catch (error) {
        if (isUniqueViolation(error)) throw emailAlreadyRegistered()
        throw error
      }
    },

    async getUser(actor: Actor, id: string): Promise<User> {
      const row = await repo.findUser(db, accountScopeOf(actor), id)
      if (!row) throw userNotFound()
      return presentUser(row)
    },

    async listUsers(actor: Actor, filters: repo.UserFilters & { accountId?: string | undefined }, pageReq: PageRequest) {
      const requested = filters.accountId ?? actor.accountId
      // A partner naming another account sees an empty list rather than learning it exists.
      if (!isOperator(actor) && requested !== actor.accountId) return { items: [], total: 0 }
      const { items, total } = await repo.listUsers(db, requested, filters, pageReq)
      return { items: items.map(presentUser), total }
    },

    async deactivateUser(actor: Actor, id: string): Promise<User> {
      requireAdminInConsole(actor, 'deactivate users')
      return db.transaction().execute(async (tx) => {
        const now = new Date()
        const row = await repo.deactivateUser(tx, accountScopeOf(actor), id, now)
        if (!row) throw userNotFound()
        const changedNow = row.deactivated_at?.getTime() === now.getTime()
        if (changedNow) await recordAuditEvent(tx, actor, { accountId: row.account_id, action: 'user.deactivated', resourceType: 'user', resourceId: row.id })
        return presentUser(row)
      })
    },

    /** An active user of the account with this email: who comments and resolutions may name. */
    async findActiveUserByEmail(accountId: string, email: string): Promise<User | undefined> {
      const row = await repo.findUserByEmail(db, accountId, email)
      return row && !row.deactivated_at ? presentUser(row) : undefined
    },
  }
}

export type UsersService = ReturnType<typeof createUsersService>
