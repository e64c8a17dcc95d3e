import type { Principal } from '../../lib/actor.js'
import { hashApiKeySecret } from '../../lib/api-key-secret.js'
import type { Db } from '../../db/schema.js'
import { findActiveKeyPrincipal, type KeyLookup } from '../accounts/accounts.repo.js'

interface Entry {
  principal: Principal | null
  expiresAt: number
}

// Bounded so a flood of random keys cannot grow memory without limit.
const MAX_ENTRIES = 10_000

/**
 * Resolves API keys (by secret or by id, for tokens) to principals with a short cache, so the hot
 * path does not pay a database round trip per request. Revocation clears the entry on the
 * instance that revoked at once; other instances see it when their entry expires
 * (API_KEY_CACHE_SECONDS, default 5).
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>()

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Cached under the key as presented, so a hit costs a map lookup, not a hash. The key is in
   * this process's memory for the request anyway; only the database never sees it in clear.
   */
  bySecret(secret: string): Promise<Principal | null> {
    const cached = this.cachedBySecret(secret)
    if (cached !== undefined) return Promise.resolve(cached)
    return this.resolve(`s:${secret}`, { secretHash: hashApiKeySecret(secret) })
  }

  byKeyId(apiKeyId: string): Promise<Principal | null> {
    return this.resolve(`i:${apiKeyId}`, { id: apiKeyId })
  }

  /**
   * The cache's answer without waiting: the principal, null for a key known to be invalid, or
   * undefined when only bySecret can tell. The guard asks this first, so a request whose
   * credentials are cached costs no promise and no turn of the microtask queue for them.
   */
  cachedBySecret(secret: string): Principal | null | undefined {
    return this.fresh(`s:${secret}`)
  }

  /** As cachedBySecret, for the key a bearer token names. */
  cachedByKeyId(apiKeyId: string): Principal | null | undefined {
    return this.fresh(`i:${apiKeyId}`)
  }

  /** Forget a key at once (after revocation), whichever way it was looked up. */
  forget(apiKeyId: string): void {
    for (const [cacheKey, entry] of this.entries) {
      if (cacheKey === `i:${apiKeyId}` || entry.principal?.apiKeyId === apiKeyId) this.entries.delete(cacheKey)
    }
  }

  private fresh(cacheKey: string): Principal | null | undefined {
    const cached = this.entries.get(cacheKey)
    return cached && cached.expiresAt > this.now() ? cached.principal : undefined
  }

  private async resolve(cacheKey: string, lookup: KeyLookup): Promise<Principal | null> {
    const cached = this.fresh(cacheKey)
    if (cached !== undefined) return cached
    const principal = await findActiveKeyPrincipal(this.db, lookup)
    const now = this.now()
    if (this.ttlMs > 0) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear()
      this.entries.set(cacheKey, { principal, expiresAt: now + this.ttlMs })
    }
    return principal
  }
}
