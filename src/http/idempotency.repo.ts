import { sql } from 'kysely'
import type { Executor } from '../db/schema.js'

export const IDEMPOTENCY_TTL_HOURS = 24
/**
 * Seed of the advisory lock's hash, so that (account, key) locks do not share numbers with the
 * other advisory locks of the database (the migrator's) by more than chance.
 */
const LOCK_NAMESPACE = 834_15

export interface StoredAnswer {
  fingerprint: string
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * Takes (account, key) for the transaction `tx`, without waiting: false when another request
 * with the key holds it (its transaction is still open). Released when `tx` ends, however it
 * ends, so a request that dies leaves no lock behind.
 */
export async function tryLockIdempotencyKey(tx: Executor, accountId: string, key: string): Promise<boolean> {
  const result = await sql<{ locked: boolean }>`
    select pg_try_advisory_xact_lock(hashtextextended(${accountId}::text || ' ' || ${key}::text, ${LOCK_NAMESPACE})) as locked`.execute(tx)
  return result.rows[0]?.locked === true
}

/**
 * The answer stored for (account, key) within its 24 hours. Rows left `in_flight` by the
 * version before answers were stored with the change are not answers: ignored, and replaced
 * when the request runs.
 */
export async function findStoredAnswer(db: Executor, accountId: string, key: string): Promise<StoredAnswer | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_fingerprint', 'response_status', 'response_headers', 'response_body'])
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .where('state', '=', 'completed')
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst()
  if (!row) return undefined
  return {
    fingerprint: row.request_fingerprint,
    status: row.response_status ?? 200,
    headers: row.response_headers ?? {},
    body: row.response_body ?? '',
  }
}

/**
 * Stores the answer in `tx`, the transaction that made the change, so both commit together. A
 * row still there for the key is expired or left over (findStoredAnswer found no answer in it).
 */
export async function storeAnswer(
  tx: Executor,
  accountId: string,
  key: string,
  answer: StoredAnswer,
): Promise<void> {
  const columns = {
    request_fingerprint: answer.fingerprint,
    state: 'completed' as const,
    response_status: answer.status,
    response_headers: JSON.stringify(answer.headers),
    response_body: answer.body,
    locked_at: sql<Date>`now()`,
    created_at: sql<Date>`now()`,
    expires_at: sql<Date>`now() + make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`,
  }
  await tx
    .insertInto('idempotency_keys')
    .values({ account_id: accountId, key, ...columns })
    .onConflict((oc) => oc.columns(['account_id', 'key']).doUpdateSet(columns))
    .execute()
}

export async function purgeExpiredIdempotencyKeys(db: Executor): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', new Date()).executeTakeFirst()
  return Number(result.numDeletedRows)
}
