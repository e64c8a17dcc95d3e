import { Type, type Static } from 'typebox'
import { Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

export const AuditEventSchema = Type.Object(
  {
    id: Uuid,
    account_id: Type.String({ format: 'uuid', description: 'Account that owns the changed resource' }),
    actor_account_id: Nullable(Type.String({ format: 'uuid', description: 'Account of the credential that made the change' })),
    api_key_id: Nullable(Uuid),
    channel: Type.Enum(['api', 'cli', 'system']),
    request_id: Nullable(Type.String()),
    action: Type.String({ examples: ['api_key.revoked'] }),
    resource_type: Type.String({ examples: ['api_key'] }),
    resource_id: Uuid,
    created_at: Timestamp,
  },
  { additionalProperties: false },
)
export type AuditEvent = Static<typeof AuditEventSchema>

export const AuditEventsQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    account_id: Type.Optional(Uuid),
    action: Type.Optional(Type.String({ maxLength: 100 })),
    resource_type: Type.Optional(Type.String({ maxLength: 100 })),
    resource_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
)

export const AuditEventList = Type.Object({ audit_events: Type.Array(AuditEventSchema) })
