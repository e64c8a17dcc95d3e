import { Type, type Static } from 'typebox'
import { IsoDate, Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'
import { dateField, ExternalIdentifier } from '../coverage-periods/coverage-periods.schema.js'

const ClassificationType = Type.Enum(['class', 'subgroup', 'department', 'division', 'region'], {
  description: 'How the classification segments the group (plan offerings or billing)',
})

export const EmploymentClassificationSchema = Type.Object(
  {
    id: Uuid,
    group_id: Uuid,
    external_identifier: Type.String(),
    description: Type.String(),
    type: ClassificationType,
    start_date: IsoDate,
    end_date: Nullable(IsoDate),
    carrier_identifier: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
)
export type EmploymentClassification = Static<typeof EmploymentClassificationSchema>

const createExample = {
  employment_classification: {
    external_identifier: 'hourly-staff',
    description: 'Hourly employees',
    type: 'class',
    start_date: '2027-01-01',
    end_date: null,
    carrier_identifier: 'CLS-2',
  },
}

export const CreateEmploymentClassificationBody = Type.Object(
  {
    employment_classification: Type.Object(
      {
        external_identifier: ExternalIdentifier,
        description: Type.String({ minLength: 1, maxLength: 500 }),
        type: ClassificationType,
        start_date: IsoDate,
        end_date: Type.Optional(Nullable(dateField('On or after start_date'))),
        carrier_identifier: Type.Optional(Nullable(Type.String({ maxLength: 100, description: "The carrier's identifier of the classification" }))),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, examples: [createExample] },
)
export type CreateEmploymentClassificationInput = Static<typeof CreateEmploymentClassificationBody>['employment_classification']

const classificationExample = {
  id: '0193a4b2-0000-7000-8000-000000000030',
  group_id: '0193a4b2-0000-7000-8000-000000000004',
  ...createExample.employment_classification,
  created_at: '2026-11-22T09:30:00.000Z',
  updated_at: '2026-11-22T09:30:00.000Z',
}

export const EmploymentClassificationResponse = Type.Object(
  { employment_classification: EmploymentClassificationSchema },
  { description: 'The employment classification', examples: [{ employment_classification: classificationExample }] },
)
export const EmploymentClassificationList = Type.Object(
  { employment_classifications: Type.Array(EmploymentClassificationSchema) },
  {
    description: 'One page of employment classifications, oldest first; see the Total and Link headers',
    examples: [{ employment_classifications: [classificationExample] }],
  },
)
export const EmploymentClassificationsQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })
