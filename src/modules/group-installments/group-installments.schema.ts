import { Type, type Static } from 'typebox'
import { Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'
import { GroupSchema, NewGroupInput, exampleGroup, exampleGroupInput } from '../groups/groups.schema.js'

export const InstallmentStatus = Type.Enum(['in_progress', 'setup_completed', 'installed', 'cancelled'], {
  description: 'in_progress until setup is completed (step 7); setup_completed while operations work on it; installed once the carrier has installed the group',
})

export const STEP_NAMES = [
  'group',
  'coverage_period',
  'plans',
  'employment_classifications',
  'subscribers',
  'qualifying_life_events',
  'complete_setup',
] as const

export const ProgressStep = Type.Object(
  {
    step: Type.Integer({ minimum: 1, maximum: 7 }),
    name: Type.Enum([...STEP_NAMES]),
    status: Type.Enum(['done', 'pending', 'optional'], {
      description: 'done: data exists; pending: still required; optional: may be skipped (employment classifications)',
    }),
  },
  { additionalProperties: false },
)
export type ProgressStepT = Static<typeof ProgressStep>

export const GroupInstallmentSchema = Type.Object(
  {
    id: Uuid,
    status: InstallmentStatus,
    carrier_name: Type.String(),
    group: GroupSchema,
    coverage_period_id: Nullable(Uuid),
    work_order_id: Nullable(Uuid),
    progress: Type.Array(ProgressStep, { description: 'Each of the seven steps in order, so a client sees what is missing' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
)
export type GroupInstallment = Static<typeof GroupInstallmentSchema>

export const GroupSetup = Type.Object(
  {
    carrier_name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Lower-case name of the carrier to start coverage with: one of GET /carriers',
      examples: ['sandbox_edi'],
    }),
  },
  { additionalProperties: false },
)

export const NewInstallmentGroup = Type.Object({ ...NewGroupInput.properties, group_setup: GroupSetup }, { additionalProperties: false })
export type NewInstallmentGroupT = Static<typeof NewInstallmentGroup>

const exampleInput = { ...exampleGroupInput, group_setup: { carrier_name: 'sandbox_edi' } }
export const CreateGroupInstallmentBody = Type.Object(
  { group: NewInstallmentGroup },
  { additionalProperties: false, examples: [{ group: exampleInput }] },
)

const exampleInstallment = {
  id: '0193a4b2-0000-7000-8000-000000000020',
  status: 'in_progress',
  carrier_name: 'sandbox_edi',
  group: exampleGroup,
  coverage_period_id: null,
  work_order_id: null,
  progress: [
    { step: 1, name: 'group', status: 'done' },
    { step: 2, name: 'coverage_period', status: 'pending' },
    { step: 3, name: 'plans', status: 'pending' },
    { step: 4, name: 'employment_classifications', status: 'optional' },
    { step: 5, name: 'subscribers', status: 'pending' },
    { step: 6, name: 'qualifying_life_events', status: 'pending' },
    { step: 7, name: 'complete_setup', status: 'pending' },
  ],
  created_at: '2026-11-22T09:30:00.000Z',
  updated_at: '2026-11-22T09:30:00.000Z',
}

export const GroupInstallmentResponse = Type.Object(
  { group_installment: GroupInstallmentSchema },
  { description: 'The group installment', examples: [{ group_installment: exampleInstallment }] },
)
export const GroupInstallmentList = Type.Object(
  { group_installments: Type.Array(GroupInstallmentSchema) },
  { description: 'One page of group installments; see the Total and Link headers', examples: [{ group_installments: [exampleInstallment] }] },
)
export const GroupInstallmentsQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })
