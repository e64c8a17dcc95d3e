import type { AccountScope, Principal } from '../../lib/actor.js'
import type { AccountRow, ApiKeyRow, Executor } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { selectPage } from '../../db/paging.js'

export async function insertAccount(tx: Executor, row: Omit<AccountRow, 'created_at'>): Promise<AccountRow> {
  return tx.insertInto('accounts').values(row).returningAll().executeTakeFirstOrThrow()
}

/** The account, if the scope reaches it (an account administrator reaches only their own). */
export async function findAccount(db: Executor, id: string, scope: AccountScope = undefined): Promise<AccountRow | undefined> {
  let query = db.selectFrom('accounts').selectAll().where('id', '=', id)
  if (scope) query = query.where('id', '=', scope)
  return query.executeTakeFirst()
}

export async function listAccounts(db: Executor, kind: AccountRow['kind'] | undefined, pageReq: PageRequest) {
  let query = db.selectFrom('accounts')
  if (kind) query = query.where('kind', '=', kind)
  return selectPage(query, pageReq, (q) => q.selectAll())
}

export async function countAccounts(db: Executor): Promise<number> {
  const row = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow()
  return row.total
}

export async function insertApiKey(tx: Executor, row: Omit<ApiKeyRow, 'created_at' | 'revoked_at'>): Promise<ApiKeyRow> {
  return tx.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function listApiKeys(db: Executor, accountId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute()
}

/** Marks the key revoked; answers the key (revoked earlier or now) or undefined if unknown. */
export async function revokeApiKey(tx: Executor, scope: AccountScope, id: string, at: Date): Promise<ApiKeyRow | undefined> {
  let update = tx.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null)
  if (scope) update = update.where('account_id', '=', scope)
  const updated = await update.returningAll().executeTakeFirst()
  if (updated) return updated
  let select = tx.selectFrom('api_keys').selectAll().where('id', '=', id)
  if (scope) select = select.where('account_id', '=', scope)
  return select.executeTakeFirst()
}

export type KeyLookup = { secretHash: Buffer } | { id: string }

/** The hot path of authentication: one indexed lookup, joined with the account's kind. */
export async function findActiveKeyPrincipal(db: Executor, lookup: KeyLookup): Promise<Principal | null> {
  let query = db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select(['api_keys.id as apiKeyId', 'api_keys.name as apiKeyName', 'accounts.id as accountId', 'accounts.kind as accountKind'])
    .where('api_keys.revoked_at', 'is', null)
  query = 'id' in lookup ? query.where('api_keys.id', '=', lookup.id) : query.where('api_keys.secret_hash', '=', lookup.secretHash)
  return (await query.executeTakeFirst()) ?? null
}
