import { DomainError } from '../../lib/domain-error.js'

export type CensusErrorCode = 'census_request_not_found' | 'census_invalid'

export const censusRequestNotFound = () =>
  new DomainError<CensusErrorCode>('census_request_not_found', 'No census request has this id in your account.')

/** The census itself cannot be read (neither or both formats, an unreadable 834 file). */
export const censusInputInvalid = (detail: string, pointer: string) =>
  new DomainError<CensusErrorCode>('census_invalid', detail, [{ pointer, detail, code: 'invalid_census' }])
