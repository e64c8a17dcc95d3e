import createClient, { type Middleware } from 'openapi-fetch'
import type { components, paths } from './schema'

/**
 * The console talks to the service only through this client, typed from the committed
 * openapi.json (`npm run openapi` regenerates schema.d.ts): a call the published contract does
 * not allow does not compile.
 */
// JSON answers only: the error lists also answer text/csv, which the console downloads with its own fetch.
export const api = createClient<paths, 'application/json'>({ baseUrl: '', credentials: 'same-origin' })

let csrfToken: string | null = null

/** The session's CSRF token, sent on every change (the service refuses changes without it). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Why the shell shows sign-in again, in words for the sign-in page. */
export const SESSION_ENDED = 'Your session has ended. Sign in again to go on.'
export const SESSION_CHANGED = 'Your session changed in another tab. Sign in again to go on.'

/** Listeners told when the service says the session is over (with the reason), so the shell shows sign-in. */
const sessionEndedListeners = new Set<(reason: string) => void>()
export function onSessionEnded(listener: (reason: string) => void): () => void {
  sessionEndedListeners.add(listener)
  return () => sessionEndedListeners.delete(listener)
}
function sessionEnded(reason: string): void {
  for (const listener of sessionEndedListeners) listener(reason)
}

/** The problem code of a failure, or undefined when the body is not a problem document. */
async function problemCodeOf(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.clone().json()
    return body && typeof body === 'object' && 'code' in body && typeof body.code === 'string' ? body.code : undefined
  } catch {
    return undefined
  }
}

const sessionMiddleware: Middleware = {
  onRequest({ request }) {
    if (csrfToken && !SAFE_METHODS.has(request.method)) request.headers.set('X-CSRF-Token', csrfToken)
    return request
  },
  async onResponse({ request, response }) {
    const sessionCall = new URL(request.url).pathname.endsWith('/session')
    // A 401 on anything but the session calls themselves (asking who is signed in, signing in or
    // out: the shell handles those) means the session expired or was ended elsewhere.
    if (response.status === 401 && !sessionCall) sessionEnded(SESSION_ENDED)
    // The CSRF token this tab holds no longer matches the session cookie: someone signed in again
    // in another tab, so this tab's session is not the browser's any more.
    else if (response.status === 403 && !(sessionCall && request.method === 'POST') && (await problemCodeOf(response)) === 'csrf_token_invalid') sessionEnded(SESSION_CHANGED)
    return response
  },
}
api.use(sessionMiddleware)

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch'

/**
 * The JSON body of a successful answer (200 or 201) of `M path`, as the published contract
 * describes it: `JsonOf<'/errors/{id}', 'get'>['error']`.
 */
export type JsonOf<P extends keyof paths, M extends Method & keyof paths[P] = 'get' & keyof paths[P]> = paths[P][M] extends {
  responses: infer R
}
  ? R extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : R extends { 201: { content: { 'application/json': infer B } } }
      ? B
      : never
  : never

/** A named schema of the published contract (`#/components/schemas/<Name>`): `Schema<'Group'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name]

/** The problem+json body every failure of the service carries (api-contract.md section 1). */
export interface Problem {
  type?: string
  title?: string
  status?: number
  detail?: string
  code?: string
  errors?: { pointer?: string; detail?: string }[]
}

/** An API failure in words a person can act on: the service's own detail, then each field problem. */
export function problemText(problem: unknown, fallback = 'The service could not do this.'): string {
  if (!problem || typeof problem !== 'object') return fallback
  const p = problem as Problem
  const head = p.detail ?? p.title ?? fallback
  const fields = (p.errors ?? []).map((e) => (e.pointer ? `${e.pointer.replace(/^\//, '').replace(/\//g, ' › ')}: ${e.detail ?? ''}` : (e.detail ?? '')))
  return [head, ...fields.filter(Boolean)].join(' ')
}

/** Thrown by `unwrap` so pages can show what went wrong. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: unknown,
  ) {
    super(problemText(problem))
  }
}

/** The data of an openapi-fetch answer, or an ApiError in words. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    if (result.response.ok && result.data === undefined && result.error === undefined) return undefined as T
    throw new ApiError(result.response.status, result.error)
  }
  return result.data
}

/** Pagination headers of a list answer (api-contract.md section 1: Total, Per-Page, Page). */
export function totalOf(response: Response): number {
  return Number(response.headers.get('Total') ?? '0')
}
