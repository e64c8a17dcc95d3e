import { DomainError } from '../../lib/domain-error.js'

export type AccountErrorCode = 'account_not_found' | 'api_key_not_found'

export const accountNotFound = () => new DomainError<AccountErrorCode>('account_not_found', 'No account has this id.')
export const apiKeyNotFound = () => new DomainError<AccountErrorCode>('api_key_not_found', 'No API key has this id.')
