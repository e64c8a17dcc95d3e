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

/** A user named on an error as the one working it: enough to show and to filter by. */
export const AssignedUserSchema = Type.Object({ id: Uuid, email: Type.String() }, { additionalProperties: false })

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
    // What a person reads in the queue, so a list needs no extra call per row (issue 17).
    assigned_user: Nullable({ ...AssignedUserSchema, description: 'The person of the holding party (assignee) working the error; null when nobody is. Cleared when the error changes hands.' }),
    age_seconds: Type.Integer({ minimum: 0, description: 'Whole seconds since the error was raised, reopened or last returned: how long it has waited in its current queue' }),
    member_name: Nullable(Type.String({ description: "The member's first and last name; null for an error about no member" })),
    plan_name: Nullable(Type.String({ description: "The plan's description (its name); null for an error about no plan" })),
    employer_name: Type.String({ description: "The group's organization name" }),
    account_id: Uuid,
    account_name: Type.String({ description: 'The client platform (account) the error belongs to: operators see every account' }),
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
  assigned_user: { id: '0193a4b2-0000-7000-8000-000000000005', email: 'jane.doe@example.com' },
  age_seconds: 86_400,
  member_name: 'Maria Lopez',
  plan_name: 'Gold HMO 2027',
  employer_name: 'Acme Manufacturing',
  account_id: '0193a4b2-0000-7000-8000-000000000001',
  account_name: 'Benefits Platform Inc.',
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
  { description: 'One page of errors, in the order asked (oldest raised first by default); see the Total and Link headers', examples: [{ errors: [errorExample] }] },
)
export const ErrorCommentResponse = Type.Object({ comment: ErrorCommentSchema }, { description: 'The comment', examples: [{ comment: commentExample }] })
export const ErrorCommentList = Type.Object(
  { comments: Type.Array(ErrorCommentSchema) },
  { description: 'One page of comments, oldest first; see the Total and Link headers', examples: [{ comments: [commentExample] }] },
)

/** The orders a queue can be read in; a leading `-` reverses one (see errors.repo.ts, ORDERINGS). */
export const ERROR_SORTS = ['created_at', '-created_at', 'age', '-age', 'severity', '-severity', 'parameter', '-parameter', 'status', '-status'] as const
export type ErrorSort = (typeof ERROR_SORTS)[number]

const UUID_PATTERN = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'

const filters = {
  status: Type.Optional(ErrorStatus),
  assignee: Type.Optional(Assignee),
  severity: Type.Optional(Severity),
  source: Type.Optional(ErrorSource),
  parameter: Type.Optional(DiscrepancyParameterSchema),
  member_id: Type.Optional(Type.String({ format: 'uuid', description: 'Errors about this member (subscriber or dependent)' })),
  assigned_user_id: Type.Optional(
    Type.String({
      pattern: `^(me|none|${UUID_PATTERN})$`,
      description: 'Errors assigned to this user (a user id); `me`: to the signed-in console user (my queue); `none`: to nobody',
    }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      // Not white space alone: the fields are searched joined by spaces (so "Alice Quill" finds a
      // full name), and a space would match every error while looking like a search. (An empty q
      // passes the pattern: minLength refuses it, with one problem rather than two.)
      pattern: '^$|\\S',
      description:
        "Search, case-insensitive, for this text anywhere in the member's name (first and last, joined by a space) or external identifier, or the group's organization name or external identifier; white space alone is refused",
    }),
  ),
}
const sort = {
  sort: Type.Optional(
    Type.Enum([...ERROR_SORTS], {
      description:
        'The order: created_at (oldest raised first, the default), age (youngest first: least time waiting), severity (failure, warning, info), ' +
        'parameter (alphabetical) or status (unresolved, returned, resolved), each then oldest waiting first; a leading `-` reverses the whole order',
    }),
  ),
}
const crossPeriodFilters = {
  coverage_period_id: Type.Optional(Type.String({ format: 'uuid', description: 'Errors of this coverage period' })),
  group_id: Type.Optional(Type.String({ format: 'uuid', description: 'Errors of this group' })),
  account_id: Type.Optional(Type.String({ format: 'uuid', description: "Errors of this account (operators: any account's; a partner's own account only)" })),
}
export const CoveragePeriodErrorsQuery = Type.Object({ ...PaginationQuery.properties, ...filters, ...sort }, { additionalProperties: false })
export const ErrorsQuery = Type.Object({ ...PaginationQuery.properties, ...filters, ...sort, ...crossPeriodFilters }, { additionalProperties: false })
export const CoveragePeriodErrorCountsQuery = Type.Object({ ...filters }, { additionalProperties: false })
export const ErrorCountsQuery = Type.Object({ ...filters, ...crossPeriodFilters }, { additionalProperties: false })
/** Every filter a listing, a count or an export may combine. */
export type ErrorFilters = Omit<Static<typeof ErrorsQuery>, 'page' | 'per_page' | 'sort'>

