import { DomainError } from '../../lib/domain-error.js'

export type UserErrorCode = 'user_not_found' | 'email_already_registered'

export const userNotFound = () => new DomainError<UserErrorCode>('user_not_found', 'No user has this id in your account.')
export const emailAlreadyRegistered = () =>
  new DomainError<UserErrorCode>('email_already_registered', 'A user with this email is already registered in the account.', [
    { pointer: '/user/email', detail: 'is already registered', code: 'duplicate' },
  ])
