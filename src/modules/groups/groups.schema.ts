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
export const GroupList = Type.Object({ groups: Type.Array(GroupSchema) })
