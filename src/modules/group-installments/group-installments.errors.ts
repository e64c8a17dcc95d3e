import { DomainError } from '../../lib/domain-error.js'

export type GroupInstallmentErrorCode = 'group_installment_not_found'

export const groupInstallmentNotFound = () =>
  new DomainError<GroupInstallmentErrorCode>('group_installment_not_found', 'No group installment has this id in your account.')
