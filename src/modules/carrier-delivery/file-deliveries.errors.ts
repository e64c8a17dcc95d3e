import { DomainError } from '../../lib/domain-error.js'

export type FileDeliveryErrorCode = 'file_delivery_not_found' | 'file_content_not_ready'

export const fileDeliveryNotFound = () =>
  new DomainError<FileDeliveryErrorCode>('file_delivery_not_found', 'No file delivery has this id in your account.')

export const fileContentNotReady = () =>
  new DomainError<FileDeliveryErrorCode>(
    'file_content_not_ready',
    'The file of this delivery has not been written completely yet (byte_size is still null); try again once it has.',
  )
