import { DomainError } from '../../lib/domain-error.js'

export type PasswordLinkErrorCode = 'password_link_invalid' | 'password_link_rate_limited'

/**
 * One answer for an unknown, used, replaced or expired link (or a user deactivated since): the
 * public redemption never tells which, so it reveals nothing about tokens it did not issue.
 */
export const passwordLinkInvalid = () =>
  new DomainError<PasswordLinkErrorCode>(
    'password_link_invalid',
    'This set-password link does not work: it is unknown, already used, replaced by a newer link, or expired. ' +
      'Ask an administrator of your account for a new one.',
  )

/** Too many links that did not work from this address; `retryAfterSeconds` goes in Retry-After. */
export class PasswordLinkRateLimited extends DomainError<PasswordLinkErrorCode> {
  constructor(readonly retryAfterSeconds: number) {
    super('password_link_rate_limited', `Too many set-password links that did not work. Try again in ${retryAfterSeconds} seconds.`)
  }
}

export const passwordLinksUnavailable = () =>
  new DomainError('service_unavailable', 'Set-password links are unavailable for a moment: failed attempts cannot be counted. Try again shortly.')
