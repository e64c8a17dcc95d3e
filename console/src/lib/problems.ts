import { ApiError, problemText } from '../api/client'

/*
 * Failures in words, the same everywhere in the console: what was not found (a 404 also means
 * "another account's": the service does not tell them apart), the service's own reason, or that
 * it could not be reached.
 */

/** The words for a network failure: the request never got an answer. */
export const UNREACHABLE = 'The service cannot be reached. Check your connection and try again.'

/** `This error does not exist or is not visible to your account.` */
export function notFoundText(thing: string): string {
  return `${thing} does not exist or is not visible to your account.`
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404
}

/** A failure of `unwrap` (or of fetch itself) in words; a 404 names `thing` when given. */
export function failureText(error: unknown, thing?: string): string {
  if (error instanceof ApiError) return error.status === 404 && thing ? notFoundText(thing) : error.message
  return UNREACHABLE
}

/** A refused answer read without `unwrap` (the status and problem of an openapi-fetch result). */
export function refusalText(status: number, problem: unknown, thing?: string): string {
  return status === 404 && thing ? notFoundText(thing) : problemText(problem)
}

/** A read by id that answered 404 (unknown, or another account's) or 422 (not an id at all): the thing is not there for this user. */
export function isGoneById(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 422)
}
