import { Type, type Static } from 'typebox'
import { PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

export const GroupSchema = Type.Object(
  {
    id: Uuid,
    account_id: Uuid,
    external_identifier: Type.String(),
    organization_name: Type.String(),
    insurance_market: Type.String(),
    phase: Type.Enum(['installation', 'member_management']),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
)
export type Group = Static<typeof GroupSchema>

export const GroupsQuery = Type.Object({ ...PaginationQuery.properties }, { additionalProperties: false })
export const GroupList = Type.Object(
  { groups: Type.Array(GroupSchema) },
  { description: 'One page of groups; see the Total and Link headers', examples: [{ groups: [{ id: '0193a4b2-0000-7000-8000-000000000004', account_id: '0193a4b2-0000-7000-8000-000000000001', external_identifier: 'acme-widgets', organization_name: 'Acme Widgets Inc.', insurance_market: 'small_group', phase: 'installation', created_at: '2026-11-22T09:30:00.000Z', updated_at: '2026-11-22T09:30:00.000Z' }] }] },
)
