import { Type, type Static } from 'typebox'
import { PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

export const WorkOrderStatus = Type.Enum(['open', 'in_progress', 'submitted', 'needs_information', 'completed', 'cancelled'], {
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

export const WorkOrderSchema = Type.Object(
  {
    id: Uuid,
    coverage_period_id: Uuid,
    group_id: Uuid,
    group_name: Type.String({ description: "The group's organization name, so a queue reads without a request per row" }),
    coverage_period_external_identifier: Type.String({ description: "The coverage period's external identifier" }),
    carrier_name: Type.String({ description: 'The carrier of the coverage period' }),
    status: WorkOrderStatus,
    allowed_transitions: Type.Array(WorkOrderStatus, { description: 'The statuses the operator can move the work order to from its current one' }),
    history: Type.Array(WorkOrderHistoryEntry, { description: 'Every status change, oldest first' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
)
export type WorkOrder = Static<typeof WorkOrderSchema>

const workOrderExample: WorkOrder = {
  id: '0193a4b2-0000-7000-8000-000000000030',
  coverage_period_id: '0193a4b2-0000-7000-8000-000000000010',
  group_id: '0193a4b2-0000-7000-8000-000000000004',
  group_name: 'Acme Widgets Inc.',
  coverage_period_external_identifier: 'py-2027',
  carrier_name: 'sandbox_edi',
  status: 'open',
  allowed_transitions: ['in_progress', 'cancelled'],
  history: [{ status: 'open', at: '2026-11-22T10:00:00.000Z', by: 'production integration', message: 'Setup completed; work order opened for the operations team.' }],
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
}

export const WorkOrderResponse = Type.Object(
  { work_order: WorkOrderSchema },
  { description: 'The work order of the coverage period', examples: [{ work_order: workOrderExample }] },
)

export const WorkOrderList = Type.Object(
  { work_orders: Type.Array(WorkOrderSchema) },
  { description: 'One page of work orders, oldest first; see the Total and Link headers', examples: [{ work_orders: [workOrderExample] }] },
)

export const WorkOrdersQuery = Type.Object(
  {
    status: Type.Optional(WorkOrderStatus),
    carrier_name: Type.Optional(Type.String({ maxLength: 100, description: 'Only work orders of this carrier' })),
    account_id: Type.Optional(Uuid),
    ...PaginationQuery.properties,
  },
  { additionalProperties: false },
)

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
