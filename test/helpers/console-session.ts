import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { expect } from 'vitest'
import type { App } from '../../src/http/app-types.js'
import { call, systemActor, type Credential, type TestApp } from './test-app.js'
import type { RoleNameValue } from '../../src/modules/users/users.schema.js'

// Console tests import the shared assertion from here with the rest of their helpers.
export { expectProblem } from './test-app.js'

export const SESSION_COOKIE = 'enrollsync_session'

let addressCounter = 0
/** A client address of its own, so the failed sign-ins counted per address never meet another test's. */
export const freshAddress = () => `10.77.${Math.floor(++addressCounter / 250)}.${(addressCounter % 250) + 1}`

export interface ConsoleUser {
  id: string
  email: string
  password: string
  accountId: string
}

let userCounter = 0

/** A user of the account with a console password, set the way the command line sets it. */
export async function consoleUser(t: TestApp, account: Pick<Credential, 'accountId'>, roleNames: RoleNameValue[] = [], email?: string): Promise<ConsoleUser> {
  const address = email ?? `console.user.${Date.now().toString(36)}.${++userCounter}@example.com`
  const user = await t.services.users.createUser(systemActor(account.accountId), { email: address, role_names: roleNames }, account.accountId)
  const password = `pass phrase ${user.id.slice(-12)}`
  await t.services.consolePasswords.setPassword(systemActor(account.accountId), user.id, password)
  return { id: user.id, email: user.email, password, accountId: account.accountId }
}

export function signIn(app: App, email: string, password: string, options: { remoteAddress?: string; headers?: Record<string, string> } = {}) {
  return app.inject({
    method: 'POST',
    url: '/session',
    payload: { email, password },
    remoteAddress: options.remoteAddress ?? freshAddress(),
    headers: options.headers ?? {},
  })
}

/** The Set-Cookie header of a response (one cookie is set at most). */
export function setCookieOf(res: LightMyRequestResponse): string | undefined {
  const header = res.headers['set-cookie']
  return Array.isArray(header) ? header[0] : header
}

export interface SignedIn {
  /** The cookie's value (the session token). */
  token: string
  csrf: string
  body: { session: { user: { id: string; email: string; role_names: string[] }; account: { id: string; name: string; kind: string }; csrf_token: string; expires_at: string } }
}

export async function signedIn(app: App, user: Pick<ConsoleUser, 'email' | 'password'>): Promise<SignedIn> {
  const res = await signIn(app, user.email, user.password)
  expect(res.statusCode, res.body).toBe(201)
  const match = new RegExp(`^${SESSION_COOKIE}=([^;]*);`).exec(setCookieOf(res) ?? '')
  expect(match, setCookieOf(res)).not.toBeNull()
  const body = res.json()
  return { token: match![1]!, csrf: body.session.csrf_token, body }
}

/** app.inject as the console does it: the session cookie, and the CSRF token when given. */
export function withSession(
  app: App,
  session: Pick<SignedIn, 'token'> & { csrf?: string | undefined },
  method: InjectOptions['method'],
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const sessionHeaders = { cookie: `theme=dark; ${SESSION_COOKIE}=${session.token}`, ...(session.csrf ? { 'x-csrf-token': session.csrf } : {}) }
  return call(app, null, method, url, body, { ...sessionHeaders, ...headers })
}