export const ErrorCountsSchema = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    by_status: Type.Object({ unresolved: Type.Integer(), returned: Type.Integer(), resolved: Type.Integer() }, { additionalProperties: false }),
    by_severity: Type.Object({ failure: Type.Integer(), warning: Type.Integer(), info: Type.Integer() }, { additionalProperties: false }),
  },
  { additionalProperties: false },
)
export type ErrorCounts = Static<typeof ErrorCountsSchema>
export const ErrorCountsResponse = Type.Object(
  { counts: ErrorCountsSchema },
  {
    description: 'How many errors match the filters, in all, by status and by severity',
    examples: [{ counts: { total: 1250, by_status: { unresolved: 830, returned: 120, resolved: 300 }, by_severity: { failure: 900, warning: 310, info: 40 } } }],
  },
)

export const ERROR_HISTORY_TYPES = ['raised', 'commented', 'returned', 'assigned', 'unassigned', 'resolved', 'reopened', 'auto_resolved'] as const
export const ErrorHistoryEntrySchema = Type.Object(
  {
    id: Uuid,
    type: Type.Enum([...ERROR_HISTORY_TYPES], {
      description:
        'raised, commented, returned (handed to the other party, with its message), assigned or unassigned (to a person), resolved, reopened ' +
        '(a later check found it again), auto_resolved (a check, such as the census, no longer finds it; or a provider selection cured it)',
    }),
    created_at: Timestamp,
    actor: Nullable(Type.String({ description: "Who did it: a user's email, an API key's name, or the check (reconciliation, file_validation, api)" })),
    party: Nullable(Type.Enum(['partner', 'service'], { description: "The actor's party; null for the service's own checks" })),
    comment: Nullable({ ...Type.Object({ id: Uuid, message: Type.String() }, { additionalProperties: false }), description: 'The comment written (commented) or the message of a return' }),
    assigned_user: Nullable({ ...AssignedUserSchema, description: 'The person assigned after this change' }),
    from_status: Nullable({ ...ErrorStatus, description: 'The status before the change, when it changed' }),
    to_status: ErrorStatus,
    assignee: Nullable({ ...Assignee, description: 'The party holding the error after the change' }),
  },
  { additionalProperties: false },
)
export type ErrorHistoryEntry = Static<typeof ErrorHistoryEntrySchema>
export const ErrorHistoryList = Type.Object(
  { history: Type.Array(ErrorHistoryEntrySchema) },
  {
    description: 'One page of the error\'s history, oldest first; see the Total and Link headers',
    examples: [
      {
        history: [
          {
            id: '0193a4b2-0000-7000-8000-000000000080',
            type: 'raised',
            created_at: '2026-11-22T10:00:00.000Z',
            actor: 'reconciliation',
            party: null,
            comment: null,
            assigned_user: null,
            from_status: null,
            to_status: 'unresolved',
            assignee: 'partner',
          },
          {
            id: '0193a4b2-0000-7000-8000-000000000081',
            type: 'assigned',
            created_at: '2026-11-22T11:00:00.000Z',
            actor: 'jane.doe@example.com',
            party: 'partner',
            comment: null,
            assigned_user: { id: '0193a4b2-0000-7000-8000-000000000005', email: 'jane.doe@example.com' },
            from_status: null,
            to_status: 'unresolved',
            assignee: 'partner',
          },
        ],
      },
    ],
  },
)

export const AssignmentBody = Type.Object(
  {
    assignment: Type.Object(
      {
        user_id: Nullable(Type.String({ format: 'uuid', description: 'An active user of your account, which must be the party holding the error; null unassigns' })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, examples: [{ assignment: { user_id: '0193a4b2-0000-7000-8000-000000000005' } }, { assignment: { user_id: null } }] },
)
export type AssignmentInput = Static<typeof AssignmentBody>['assignment']
export const MAX_BULK_ASSIGNMENT = 100
export const BulkAssignmentBody = Type.Object(
  {
    assignment: Type.Object(
      {
        user_id: Nullable(Type.String({ format: 'uuid', description: 'An active user of your account; null unassigns' })),
        error_ids: Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: MAX_BULK_ASSIGNMENT, uniqueItems: true, description: 'The errors, each held by your party' }),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    examples: [{ assignment: { user_id: '0193a4b2-0000-7000-8000-000000000005', error_ids: ['0193a4b2-0000-7000-8000-000000000070', '0193a4b2-0000-7000-8000-000000000072'] } }],
  },
)
export type BulkAssignmentInput = Static<typeof BulkAssignmentBody>['assignment']
export const ErrorsResponse = Type.Object({ errors: Type.Array(ErrorSchema) }, { description: 'The errors as they are now, in the order given' })

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
