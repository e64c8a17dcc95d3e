import { Type, type Static } from 'typebox'
import { Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'

export const AuditEventSchema = Type.Object(
  {
    id: Uuid,
    account_id: Type.String({ format: 'uuid', description: 'Account that owns the changed resource' }),
    actor_account_id: Nullable(Type.String({ format: 'uuid', description: 'Account of the credential that made the change' })),
    api_key_id: Nullable(Uuid),
    api_key_name: Nullable(Type.String({ description: 'The name of that API key' })),
    actor_user_id: Nullable(Type.String({ format: 'uuid', description: 'The signed-in user who made the change in the console (channel console)' })),
    actor_user_email: Nullable(Type.String({ description: "That user's email" })),
    channel: Type.Enum(['api', 'cli', 'system', 'console']),
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
    actor_user_id: Type.Optional(Type.String({ format: 'uuid', description: 'Changes made in the console by this signed-in user' })),
    created_after: Type.Optional(Type.String({ format: 'date-time', description: 'Events at or after this instant (ISO 8601)' })),
    created_before: Type.Optional(Type.String({ format: 'date-time', description: 'Events strictly before this instant (ISO 8601): a day is [its midnight, the next midnight)' })),
  },
  { additionalProperties: false },
)

export const AuditEventList = Type.Object(
  { audit_events: Type.Array(AuditEventSchema) },
  { description: 'One page of audit events, newest first', examples: [{ audit_events: [{ id: '0193a4b2-0000-7000-8000-000000000005', account_id: '0193a4b2-0000-7000-8000-000000000001', actor_account_id: '0193a4b2-0000-7000-8000-000000000009', api_key_id: '0193a4b2-0000-7000-8000-000000000008', api_key_name: 'production integration', actor_user_id: null, actor_user_email: null, channel: 'api', request_id: '0193a4b2-7c1d-7e8f-9a0b-1c2d3e4f5a6b', action: 'api_key.revoked', resource_type: 'api_key', resource_id: '0193a4b2-0000-7000-8000-000000000002', created_at: '2026-11-22T09:30:00.000Z' }] }] },
)
