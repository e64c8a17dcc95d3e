import { DomainError, type FieldProblem } from '../../lib/domain-error.js'

export type WorkOrderErrorCode = 'work_order_not_found' | 'setup_incomplete'

export const workOrderNotFound = () =>
  new DomainError<WorkOrderErrorCode>('work_order_not_found', 'The coverage period has no work order yet: complete its setup first.')

/** Every gap at once; entries carry a `code` and no pointer (the request has no body to point into). */
export const setupIncomplete = (gaps: readonly FieldProblem[]) =>
  new DomainError<WorkOrderErrorCode>(
    'setup_incomplete',
    `The setup cannot be completed: ${gaps.length} thing${gaps.length === 1 ? ' is' : 's are'} missing or invalid.`,
    gaps,
  )
