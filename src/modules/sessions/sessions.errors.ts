import { DomainError } from '../../lib/domain-error.js'

export type SessionErrorCode =
  | 'sign_in_failed'
  | 'sign_in_rate_limited'
  | 'session_expired'
  | 'csrf_token_invalid'
  | 'admin_role_required'
  | 'password_rules_not_met'
  | 'console_email_taken'
  | 'user_deactivated'

/** One answer for every reason, so sign-in never tells which emails exist or have a password. */
export const signInFailed = () => new DomainError<SessionErrorCode>('sign_in_failed', 'The email or password is not right.')

/** Too many failed sign-ins for this email or from this address; `retryAfterSeconds` goes in Retry-After. */
export class SignInRateLimited extends DomainError<SessionErrorCode> {
  constructor(readonly retryAfterSeconds: number) {
    super('sign_in_rate_limited', `Too many failed sign-ins. Try again in ${retryAfterSeconds} seconds.`)
  }
}

export const signInUnavailable = () =>
  new DomainError('service_unavailable', 'Sign-in is unavailable for a moment: failed attempts cannot be counted. Try again shortly.')

export const sessionExpired = () =>
  new DomainError<SessionErrorCode>(
    'session_expired',
    'Your console session has ended (it expired, you signed out, or your user was deactivated or given a new password). Sign in again.',
  )

export const csrfTokenInvalid = () =>
  new DomainError<SessionErrorCode>(
    'csrf_token_invalid',
    'Changes made with a console session need the X-CSRF-Token header set to the csrf_token of POST /session or GET /session.',
  )

export const adminRoleRequired = (what: string) =>
  new DomainError<SessionErrorCode>('admin_role_required', `Only a user with the admin role can ${what}.`)

export const passwordRulesNotMet = (detail: string) => new DomainError<SessionErrorCode>('password_rules_not_met', detail)

export const consoleEmailTaken = () =>
  new DomainError<SessionErrorCode>(
    'console_email_taken',
    'An active user of another account already has a password with this email. People sign in to the console with ' +
      'their email alone, so an email can sign in to one account only: use another email for this user, or remove ' +
      'the other user (deactivate it) first.',
  )

export const userDeactivated = () =>
  new DomainError<SessionErrorCode>('user_deactivated', 'The user is deactivated and can no longer sign in; no password was set.')
