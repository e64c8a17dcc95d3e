import { prepare } from '../../db/prepared.js'
import type { Executor, UserRow } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { selectPage } from '../../db/paging.js'

import type { AccountScope } from '../../lib/actor.js'

export type { AccountScope }

export async function insertUser(tx: Executor, row: Omit<UserRow, 'created_at' | 'deactivated_at' | 'password_hash' | 'password_set_at'>): Promise<UserRow> {
  return tx.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow()
}

// The read behind GET /users/{id}, on the benchmarked hot path: compiled once.
const selectUserInAccount = prepare<UserRow, [id: string, accountId: string]>(2, (db, [id, accountId]) =>
  db.selectFrom('users').selectAll().where('id', '=', id!).where('account_id', '=', accountId!),
)
const selectUserAnyAccount = prepare<UserRow, [id: string]>(1, (db, [id]) => db.selectFrom('users').selectAll().where('id', '=', id!))

export async function findUser(db: Executor, scope: AccountScope, id: string): Promise<UserRow | undefined> {
  const rows = scope ? await selectUserInAccount(db, id, scope) : await selectUserAnyAccount(db, id)
  return rows[0]
}

export async function findUserByEmail(db: Executor, accountId: string, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('account_id', '=', accountId).where('email', '=', email.toLowerCase()).executeTakeFirst()
}

export interface UserFilters {
  email?: string | undefined
  status?: 'active' | 'deactivated' | undefined
}

export async function listUsers(db: Executor, accountId: string, filters: UserFilters, pageReq: PageRequest) {
  let query = db.selectFrom('users').where('account_id', '=', accountId)
  if (filters.email) query = query.where('email', '=', filters.email.toLowerCase())
  if (filters.status === 'active') query = query.where('deactivated_at', 'is', null)
  if (filters.status === 'deactivated') query = query.where('deactivated_at', 'is not', null)
  return selectPage(query, pageReq, (q) => q.selectAll())
}

/** Deactivates once: a second call keeps the first deactivation time. */
export async function deactivateUser(tx: Executor, scope: AccountScope, id: string, at: Date): Promise<UserRow | undefined> {
  let query = tx.updateTable('users').set({ deactivated_at: at }).where('id', '=', id).where('deactivated_at', 'is', null)
  if (scope) query = query.where('account_id', '=', scope)
  return (await query.returningAll().executeTakeFirst()) ?? findUser(tx, scope, id)
}
