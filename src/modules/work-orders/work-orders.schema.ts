import { Type, type Static } from 'typebox'
import type { WorkOrderStatus as WorkOrderStatusValue } from '../../db/schema.js'
import { WORK_ORDER_STATUSES } from './work-order-states.js'
import { Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

export const WorkOrderStatus = Type.Enum([...WORK_ORDER_STATUSES], {
  description:
    'open (setup completed, waiting for operations) → in_progress → submitted (sent to the carrier) ⇄ needs_information → completed (carrier installed the group), or cancelled',
})

export const WorkOrderHistoryEntry = Type.Object(
  {
    status: WorkOrderStatus,
    at: Timestamp,
    by: Type.String({ description: 'Email of the signed-in console user, else the name of the API key (or the channel) that made the change' }),
    message: Type.String(),
  },
  { additionalProperties: false },
)
export type WorkOrderHistoryEntryT = Static<typeof WorkOrderHistoryEntry>

export const WorkOrderAssignee = Type.Object(
  {
    id: Uuid,
    email: Type.String(),
  },
  { additionalProperties: false, description: 'The operator user working the order; null while nobody is' },
)

// On the WorkOrder component, once, rather than on each of the nine answers that carry a work order:
// openapi.json stays under its size budget (test/openapi-components.test.ts). Checked against the
// schema below.
const workOrderExample = {
  id: '0193a4b2-0000-7000-8000-000000000030',
  account_id: '0193a4b2-0000-7000-8000-000000000001',
  account_name: 'Benefits Platform Inc.',
  coverage_period_id: '0193a4b2-0000-7000-8000-000000000010',
  group_id: '0193a4b2-0000-7000-8000-000000000004',
  group_name: 'Acme Widgets Inc.',
  group_external_identifier: 'acme-widgets',
  employer_name: 'Acme Widgets Inc.',
  coverage_period_external_identifier: 'py-2027',
  carrier_name: 'sandbox_edi',
  status: 'open' as const,
  status_changed_at: '2026-11-22T10:00:00.000Z',
  age_seconds: 5400,
  assigned_user: { id: '0193a4b2-0000-7000-8000-000000000050', email: 'ops@example.com' },
  allowed_transitions: ['in_progress' as const, 'cancelled' as const],
  history: [{ status: 'open' as const, at: '2026-11-22T10:00:00.000Z', by: 'production integration', message: 'Setup completed; work order opened for the operations team.' }],
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:20:00.000Z',
}

export const WorkOrderSchema = Type.Object(
  {
    id: Uuid,
    account_id: Uuid,
    account_name: Type.String({ description: "The account's name" }),
    coverage_period_id: Uuid,
    group_id: Uuid,
    group_name: Type.String({ description: "The group's organization name, so a queue reads without a request per row" }),
    group_external_identifier: Type.String(),
    employer_name: Type.String({ description: 'The employer: the same as group_name' }),
    coverage_period_external_identifier: Type.String({ description: "The coverage period's external identifier" }),
    carrier_name: Type.String({ description: 'The carrier of the coverage period' }),
    status: WorkOrderStatus,
    status_changed_at: Type.String({ format: 'date-time', description: 'When the current status began (opening or last transition)' }),
    age_seconds: Type.Integer({ minimum: 0, description: 'Whole seconds (rounded down) since status_changed_at, when answered: the time in the current status' }),
    assigned_user: Nullable(WorkOrderAssignee),
    allowed_transitions: Type.Array(WorkOrderStatus, { description: 'The statuses the operator can move the work order to from its current one' }),
    history: Type.Array(WorkOrderHistoryEntry, { description: 'Every status change, oldest first' }),
    created_at: Timestamp,
    updated_at: Type.String({ format: 'date-time', description: 'The last transition or assignment' }),
  },
  { additionalProperties: false, examples: [workOrderExample] },
)
export type WorkOrder = Static<typeof WorkOrderSchema>
workOrderExample satisfies WorkOrder


export const WorkOrderResponse = Type.Object(
  { work_order: WorkOrderSchema },
  { description: 'The work order of the coverage period' },
)

export const WorkOrderList = Type.Object(
  { work_orders: Type.Array(WorkOrderSchema) },
  { description: 'One page of work orders (oldest opened first unless sort says otherwise); see the Total and Link headers' },
)

export const WORK_ORDER_SORTS = ['age', '-age', 'status', '-status', 'created_at', '-created_at'] as const
export type WorkOrderSort = (typeof WORK_ORDER_SORTS)[number]

/** What both the queue and its counts filter by; every filter narrows (they combine with AND). */
const workOrderFilters = {
  status: Type.Optional(WorkOrderStatus),
  carrier_name: Type.Optional(Type.String({ maxLength: 100, description: 'Only work orders of this carrier' })),
  account_id: Type.Optional(Uuid),
  group_id: Type.Optional(Uuid),
  assigned_user_id: Type.Optional(
    Type.String({
      // One pattern rather than a union: a wrong value then answers one problem naming the parameter.
      pattern: '^(me|none|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$',
      description: 'A user id; `me`: the signed-in console user (422 for API keys and tokens); `none`: unassigned',
    }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      // Not white space alone, as for the error queue's q: it would match nearly every name. (An
      // empty q passes the pattern: minLength refuses it, with one problem rather than two.)
      pattern: '^$|\\S',
      description: 'Case-insensitive text in the employer name, group external_identifier or account name; white space alone is refused',
    }),
  ),
}

