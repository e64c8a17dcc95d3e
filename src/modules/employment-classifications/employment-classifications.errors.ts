import { DomainError } from '../../lib/domain-error.js'

export type EmploymentClassificationErrorCode = 'employment_classification_not_found'

export const employmentClassificationNotFound = () =>
  new DomainError<EmploymentClassificationErrorCode>('employment_classification_not_found', 'No employment classification has this id in your account.')
export const duplicateEmploymentClassification = () =>
  new DomainError('duplicate_external_identifier', 'Another employment classification of the group has this external_identifier.', [
    {
      pointer: '/employment_classification/external_identifier',
      detail: 'is already used by another employment classification of the group',
      code: 'duplicate',
    },
  ])
