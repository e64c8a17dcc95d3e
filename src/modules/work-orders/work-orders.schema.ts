import { Type, type Static } from 'typebox'
import { Timestamp, Uuid } from '../../http/schemas.js'

export const WorkOrderStatus = Type.Enum(['open', 'in_progress', 'submitted', 'needs_information', 'completed', 'cancelled'], {
  description:
    'open (setup completed, waiting for operations) → in_progress → submitted (sent to the carrier) ⇄ needs_information → completed (carrier installed the group), or cancelled',
})

export const WorkOrderHistoryEntry = Type.Object(
  {
    status: WorkOrderStatus,
    at: Timestamp,
    by: Type.String({ description: 'Name of the API key (or channel) that made the change' }),
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
    status: WorkOrderStatus,
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
  status: 'open',
  history: [{ status: 'open', at: '2026-11-22T10:00:00.000Z', by: 'production integration', message: 'Setup completed; work order opened for the operations team.' }],
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
}

export const WorkOrderResponse = Type.Object(
  { work_order: WorkOrderSchema },
  { description: 'The work order of the coverage period', examples: [{ work_order: workOrderExample }] },
)
