import { DomainError } from '../../lib/domain-error.js'

export type FileDeliveryErrorCode = 'file_delivery_not_found' | 'file_content_not_ready' | 'file_delivery_not_rejected' | 'file_delivery_already_resent' | 'file_delivery_carrier_unreachable' | 'file_delivery_on_its_way'

export const fileDeliveryNotFound = () =>
  new DomainError<FileDeliveryErrorCode>('file_delivery_not_found', 'No file delivery has this id in your account.')

export const fileContentNotReady = () =>
  new DomainError<FileDeliveryErrorCode>(
    'file_content_not_ready',
    'The file of this delivery has not been written completely yet (byte_size is still null); try again once it has.',
  )

export const fileDeliveryNotRejected = (acknowledgementStatus: string | null) =>
  new DomainError<FileDeliveryErrorCode>(
    'file_delivery_not_rejected',
    acknowledgementStatus === 'rejected'
      ? "The carrier's rejection of this delivery is still being applied to what the service holds of the carrier (the delivery is settling); try again in a few seconds."
      : acknowledgementStatus === null
      ? 'Only a file the carrier rejected is sent again, and this delivery has no acknowledgement status (an API submission, or a file not sent).'
      : `Only a file the carrier rejected is sent again; this delivery's acknowledgement_status is ${acknowledgementStatus}.`,
  )

export const fileDeliveryAlreadyResent = (resentAt: Date) =>
  new DomainError<FileDeliveryErrorCode>(
    'file_delivery_already_resent',
    `This delivery's changes were already sent again (resent_at ${resentAt.toISOString()}); the files that carried them are in the coverage period's file deliveries.`,
  )

export const fileDeliveryCarrierUnreachable = (carrierName: string) =>
  new DomainError<FileDeliveryErrorCode>(
    'file_delivery_carrier_unreachable',
    `Carrier ${carrierName} is no longer configured, or takes its changes by hand (distribution_format manual): nothing can be sent to it.`,
  )

export const fileDeliveryOnItsWay = () =>
  new DomainError<FileDeliveryErrorCode>(
    'file_delivery_on_its_way',
    "A file of this coverage period is being built or sent: a full file sent again now could cross it. Try again once the coverage period's latest file delivery is sent.",
  )
