import type { Executor, PasswordLinkRow, UserRow } from '../../db/schema.js'
import type { AccountScope } from '../../lib/actor.js'

/** The user, locked in the actor's scope: a link is never made for another account's user. */
export async function lockUserInScope(tx: Executor, scope: AccountScope, id: string): Promise<UserRow | undefined> {
  let query = tx.selectFrom('users').selectAll().where('id', '=', id)
  if (scope) query = query.where('account_id', '=', scope)
  return query.forUpdate().executeTakeFirst()
}

/** Older links still waiting to be used stop working: only the newest link handed over counts. */
export async function revokeUnusedLinks(tx: Executor, userId: string, at: Date): Promise<void> {
  await tx
    .updateTable('password_links')
    .set({ revoked_at: at })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .execute()
}

export async function insertLink(tx: Executor, row: Omit<PasswordLinkRow, 'created_at' | 'used_at' | 'revoked_at'> & { created_at: Date }): Promise<PasswordLinkRow> {
  return tx.insertInto('password_links').values(row).returningAll().executeTakeFirstOrThrow()
}

/**
 * The link a token hash names if it still works at `now`: not used, not replaced, not expired,
 * its user active. Locked, so two redemptions of one link run one after the other and the
 * second finds it used.
 */
export async function lockUsableLink(tx: Executor, tokenHash: Buffer, now: Date): Promise<PasswordLinkRow | undefined> {
  return tx
    .selectFrom('password_links')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .forUpdate()
    .executeTakeFirst()
}

/** The same test without a lock, before any password is hashed: an unusable token costs no scrypt. */
export async function isUsable(db: Executor, tokenHash: Buffer, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('password_links as l')
    .innerJoin('users as u', 'u.id', 'l.user_id')
    .select('l.id')
    .where('l.token_hash', '=', tokenHash)
    .where('l.used_at', 'is', null)
    .where('l.revoked_at', 'is', null)
    .where('l.expires_at', '>', now)
    .where('u.deactivated_at', 'is', null)
    .executeTakeFirst()
  return row !== undefined
}

export async function markUsed(tx: Executor, id: string, at: Date): Promise<void> {
  await tx.updateTable('password_links').set({ used_at: at }).where('id', '=', id).execute()
}

export async function accountKindOf(tx: Executor, accountId: string): Promise<'partner' | 'service'> {
  const row = await tx.selectFrom('accounts').select('kind').where('id', '=', accountId).executeTakeFirstOrThrow()
  return row.kind
}
