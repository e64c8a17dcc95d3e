/** The authenticated party a request acts for: who is passed to every service call. */
export interface Principal {
  accountId: string
  accountKind: 'partner' | 'service'
  apiKeyId: string
  apiKeyName: string
}

/** The person signed in to the console, when a call comes from it. */
export interface ActorUser {
  id: string
  email: string
  roleNames: readonly string[]
}

/**
 * What services receive: the principal plus where the call came from, for the audit trail.
 * The command line acts with `channel: 'cli'` and no key; the console with `channel: 'console'`,
 * no key and the signed-in `user`.
 */
export interface Actor {
  accountId: string
  accountKind: 'partner' | 'service'
  apiKeyId: string | null
  apiKeyName: string | null
  requestId: string | null
  channel: 'api' | 'cli' | 'system' | 'console'
  /** The signed-in console user (channel `console`); absent for keys, tokens, the CLI and jobs. */
  user?: ActorUser
}

/** The role a console user needs to manage users and API keys of their account. */
export const ADMIN_ROLE = 'admin'

export function isOperator(actor: Actor): boolean {
  return actor.accountKind === 'service'
}

export function isAccountAdmin(user: ActorUser): boolean {
  return user.roleNames.includes(ADMIN_ROLE)
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

/**
 * Who a history entry or resolution names when no user is given: the signed-in user's email, else
 * the API key's name, else the channel (cli, system).
 */
export const actorName = (actor: Actor): string => actor.user?.email ?? actor.apiKeyName ?? actor.channel
