import type { Db } from '../../db/schema.js'
import type { PageRequest } from '../../http/pagination.js'
import { accountScopeOf, isOperator, type AccountScope, type Actor } from '../../lib/actor.js'
import type { FieldProblem } from '../../lib/domain-error.js'
import { checkIfMatch, type IfMatch } from '../../lib/etag.js'
import { destinationOf } from '../../lib/destination.js'
import { uuidv7 } from '../../lib/ids.js'
import { outboundUrlRefusal, type ResolveHost } from '../../lib/outbound-url.js'
import { recordAuditEvent } from '../audit/audit.repo.js'
import type { EventType } from '../events/events.js'
import { unstorableTextProblems } from '../members/index.js'
import { generateWebhookSecret } from './webhook-signature.js'
import type { WebhookSettings } from './webhook-settings.js'
import { watcherLimitReached, watcherNotFound, watcherValidationFailed } from './watchers.errors.js'
import * as repo from './watchers.repo.js'
import type { Watcher, WatcherInput, WatcherUpdate, WatcherWithSecret } from './watchers.schema.js'

export function presentWatcher(row: repo.WatcherRow): Watcher {
  return {
    id: row.id,
    account_id: row.account_id,
    url: row.url,
    event_types: row.event_types as EventType[],
    coverage_period_id: row.coverage_period_id,
    group_id: row.group_id,
    description: row.description,
    status: row.status,
    disabled_reason: row.disabled_reason,
    previous_secret_expires_at: row.previous_secret_expires_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

export interface WatchersServiceDeps {
  db: Db
  settings: WebhookSettings
  resolveHost: ResolveHost
}

type Fields = Partial<Pick<WatcherInput, 'url' | 'event_types' | 'coverage_period_id' | 'group_id'>>

/** A URL's address check, made ahead of the rest (see `checkUrl`). */
export interface UrlCheck {
  url: string
  problems: FieldProblem[]
}

/**
 * The accounts whose coverage periods and groups a watcher may be narrowed to: any for an
 * operator's own watcher (it receives every account's events), else the watcher's account.
 */
function filterScope(actor: Actor, watcherAccountId: string): AccountScope {
  return isOperator(actor) && watcherAccountId === actor.accountId ? undefined : watcherAccountId
}

export function createWatchersService({ db, settings, resolveHost }: WatchersServiceDeps) {
  const policy = { allowPrivate: settings.allowPrivateUrls, allowLoopback: settings.allowLoopbackUrls, resolve: resolveHost }

  /** The URL's address check: a DNS lookup, which may take seconds for a host that does not answer. */
  async function urlProblems(url: string): Promise<FieldProblem[]> {
    const refusal = await outboundUrlRefusal(url, policy)
    return refusal ? [{ pointer: '/watcher/url', detail: refusal.detail, code: refusal.code }] : []
  }

  /**
   * Every problem of the given fields at once; `stored` fills in the filters a PATCH leaves out;
   * `checkedUrl` is the URL's check when it was made already (see `checkUrl`).
   */
  async function problemsOf(raw: unknown, fields: Fields, scope: AccountScope, stored?: repo.WatcherRow, checkedUrl?: UrlCheck): Promise<FieldProblem[]> {
    const problems = unstorableTextProblems(raw, '/watcher')
    if (fields.url !== undefined) {
      problems.push(...(checkedUrl?.url === fields.url ? checkedUrl.problems : await urlProblems(fields.url)))
    }
    fields.event_types?.forEach((type, index) => {
      if (fields.event_types!.indexOf(type) !== index) problems.push({ pointer: `/watcher/event_types/${index}`, detail: 'is listed twice', code: 'duplicate' })
    })
    // Ids in the body follow the house rule: another account's id is refused like an unknown one (422), never a 404.
    let coveragePeriodGroup: string | undefined
    if (fields.coverage_period_id) {
      const period = await repo.coveragePeriodInScope(db, scope, fields.coverage_period_id)
      if (!period) problems.push({ pointer: '/watcher/coverage_period_id', detail: 'is not a coverage period of your account', code: 'unknown_coverage_period' })
      coveragePeriodGroup = period?.group_id
    } else if (fields.coverage_period_id === undefined && stored?.coverage_period_id) {
      coveragePeriodGroup = (await repo.coveragePeriodInScope(db, undefined, stored.coverage_period_id))?.group_id
    }
    if (fields.group_id && !(await repo.groupInScope(db, scope, fields.group_id))) {
      problems.push({ pointer: '/watcher/group_id', detail: 'is not a group of your account', code: 'unknown_group' })
    }
    const groupId = fields.group_id === undefined ? stored?.group_id : fields.group_id
    if (groupId && coveragePeriodGroup && coveragePeriodGroup !== groupId) {
      // Both filters must hold for an event to be delivered: a mismatch would never deliver anything.
      const pointer = fields.coverage_period_id ? '/watcher/coverage_period_id' : '/watcher/group_id'
      problems.push({ pointer, detail: 'the coverage period is not one of the group in group_id', code: 'not_in_group' })
    }
    return problems
  }

  async function requireWatcher(actor: Actor, id: string): Promise<repo.WatcherRow> {
    const watcher = await repo.findWatcher(db, accountScopeOf(actor), id)
    if (!watcher) throw watcherNotFound()
    return watcher
  }

  return {
    /**
     * The URL's address check on its own, for the route to run before an Idempotency-Key's
     * request transaction opens: a slow DNS answer then holds no database connection (on the
     * embedded database, its only one). Pass the result to `createWatcher`.
     */
    async checkUrl(url: string): Promise<UrlCheck> {
      return { url, problems: await urlProblems(url) }
    },

    async createWatcher(actor: Actor, input: WatcherInput, checkedUrl?: UrlCheck): Promise<WatcherWithSecret> {
      const problems = await problemsOf(input, input, filterScope(actor, actor.accountId), undefined, checkedUrl)
      if (problems.length > 0) throw watcherValidationFailed(problems)
      const secret = generateWebhookSecret()
      const now = new Date()
      const row = await db.transaction().execute(async (tx) => {
        // Each watcher's deliveries take worker time; a cap keeps one account's share bounded.
        if ((await repo.countWatchersLocked(tx, actor.accountId)) >= settings.watchersPerAccountLimit) throw watcherLimitReached(settings.watchersPerAccountLimit)
        const inserted = await repo.insertWatcher(tx, {
          id: uuidv7(),
          account_id: actor.accountId,
          url: input.url,
          event_types: input.event_types,
          coverage_period_id: input.coverage_period_id ?? null,
          group_id: input.group_id ?? null,
          description: input.description ?? null,
          secret,
          previous_secret: null,
          previous_secret_expires_at: null,
          disabled_reason: null,
          created_at: now,
          updated_at: now,
        })
        await recordAuditEvent(tx, actor, { accountId: actor.accountId, action: 'watcher.created', resourceType: 'watcher', resourceId: inserted.id })
        return inserted
      })
      return { ...presentWatcher(row), secret }
    },

    async listWatchers(actor: Actor, filters: { status?: 'active' | 'disabled' | undefined }, pageReq: PageRequest) {
      const { items, total } = await repo.listWatchers(db, accountScopeOf(actor), filters, pageReq)
      return { items: items.map(presentWatcher), total }
    },

    async getWatcher(actor: Actor, id: string): Promise<Watcher> {
      return presentWatcher(await requireWatcher(actor, id))
    },

    /**
     * Fields left out are kept; `null` clears a filter or the description. With `ifMatch`, only
     * while the watcher is still the version the client read (checked under the lock).
     */
    async updateWatcher(actor: Actor, id: string, update: WatcherUpdate, ifMatch?: IfMatch): Promise<Watcher> {
      const current = await requireWatcher(actor, id)
      const problems = await problemsOf(update, update, filterScope(actor, current.account_id), current)
      if (problems.length > 0) throw watcherValidationFailed(problems)
      const row = await db.transaction().execute(async (tx) => {
        const locked = await repo.findWatcherForUpdate(tx, accountScopeOf(actor), id)
        if (!locked) throw watcherNotFound()
        checkIfMatch(ifMatch, presentWatcher(locked))
        const statusChange =
          update.status === undefined || update.status === locked.status
            ? {}
            : { status: update.status, disabled_reason: update.status === 'disabled' ? 'disabled through the API' : null }
        const updated = await repo.updateWatcher(tx, id, {
          ...(update.url === undefined ? {} : { url: update.url }),
          ...(update.event_types === undefined ? {} : { event_types: update.event_types }),
          ...(update.coverage_period_id === undefined ? {} : { coverage_period_id: update.coverage_period_id }),
          ...(update.group_id === undefined ? {} : { group_id: update.group_id }),
          ...(update.description === undefined ? {} : { description: update.description }),
          ...statusChange,
          updated_at: new Date(),
        })
        // Queued deliveries follow the URL; those of a disabled watcher fail unsent when claimed, so
        // they are freed from their receiver's caps and back-off to do so at once. Enabled again
        // before they are claimed (a retry waits up to hours), they are sent: held to them again.
        const urlChanged = update.url !== undefined && update.url !== locked.url
        if (updated.status === 'disabled') {
          if (urlChanged || statusChange.status === 'disabled') await repo.retargetQueuedDeliveries(tx, id, null)
        } else if (urlChanged || locked.status !== 'active') {
          await repo.retargetQueuedDeliveries(tx, id, destinationOf(updated.url))
        }
        await recordAuditEvent(tx, actor, { accountId: locked.account_id, action: 'watcher.updated', resourceType: 'watcher', resourceId: id })
        return updated
      })
      return presentWatcher(row)
    },

    /**
     * Kept as deleted so its deliveries stay explainable; it answers 404 and receives nothing from
     * now on. With `ifMatch`, only while the watcher is still the version the client read: a
     * client deleting what it read must not delete what someone has changed since.
     */
    async deleteWatcher(actor: Actor, id: string, ifMatch?: IfMatch): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const locked = await repo.findWatcherForUpdate(tx, accountScopeOf(actor), id)
        if (!locked) throw watcherNotFound()
        checkIfMatch(ifMatch, presentWatcher(locked))
        const now = new Date()
        await repo.updateWatcher(tx, id, { deleted_at: now, updated_at: now })
        // Its queued deliveries fail unsent when claimed: not held back by their receiver's back-off.
        await repo.retargetQueuedDeliveries(tx, id, null)
        await recordAuditEvent(tx, actor, { accountId: locked.account_id, action: 'watcher.deleted', resourceType: 'watcher', resourceId: id })
      })
    },

    /**
     * A new secret, shown once. The replaced one keeps signing beside it for the configured
     * overlap, so receivers can switch without missing a delivery; a second rotation within the
     * overlap drops the oldest secret.
     */
    async rotateSecret(actor: Actor, id: string): Promise<WatcherWithSecret> {
      const secret = generateWebhookSecret()
      const row = await db.transaction().execute(async (tx) => {
        const locked = await repo.findWatcherForUpdate(tx, accountScopeOf(actor), id)
        if (!locked) throw watcherNotFound()
        const now = new Date()
        const overlapMs = settings.secretOverlapSeconds * 1000
        const updated = await repo.updateWatcher(tx, id, {
          secret,
          previous_secret: overlapMs > 0 ? locked.secret : null,
          previous_secret_expires_at: overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null,
          updated_at: now,
        })
        await recordAuditEvent(tx, actor, { accountId: locked.account_id, action: 'watcher.secret_rotated', resourceType: 'watcher', resourceId: id })
        return updated
      })
      return { ...presentWatcher(row), secret }
    },
  }
}

export type WatchersService = ReturnType<typeof createWatchersService>
