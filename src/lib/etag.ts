import { hash } from 'node:crypto'
import { canonicalJson } from './canonical-json.js'
import { DomainError } from './domain-error.js'

/**
 * A strong entity tag for a resource: the hash of its representation as canonical JSON, so the
 * tag changes exactly when what a client reads changes (a rotated watcher secret, which no answer
 * shows, leaves it alone) and two equal states share one tag however they were serialised. The
 * same object gives the tag on GET, in the PUT/PATCH answer and in the If-Match check, which is
 * what makes them comparable; 128 bits of SHA-256 keep it short.
 */
export function entityTag(representation: unknown): string {
  return entityTagOfText(canonicalJson(representation))
}

/**
 * The tag of a representation that already exists as deterministic JSON text (the subscriber
 * document PostgreSQL builds): hashing the text skips parsing it on a hot read.
 */
export function entityTagOfText(text: string): string {
  // The one-shot hash (Node >= 20.12; engines asks 20.19): no Hash object per call on the hot read.
  return `"${hash('sha256', text, 'base64url').slice(0, 22)}"`
}

/** An If-Match condition: `*` (any current representation) or the tags the client holds. */
export type IfMatch = '*' | readonly string[]

export function preconditionFailed(): DomainError<'precondition_failed'> {
  return new DomainError(
    'precondition_failed',
    'If-Match does not name the current version of this resource: it changed since you read it. Nothing was changed; read it again and reapply your change.',
  )
}

/**
 * Throws precondition_failed unless the condition holds for the current representation (RFC 9110
 * section 13.1.1: strong comparison, so a weak tag `W/"..."` never matches). Call it inside the
 * write's transaction with the row locked, so no other write can slip in between check and change.
 */
export function checkIfMatch(condition: IfMatch | undefined, current: unknown): void {
  if (condition === undefined || condition === '*') return
  checkIfMatchTag(condition, entityTag(current))
}

/** checkIfMatch, for a current tag already computed (entityTagOfText). */
export function checkIfMatchTag(condition: IfMatch | undefined, currentTag: string): void {
  if (condition === undefined || condition === '*') return
  if (!condition.includes(currentTag)) throw preconditionFailed()
}
