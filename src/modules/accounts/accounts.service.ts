import { accountScopeOf, type Actor } from '../../lib/actor.js'
import { generateApiKeySecret } from '../../lib/api-key-secret.js'
import { DomainError } from '../../lib/domain-error.js'
import { uuidv7 } from '../../lib/ids.js'
import type { AccountRow, ApiKeyRow, Db } from '../../db/schema.js'
import { isUniqueViolation } from '../../db/sql-errors.js'
import { afterCommit } from '../../db/request-transaction.js'
import type { PageRequest } from '../../http/pagination.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import { accountNotFound, apiKeyNotFound } from './accounts.errors.js'
import * as repo from './accounts.repo.js'
import type { Account, ApiKey, CreateAccountInput } from './accounts.schema.js'

export function presentAccount(row: AccountRow): Account {
  return { ...row, created_at: row.created_at.toISOString() }
}

export function presentApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
  }
}

export interface AccountsServiceDeps {
  db: Db
  /** Called after a revocation commits, so this instance stops accepting the key at once. */
  onApiKeyRevoked: (apiKeyId: string) => void
}

export function createAccountsService({ db, onApiKeyRevoked }: AccountsServiceDeps) {
  return {
    async createAccount(actor: Actor, input: CreateAccountInput): Promise<Account> {
      try {
        return await db.transaction().execute(async (tx) => {
          const row = await repo.insertAccount(tx, {
            id: uuidv7(),
            name: input.name,
            kind: input.kind,
            external_identifier: input.external_identifier ?? null,
          })
          await recordAuditEvent(tx, actor, { accountId: row.id, action: 'account.created', resourceType: 'account', resourceId: row.id })
          return presentAccount(row)
        })
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new DomainError('duplicate_external_identifier', 'Another account already has this external_identifier.', [
            { pointer: '/account/external_identifier', detail: 'is already used by another account', code: 'duplicate' },
          ])
        }
        throw error
      }
    },

    async getAccount(id: string): Promise<Account> {
      const row = await repo.findAccount(db, id)
      if (!row) throw accountNotFound()
      return presentAccount(row)
    },

    async listAccounts(kind: AccountRow['kind'] | undefined, pageReq: PageRequest) {
      const { items, total } = await repo.listAccounts(db, kind, pageReq)
      return { items: items.map(presentAccount), total }
    },

    /**
     * Creates a key; the secret is in the answer and nowhere else, ever. Operators create keys for
     * any account, an account administrator (console) for their own: another account is not found.
     */
    async createApiKey(actor: Actor, accountId: string, name: string): Promise<ApiKey & { key: string }> {
      return db.transaction().execute(async (tx) => {
        if (!(await repo.findAccount(tx, accountId, accountScopeOf(actor)))) throw accountNotFound()
        const { secret, displayPrefix, hash } = generateApiKeySecret()
        const row = await repo.insertApiKey(tx, { id: uuidv7(), account_id: accountId, name, prefix: displayPrefix, secret_hash: hash })
        await recordAuditEvent(tx, actor, { accountId, action: 'api_key.created', resourceType: 'api_key', resourceId: row.id })
        return { ...presentApiKey(row), key: secret }
      })
    },

    async listApiKeys(actor: Actor, accountId: string): Promise<ApiKey[]> {
      if (!(await repo.findAccount(db, accountId, accountScopeOf(actor)))) throw accountNotFound()
      return (await repo.listApiKeys(db, accountId)).map(presentApiKey)
    },

    /** Revoking twice is not an error: the key stays revoked from the first time. */
    async revokeApiKey(actor: Actor, apiKeyId: string): Promise<ApiKey> {
      const revoked = await db.transaction().execute(async (tx) => {
        const row = await repo.revokeApiKey(tx, accountScopeOf(actor), apiKeyId, new Date())
        if (!row) throw apiKeyNotFound()
        await recordAuditEvent(tx, actor, { accountId: row.account_id, action: 'api_key.revoked', resourceType: 'api_key', resourceId: row.id })
        return row
      })
      // After the commit, even when the request's Idempotency-Key holds it open: forgotten sooner,
      // a request in between could cache the key again while it still reads as active.
      afterCommit(() => onApiKeyRevoked(apiKeyId))
      return presentApiKey(revoked)
    },
  }
}

export type AccountsService = ReturnType<typeof createAccountsService>
