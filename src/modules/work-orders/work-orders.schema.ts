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
    email: Type.String({ description: "The user's email" }),
  },
  { additionalProperties: false, description: 'The operator user working the order (PUT /work_orders/{id}/assignment); null while nobody is' },
)

export const WorkOrderSchema = Type.Object(
  {
    id: Uuid,
    account_id: Type.String({ format: 'uuid', description: 'The (partner) account whose coverage period the work order installs' }),
    account_name: Type.String({ description: 'The name of that account' }),
    coverage_period_id: Uuid,
    group_id: Uuid,
    group_name: Type.String({ description: "The group's organization name, so a queue reads without a request per row" }),
    group_external_identifier: Type.String({ description: "The group's external identifier in the partner's system" }),
    employer_name: Type.String({ description: "The employer: the group's organization name (the same value as group_name, under the name operators search by)" }),
    coverage_period_external_identifier: Type.String({ description: "The coverage period's external identifier" }),
    carrier_name: Type.String({ description: 'The carrier of the coverage period' }),
    status: WorkOrderStatus,
    status_changed_at: Type.String({ format: 'date-time', description: 'When the work order entered its current status (opened, or its last transition); an assignment does not change it' }),
    age_seconds: Type.Integer({
      minimum: 0,
      description:
        'How long the work order has sat in its current status: whole seconds (rounded down) from status_changed_at to the moment the ' +
        'database answered; 0 right after a transition',
    }),
    assigned_user: Nullable(WorkOrderAssignee),
    allowed_transitions: Type.Array(WorkOrderStatus, { description: 'The statuses the operator can move the work order to from its current one' }),
    history: Type.Array(WorkOrderHistoryEntry, { description: 'Every status change, oldest first (assignments are not status changes: they are in the audit trail)' }),
    created_at: Timestamp,
    updated_at: Type.String({ format: 'date-time', description: 'The last change of any kind: a transition or an assignment' }),
  },
  { additionalProperties: false },
)
export type WorkOrder = Static<typeof WorkOrderSchema>

const workOrderExample: WorkOrder = {
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
  status: 'open',
  status_changed_at: '2026-11-22T10:00:00.000Z',
  age_seconds: 5400,
  assigned_user: { id: '0193a4b2-0000-7000-8000-000000000050', email: 'ops@example.com' },
  allowed_transitions: ['in_progress', 'cancelled'],
  history: [{ status: 'open', at: '2026-11-22T10:00:00.000Z', by: 'production integration', message: 'Setup completed; work order opened for the operations team.' }],
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:20:00.000Z',
}

export const WorkOrderResponse = Type.Object(
  { work_order: WorkOrderSchema },
  { description: 'The work order of the coverage period', examples: [{ work_order: workOrderExample }] },
)

export const WorkOrderList = Type.Object(
  { work_orders: Type.Array(WorkOrderSchema) },
  { description: 'One page of work orders, oldest first; see the Total and Link headers', examples: [{ work_orders: [workOrderExample] }] },
)

export const WORK_ORDER_SORTS = ['age', '-age', 'status', '-status', 'created_at', '-created_at'] as const
export type WorkOrderSort = (typeof WORK_ORDER_SORTS)[number]

/** What both the queue and its counts filter by; every filter narrows (they combine with AND). */
const workOrderFilters = {
  status: Type.Optional(WorkOrderStatus),
  carrier_name: Type.Optional(Type.String({ maxLength: 100, description: 'Only work orders of this carrier' })),
  account_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only work orders of this (partner) account' })),
  group_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only the work orders of this group' })),
  assigned_user_id: Type.Optional(
    Type.String({
      // One pattern rather than a union: a wrong value then answers one problem naming the parameter.
      pattern: '^(me|none|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$',
      description:
        "Only work orders assigned to this user (a UUID); `me`: to the signed-in console user (422 for an API key or token, which has no " +
        'user); `none`: only the unassigned ones',
      examples: ['me', 'none', '0193a4b2-0000-7000-8000-000000000050'],
    }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "Case-insensitive substring of the employer name (the group's organization name), the group's external identifier or the account name",
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
          'The order of the queue; a leading - reverses it. age: youngest first (the shortest time in the current status, i.e. the latest ' +
          'status_changed_at); -age: oldest first. status: in the order of the workflow (open, in_progress, submitted, needs_information, ' +
          'completed, cancelled); -status: the reverse. created_at: oldest opened first; -created_at: newest first. Without sort the queue ' +
          'is created_at (oldest opened first). Ties are broken by created_at, then id, ascending.',
      }),
    ),
    ...PaginationQuery.properties,
  },
  { additionalProperties: false },
)
export type WorkOrdersQueryT = Static<typeof WorkOrdersQuery>
export type WorkOrderCountsQueryT = Static<typeof WorkOrderCountsQuery>

const StatusCount = Type.Integer({ minimum: 0 })
const byStatusExample = { open: 3, in_progress: 2, submitted: 1, needs_information: 0, completed: 7, cancelled: 1 }

export const WorkOrderCountsResponse = Type.Object(
  {
    counts: Type.Object(
      {
        total: Type.Integer({ minimum: 0, description: 'Work orders matching the filters' }),
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
          { additionalProperties: false, description: 'Work orders matching the filters, per status; every status is present, 0 when none' },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { description: 'How many work orders match the filters, in total and per status', examples: [{ counts: { total: 14, by_status: byStatusExample } }] },
)
export type WorkOrderCounts = Static<typeof WorkOrderCountsResponse>['counts']

export const WorkOrderAssignmentBody = Type.Object(
  {
    assignment: Type.Object(
      {
        user_id: Nullable(
          Type.String({ format: 'uuid', description: 'An active user of a service (operator) account; null unassigns the work order' }),
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
