import { sql } from 'kysely'
import type { Executor } from '../db/schema.js'

export const IDEMPOTENCY_TTL_HOURS = 24
/** An in-flight claim older than this is taken to be abandoned (its process died mid-request). */
const ABANDONED_AFTER_SECONDS = 120

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; headers: Record<string, string>; body: string }
  | { kind: 'in_flight' }
  | { kind: 'mismatch' }

/**
 * Claims (account, key) for this request in one statement: a new key, an expired one or an
 * abandoned claim of the same request is (re)taken; otherwise the stored row decides. Two
 * concurrent requests with one key cannot both claim it: the primary key serialises them.
 */
export async function claimIdempotencyKey(db: Executor, accountId: string, key: string, fingerprint: string): Promise<Claim> {
  const claimed = await sql<{ key: string }>`
    insert into idempotency_keys (account_id, key, request_fingerprint, state, locked_at, created_at, expires_at)
    values (${accountId}, ${key}, ${fingerprint}, 'in_flight', now(), now(), now() + make_interval(hours => ${IDEMPOTENCY_TTL_HOURS}))
    on conflict (account_id, key) do update set
      request_fingerprint = excluded.request_fingerprint, state = 'in_flight',
      response_status = null, response_headers = null, response_body = null,
      locked_at = now(), created_at = now(), expires_at = excluded.expires_at
    where idempotency_keys.expires_at <= now()
       or (idempotency_keys.state = 'in_flight'
           and idempotency_keys.request_fingerprint = excluded.request_fingerprint
           and idempotency_keys.locked_at < now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS}))
    returning key`.execute(db)
  if (claimed.rows.length > 0) return { kind: 'claimed' }

  const existing = await db
    .selectFrom('idempotency_keys')
    .select(['request_fingerprint', 'state', 'response_status', 'response_headers', 'response_body'])
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .executeTakeFirst()
  // Deleted between the two statements (its request failed with a 5xx): the client may retry.
  if (!existing) return claimIdempotencyKey(db, accountId, key, fingerprint)
  if (existing.request_fingerprint !== fingerprint) return { kind: 'mismatch' }
  if (existing.state === 'in_flight') return { kind: 'in_flight' }
  return {
    kind: 'replay',
    status: existing.response_status ?? 200,
    headers: existing.response_headers ?? {},
    body: existing.response_body ?? '',
  }
}

export async function completeIdempotencyKey(
  db: Executor,
  accountId: string,
  key: string,
  response: { status: number; headers: Record<string, string>; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      state: 'completed',
      response_status: response.status,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
    })
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .execute()
}

/** A request that failed unexpectedly releases its key so the client can retry it. */
export async function releaseIdempotencyKey(db: Executor, accountId: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('key', '=', key).execute()
}

export async function purgeExpiredIdempotencyKeys(db: Executor): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', new Date()).executeTakeFirst()
  return Number(result.numDeletedRows)
}
