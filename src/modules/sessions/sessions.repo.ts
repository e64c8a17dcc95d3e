import type { AccountRow, ConsoleSessionRow, Executor, UserRow } from '../../db/schema.js'

/** A user who may sign in, with their account: an active user holding a password with this email. */
export interface SignInCandidate {
  user: UserRow & { password_hash: string }
  account: Pick<AccountRow, 'id' | 'name' | 'kind'>
}

// The users_console_email_key index makes this one row at most, and is what the query reads.
export async function findSignInCandidate(db: Executor, email: string): Promise<SignInCandidate | undefined> {
  const row = await db
    .selectFrom('users')
    .innerJoin('accounts', 'accounts.id', 'users.account_id')
    .selectAll('users')
    .select(['accounts.name as account_name', 'accounts.kind as account_kind'])
    .where('users.email', '=', email)
    .where('users.password_hash', 'is not', null)
    .where('users.deactivated_at', 'is', null)
    .executeTakeFirst()
  if (!row || row.password_hash === null) return undefined
  const { account_name, account_kind, ...user } = row
  return { user: { ...user, password_hash: row.password_hash }, account: { id: user.account_id, name: account_name, kind: account_kind } }
}

export async function insertSession(tx: Executor, row: Omit<ConsoleSessionRow, 'created_at'>): Promise<ConsoleSessionRow> {
  return tx.insertInto('console_sessions').values(row).returningAll().executeTakeFirstOrThrow()
}

/** A session with its user and account, by the hash of the cookie's token: every console request reads this. */
export async function findSessionByTokenHash(db: Executor, tokenHash: Buffer) {
  return db
    .selectFrom('console_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select([
      's.id',
      's.csrf_token',
      's.expires_at',
      's.account_id',
      'u.id as user_id',
      'u.account_id as user_account_id',
      'u.email as user_email',
      'u.role_names as user_role_names',
      'u.created_at as user_created_at',
      'u.deactivated_at as user_deactivated_at',
      'a.name as account_name',
      'a.kind as account_kind',
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst()
}

export async function deleteSession(tx: Executor, id: string): Promise<boolean> {
  const result = await tx.deleteFrom('console_sessions').where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}

export async function deleteExpiredSessionsOfUser(tx: Executor, userId: string, now: Date): Promise<void> {
  await tx.deleteFrom('console_sessions').where('user_id', '=', userId).where('expires_at', '<=', now).execute()
}

export async function deleteSessionsOfUser(tx: Executor, userId: string): Promise<number> {
  const result = await tx.deleteFrom('console_sessions').where('user_id', '=', userId).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** The user, locked: setting a password must not race a deactivation. */
export async function lockUser(tx: Executor, id: string): Promise<UserRow | undefined> {
  return tx.selectFrom('users').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

/** Another active user (of any account) who already signs in with this email. */
export async function findOtherPasswordHolder(tx: Executor, email: string, exceptUserId: string): Promise<{ id: string } | undefined> {
  return tx
    .selectFrom('users')
    .select('id')
    .where('email', '=', email)
    .where('password_hash', 'is not', null)
    .where('deactivated_at', 'is', null)
    .where('id', '<>', exceptUserId)
    .executeTakeFirst()
}

export async function setPasswordHash(tx: Executor, id: string, passwordHash: string, at: Date): Promise<UserRow> {
  return tx
    .updateTable('users')
    .set({ password_hash: passwordHash, password_set_at: at })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}
