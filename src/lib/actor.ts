/** The authenticated party a request acts for: who is passed to every service call. */
export interface Principal {
  accountId: string
  accountKind: 'partner' | 'service'
  apiKeyId: string
  apiKeyName: string
}

/**
 * What services receive: the principal plus where the call came from, for the audit trail.
 * The command line acts with `channel: 'cli'` and no key.
 */
export interface Actor {
  accountId: string
  accountKind: 'partner' | 'service'
  apiKeyId: string | null
  apiKeyName: string | null
  requestId: string | null
  channel: 'api' | 'cli' | 'system'
}

export function isOperator(actor: Actor): boolean {
  return actor.accountKind === 'service'
}

/**
 * Which account's rows a query may touch: the actor's own, or `undefined` for an operator, who
 * sees every account. Repos apply it in the query itself (`where account_id = $scope`).
 */
export type AccountScope = string | undefined

export function accountScopeOf(actor: Actor): AccountScope {
  return isOperator(actor) ? undefined : actor.accountId
}

/** The service itself acting (a job, a sandbox carrier, disabling a watcher): no key, no request. */
export function systemActor(accountId: string): Actor {
  return { accountId, accountKind: 'service', apiKeyId: null, apiKeyName: null, requestId: null, channel: 'system' }
}

/** Who a history entry or resolution names when no user does: the API key's name, or the channel (cli, system). */
export const actorName = (actor: Actor): string => actor.apiKeyName ?? actor.channel