export const WorkOrderCountsQuery = Type.Object(workOrderFilters, { additionalProperties: false })

export const WorkOrdersQuery = Type.Object(
  {
    ...workOrderFilters,
    sort: Type.Optional(
      Type.Enum([...WORK_ORDER_SORTS], {
        description:
          'A leading - reverses. age: youngest (least age_seconds) first; status: workflow order (open … cancelled); created_at: oldest ' +
          'opened first, the default. Ties: created_at, then id.',
      }),
    ),
    ...PaginationQuery.properties,
  },
  { additionalProperties: false },
)
export type WorkOrdersQueryT = Static<typeof WorkOrdersQuery>
export type WorkOrderCountsQueryT = Static<typeof WorkOrderCountsQuery>

const StatusCount = Type.Integer({ minimum: 0 })

export const WorkOrderCountsResponse = Type.Object(
  {
    counts: Type.Object(
      {
        total: StatusCount,
        by_status: Type.Object(
          // satisfies: a status added to the workflow fails to compile until it is counted here too.
          {
            open: StatusCount,
            in_progress: StatusCount,
            submitted: StatusCount,
            needs_information: StatusCount,
            completed: StatusCount,
            cancelled: StatusCount,
          } satisfies Record<WorkOrderStatusValue, typeof StatusCount>,
          { additionalProperties: false, description: 'Per status, every status present (0 when none)' },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { description: 'How many work orders match the filters' },
)
export type WorkOrderCounts = Static<typeof WorkOrderCountsResponse>['counts']

export const WorkOrderAssignmentBody = Type.Object(
  {
    assignment: Type.Object(
      {
        user_id: Nullable(
          Type.String({ format: 'uuid', description: 'An active user of a service account; null unassigns' }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  {
    additionalProperties: false,
    examples: [{ assignment: { user_id: '0193a4b2-0000-7000-8000-000000000050' } }, { assignment: { user_id: null } }],
  },
)
export type WorkOrderAssignmentInput = Static<typeof WorkOrderAssignmentBody>['assignment']

export const WorkOrderTransitionBody = Type.Object(
  {
    status: WorkOrderStatus,
    message: Type.String({ minLength: 1, maxLength: 10_000, description: 'Why: kept in the history, SSNs masked' }),
    carrier_group_number: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: "The carrier's group number; required to complete unless the coverage period has one" }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { status: 'in_progress', message: 'Checking the plan set-up.' },
      { status: 'completed', message: 'Installed by the carrier.', carrier_group_number: 'G-100200' },
    ],
  },
)
export type WorkOrderTransitionInput = Static<typeof WorkOrderTransitionBody>
