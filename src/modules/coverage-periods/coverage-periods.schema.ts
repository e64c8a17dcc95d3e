import { Type, type Static } from 'typebox'
import { IsoDate, Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'
import { DistributionFormat } from '../carriers/carriers.schema.js'

/** A date field with its own description (YYYY-MM-DD). */
export const dateField = (description: string) => Type.String({ format: 'date', description })

export const ExternalIdentifier = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Client-chosen identifier, unique under the parent resource',
})

const EmployerSignOff = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Name of the authorized representative of the employer' }),
    title: Type.String({ minLength: 1, maxLength: 200, description: 'Their title' }),
    date: dateField('Date of the sign-off, YYYY-MM-DD; not after today (UTC)'),
  },
  { additionalProperties: false, description: 'Sign-off of an authorized representative of the employer' },
)

export const CoveragePeriodState = Type.Enum(['initial', 'configuration', 'test', 'production', 'expired'], {
  description:
    'initial (received), configuration (setup completed), test (submitted to the carrier), production, expired (from the day after coverage_end_date; receives nothing more)',
})

export const CoveragePeriodSchema = Type.Object(
  {
    id: Uuid,
    group_id: Uuid,
    external_identifier: Type.String(),
    carrier_name: Type.String(),
    coverage_start_date: IsoDate,
    coverage_end_date: Nullable(IsoDate),
    open_enrollment_start_date: Nullable(IsoDate),
    open_enrollment_end_date: Nullable(IsoDate),
    carrier_group_number: Nullable(Type.String()),
    additional_information: Nullable(Type.String()),
    employer_sign_off: Nullable(EmployerSignOff),
    state: CoveragePeriodState,
    distribution_format: DistributionFormat,
    setup_completed_at: Nullable(Timestamp),
    installed_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
)
export type CoveragePeriod = Static<typeof CoveragePeriodSchema>

const createExample = {
  coverage_period: {
    external_identifier: 'acme-2027',
    carrier_name: 'sandbox_edi',
    coverage_start_date: '2027-01-01',
    coverage_end_date: '2027-12-31',
    open_enrollment_start_date: '2026-11-01',
    open_enrollment_end_date: '2026-11-30',
    carrier_group_number: null,
    additional_information: 'Renewal of the 2026 plan year',
    employer_sign_off: { name: 'Pat Smith', title: 'Chief Financial Officer', date: '2026-10-15' },
  },
}

export const CreateCoveragePeriodBody = Type.Object(
  {
    coverage_period: Type.Object(
      {
        external_identifier: ExternalIdentifier,
        carrier_name: Type.Optional(
          Type.String({ maxLength: 100, description: "A carrier of GET /carriers; defaults to the group installment's carrier" }),
        ),
        coverage_start_date: IsoDate,
        coverage_end_date: Type.Optional(Nullable(dateField('After coverage_start_date'))),
        open_enrollment_start_date: Type.Optional(Nullable(dateField('On or before open_enrollment_end_date'))),
        open_enrollment_end_date: Type.Optional(Nullable(dateField('On or before coverage_start_date'))),
        carrier_group_number: Type.Optional(
          Nullable(
            Type.String({
              maxLength: 100,
              description:
                "The carrier's number for the group. Absent or null: a renewal with the same carrier keeps the number of the group's " +
                'latest-starting coverage period with that carrier; otherwise it is set when the work order is completed',
            }),
          ),
        ),
        additional_information: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
        employer_sign_off: Type.Optional(Nullable(EmployerSignOff)),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, examples: [createExample] },
)
export type CreateCoveragePeriodInput = Static<typeof CreateCoveragePeriodBody>['coverage_period']

const coveragePeriodExample: CoveragePeriod = {
  id: '0193a4b2-0000-7000-8000-000000000010',
  group_id: '0193a4b2-0000-7000-8000-000000000004',
  ...createExample.coverage_period,
  state: 'initial',
  distribution_format: 'edi',
  setup_completed_at: null,
  installed_at: null,
  created_at: '2026-11-22T09:30:00.000Z',
  updated_at: '2026-11-22T09:30:00.000Z',
}

export const CoveragePeriodResponse = Type.Object(
  { coverage_period: CoveragePeriodSchema },
  { description: 'The coverage period', examples: [{ coverage_period: coveragePeriodExample }] },
)
export const CoveragePeriodList = Type.Object(
  { coverage_periods: Type.Array(CoveragePeriodSchema) },
  { description: 'One page of coverage periods, oldest first; see the Total and Link headers', examples: [{ coverage_periods: [coveragePeriodExample] }] },
)
export const CoveragePeriodsQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })
