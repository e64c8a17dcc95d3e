import { Type, type Static } from 'typebox'
import { Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'
import { UserEmail, UserSchema } from '../users/users.schema.js'
import { DISCREPANCY_KINDS, DISCREPANCY_MESSAGES, DISCREPANCY_PARAMETERS } from './discrepancy-messages.js'

export const ErrorStatus = Type.Enum(['unresolved', 'returned', 'resolved'], {
  description: 'unresolved (new or reopened), returned (handed to the other party with a message), resolved',
})
export const Assignee = Type.Enum(['service', 'partner'], { description: 'The party that acts next: service (the operator) or partner' })
export const Severity = Type.Enum(['failure', 'warning', 'info'])
export const ErrorSource = Type.Enum(['file_validation', 'reconciliation', 'api', 'manual', 'error_report'], {
  description: 'What produced the error: file_validation, reconciliation (census), api (checks of this API), manual or error_report (the operator)',
})
export const DiscrepancyParameterSchema = Type.Enum([...DISCREPANCY_PARAMETERS], { description: 'The data item in question' })
export const DiscrepancyKindSchema = Type.Enum([...DISCREPANCY_KINDS], {
  description: 'carrier_value_differs, carrier_missing (the carrier lacks it), platform_missing (the platform lacks it), value_invalid',
})
const Message = Type.String({ minLength: 1, maxLength: 10_000 })
/** Said of every free text stored: lib/free-text-masking.ts decides what is SSN-shaped. */
const MASKED = 'SSNs in it are stored masked'

/** A user named by a comment (service-interface.md 2.4): deactivated_at only when inactive. */
export const CommentAuthorSchema = Type.Object(
  { id: Uuid, email: Type.String(), deactivated_at: Type.Optional(Timestamp), role_names: Type.Array(Type.String()) },
  { additionalProperties: false },
)

export const ErrorCommentSchema = Type.Object(
  {
    id: Uuid,
    error_id: Uuid,
    message: Type.String(),
    created_at: Timestamp,
    created_by: Nullable(CommentAuthorSchema),
    sent_by: Type.Enum(['partner', 'service'], { description: 'The kind of account that sent the comment' }),
  },
  { additionalProperties: false },
)
export type ErrorComment = Static<typeof ErrorCommentSchema>

const CensusRequestSummary = Type.Object(
  { id: Uuid, status: Type.String(), coverage_period_id: Uuid, created_at: Timestamp, errors: Type.Array(Type.String()) },
  { additionalProperties: false },
)

export const ErrorSchema = Type.Object(
  {
    id: Uuid,
    coverage_period_id: Uuid,
    group_id: Uuid,
    member_id: Nullable(Uuid),
    plan_id: Nullable(Uuid),
    assignee: Assignee,
    created_at: Timestamp,
    updated_at: Timestamp,
    reopened_at: Nullable({ ...Timestamp, description: 'When a check found a resolved discrepancy again; null if never reopened' }),
    created_by: Nullable({ ...UserSchema, description: 'The user who raised the error; null when the service raised it' }),
    comments: Type.Array(ErrorCommentSchema, { description: 'Every comment, oldest first' }),
    discrepancy: Type.Object(
      {
        carrier: Type.Unknown({ description: 'The value in the carrier system (any JSON value, null when the carrier has none)' }),
        platform: Type.Unknown({ description: 'The value the platform supplied, as held here (null when it has none); SSNs only masked' }),
        parameter: DiscrepancyParameterSchema,
        kind: DiscrepancyKindSchema,
      },
      { additionalProperties: false },
    ),
    message: Type.String({ description: 'The standard message of the parameter and kind (GET /discrepancy_messages)' }),
    resolution: Nullable(
      Type.Object(
        {
          message: Type.String(),
          created_at: Timestamp,
          resolved_by: Type.String({ description: "The resolving user's email, else the API key's name, or reconciliation" }),
        },
        { additionalProperties: false },
      ),
    ),
    resolution_message: Nullable(Type.String()),
    severity: Severity,
    status: ErrorStatus,
    source: ErrorSource,
    transaction_ids: Type.Array(Uuid, { description: 'Member transactions the error concerns' }),
    census_requests: Nullable({
      ...CensusRequestSummary,
      description: 'The census request (reconciliation with the carrier) that last raised, reopened or resolved the error; null until census requests exist',
    }),
  },
  { additionalProperties: false },
)
export type ErrorResource = Static<typeof ErrorSchema>

const userExample = { id: '0193a4b2-0000-7000-8000-000000000003', email: 'ops@example.com', created_at: '2026-11-01T08:00:00.000Z', role_names: ['operations'] }
const commentExample: ErrorComment = {
  id: '0193a4b2-0000-7000-8000-000000000071',
  error_id: '0193a4b2-0000-7000-8000-000000000070',
  message: 'The member chose a provider last week; sending the selection now.',
  created_at: '2026-11-23T14:05:00.000Z',
  created_by: { id: '0193a4b2-0000-7000-8000-000000000005', email: 'jane.doe@example.com', role_names: ['benefits_admin'] },
  sent_by: 'partner',
}
const errorExample: ErrorResource = {
  id: '0193a4b2-0000-7000-8000-000000000070',
  coverage_period_id: '0193a4b2-0000-7000-8000-000000000010',
  group_id: '0193a4b2-0000-7000-8000-000000000004',
  member_id: '0193a4b2-0000-7000-8000-000000000030',
  plan_id: '0193a4b2-0000-7000-8000-000000000020',
  assignee: 'partner',
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-23T14:05:00.000Z',
  reopened_at: null,
  created_by: null,
  comments: [commentExample],
  discrepancy: { carrier: null, platform: null, parameter: 'primary_care_provider', kind: 'platform_missing' },
  message: 'A primary care provider selection is required for this HMO enrollment.',
  resolution: null,
  resolution_message: null,
  severity: 'failure',
  status: 'unresolved',
  source: 'api',
  transaction_ids: [],
  census_requests: null,
}
const resolvedExample: ErrorResource = {
  ...errorExample,
  status: 'resolved',
  updated_at: '2026-11-24T09:00:00.000Z',
  resolution: { message: 'Provider selection sent.', created_at: '2026-11-24T09:00:00.000Z', resolved_by: 'jane.doe@example.com' },
  resolution_message: 'Provider selection sent.',
}
const manualExample: ErrorResource = {
  ...errorExample,
  id: '0193a4b2-0000-7000-8000-000000000072',
  plan_id: null,
  assignee: 'partner',
  created_by: userExample,
  comments: [],
  discrepancy: { carrier: '1985-03-15', platform: '1985-03-14', parameter: 'birth_date', kind: 'carrier_value_differs' },
  message: "The member's birth date at the carrier differs from the platform's.",
  source: 'error_report',
}

export const ErrorResponse = Type.Object({ error: ErrorSchema }, { description: 'The error', examples: [{ error: errorExample }] })
export const ResolvedErrorResponse = Type.Object({ error: ErrorSchema }, { description: 'The error with its resolution', examples: [{ error: resolvedExample }] })
export const CreatedErrorResponse = Type.Object({ error: ErrorSchema }, { description: 'The error raised', examples: [{ error: manualExample }] })
export const ErrorList = Type.Object(
  { errors: Type.Array(ErrorSchema) },
  { description: 'One page of errors, oldest first; see the Total and Link headers', examples: [{ errors: [errorExample] }] },
)
export const ErrorCommentResponse = Type.Object({ comment: ErrorCommentSchema }, { description: 'The comment', examples: [{ comment: commentExample }] })
export const ErrorCommentList = Type.Object(
  { comments: Type.Array(ErrorCommentSchema) },
  { description: 'One page of comments, oldest first; see the Total and Link headers', examples: [{ comments: [commentExample] }] },
)

const filters = {
  status: Type.Optional(ErrorStatus),
  assignee: Type.Optional(Assignee),
  severity: Type.Optional(Severity),
  source: Type.Optional(ErrorSource),
  parameter: Type.Optional(DiscrepancyParameterSchema),
  member_id: Type.Optional(Type.String({ format: 'uuid', description: 'Errors about this member (subscriber or dependent)' })),
}
export const CoveragePeriodErrorsQuery = Type.Object({ ...PaginationQuery.properties, ...filters }, { additionalProperties: false })
export const ErrorsQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    ...filters,
    coverage_period_id: Type.Optional(Type.String({ format: 'uuid', description: 'Errors of this coverage period' })),
    group_id: Type.Optional(Type.String({ format: 'uuid', description: 'Errors of this group' })),
  },
  { additionalProperties: false },
)
export type ErrorFilters = Omit<Static<typeof ErrorsQuery>, 'page' | 'per_page'>
export const CommentsQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })

export const CreateCommentBody = Type.Object(
  {
    message: { ...Message, description: MASKED },
    created_by: { ...UserEmail, description: 'Email of a registered, active user of your account (service users for a service credential)' },
  },
  { additionalProperties: false, examples: [{ message: 'The member chose a provider last week; sending the selection now.', created_by: 'jane.doe@example.com' }] },
)
export type CreateCommentInput = Static<typeof CreateCommentBody>

export const ResolutionBody = Type.Object(
  {
    message: { ...Message, description: `What was done to resolve the error, or why the data is correct. ${MASKED}` },
    resolved_by: Type.Optional({ ...UserEmail, description: "Email of a registered, active user of your account; without it the API key's name is recorded" }),
  },
  { additionalProperties: false, examples: [{ message: 'Provider selection sent.', resolved_by: 'jane.doe@example.com' }] },
)
export type ResolutionInput = Static<typeof ResolutionBody>

export const ReturnBody = Type.Object(
  {
    message: { ...Message, description: `Why the error goes back to the other party; recorded as a comment. ${MASKED}` },
    created_by: Type.Optional({ ...UserEmail, description: 'Email of a registered, active user of your account, named on the comment' }),
  },
  { additionalProperties: false, examples: [{ message: 'Our data matches the enrollment form: please check with the carrier.', created_by: 'jane.doe@example.com' }] },
)
export type ReturnInput = Static<typeof ReturnBody>

export const CreateErrorBody = Type.Object(
  {
    error: Type.Object(
      {
        source: Type.Enum(['manual', 'error_report'], { description: 'manual, or error_report (from a carrier report)' }),
        discrepancy: Type.Object(
          {
            parameter: DiscrepancyParameterSchema,
            // Short enough for one line each in openapi.json, which is near its size limit.
            carrier: Type.Optional(Type.Unknown({ description: "The carrier's value; null or absent if none; SSNs stored masked" })),
            platform: Type.Optional(Type.Unknown({ description: "The platform's value; null or absent if none; SSNs stored masked" })),
          },
          { additionalProperties: false },
        ),
        kind: Type.Optional({
          ...DiscrepancyKindSchema,
          description:
            'Defaults from the values: carrier absent → carrier_missing, platform absent → platform_missing, both → carrier_value_differs, neither → value_invalid',
        }),
        member_id: Type.Optional(Type.String({ format: 'uuid', description: "A member of the coverage period's group" })),
        plan_id: Type.Optional(Type.String({ format: 'uuid', description: 'A plan of the coverage period' })),
        severity: Type.Optional({ ...Severity, description: 'Defaults to the catalogue severity of the parameter and kind' }),
        assignee: Type.Optional({ ...Assignee, description: 'Defaults to the catalogue assignee of the kind' }),
        created_by: Type.Optional({ ...UserEmail, description: 'Email of an active user of your (service) account' }),
        comment: Type.Optional({ ...Message, description: `A first comment, sent by the service. ${MASKED}` }),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        error: {
          source: 'error_report',
          discrepancy: { parameter: 'birth_date', carrier: '1985-03-15', platform: '1985-03-14' },
          member_id: '0193a4b2-0000-7000-8000-000000000030',
          created_by: 'ops@example.com',
          comment: 'From the carrier error report of November 22.',
        },
      },
    ],
  },
)
export type CreateErrorInput = Static<typeof CreateErrorBody>['error']

export const DiscrepancyMessageSchema = Type.Object(
  { parameter: DiscrepancyParameterSchema, kind: DiscrepancyKindSchema, message: Type.String(), severity: Severity, assignee: Assignee },
  { additionalProperties: false },
)
export const DiscrepancyMessageList = Type.Object(
  { discrepancy_messages: Type.Array(DiscrepancyMessageSchema) },
  { description: 'One page of the catalogue; see the Total and Link headers', examples: [{ discrepancy_messages: DISCREPANCY_MESSAGES.slice(40, 44) }] },
)
export const DiscrepancyMessagesQuery = Type.Object(
  { ...PaginationQuery.properties, parameter: Type.Optional(DiscrepancyParameterSchema), kind: Type.Optional(DiscrepancyKindSchema) },
  { additionalProperties: false },
)
