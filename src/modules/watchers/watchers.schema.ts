import { Type, type Static } from 'typebox'
import { Nullable, PaginationQuery, Timestamp, Uuid } from '../../http/schemas.js'
import { EVENT_TYPES } from '../events/events.js'

export const EventTypeSchema = Type.Enum([...EVENT_TYPES], { description: 'An event to be told about' })
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'http or https URL that receives the deliveries (POST). No user name or password in it; it may not point at a loopback, ' +
    'private, link-local or other internal address unless the deployment allows it (WEBHOOK_ALLOW_PRIVATE_URLS; loopback is ' +
      'allowed by default outside production on the embedded database)',
  examples: ['https://hooks.example.com/enrollsync'],
})
const EventTypes = Type.Array(EventTypeSchema, { minItems: 1, maxItems: EVENT_TYPES.length, description: 'The events to deliver, each once' })
const Description = Type.String({ maxLength: 500, description: 'Free text for your own reference' })
const CoveragePeriodFilter = Type.String({ format: 'uuid', description: 'Only events of this coverage period (one your credential sees)' })
const GroupFilter = Type.String({ format: 'uuid', description: 'Only events of this group (one your credential sees)' })
const WatcherStatus = Type.Enum(['active', 'disabled'])

export const WatcherInputSchema = Type.Object(
  {
    url: Url,
    event_types: EventTypes,
    coverage_period_id: Type.Optional(Nullable(CoveragePeriodFilter)),
    group_id: Type.Optional(Nullable(GroupFilter)),
    description: Type.Optional(Nullable(Description)),
  },
  { additionalProperties: false },
)
export type WatcherInput = Static<typeof WatcherInputSchema>

const inputExample = {
  url: 'https://hooks.example.com/enrollsync',
  event_types: ['error.created', 'error.returned'],
  coverage_period_id: null,
  group_id: '0193a4b2-0000-7000-8000-000000000010',
  description: 'Errors of Acme Corp for the benefits team',
}

export const CreateWatcherBody = Type.Object({ watcher: WatcherInputSchema }, { additionalProperties: false, examples: [{ watcher: inputExample }] })

export const WatcherUpdateSchema = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    coverage_period_id: Type.Optional(Nullable(CoveragePeriodFilter)),
    group_id: Type.Optional(Nullable(GroupFilter)),
    description: Type.Optional(Nullable(Description)),
    status: Type.Optional({ ...WatcherStatus, description: '`active` re-enables a watcher (one disabled after its receiver answered 410, say); `disabled` stops deliveries' }),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type WatcherUpdate = Static<typeof WatcherUpdateSchema>

export const UpdateWatcherBody = Type.Object(
  { watcher: WatcherUpdateSchema },
  { additionalProperties: false, examples: [{ watcher: { status: 'active' } }, { watcher: { event_types: ['error.created'], group_id: null } }] },
)

const watcherProperties = {
  id: Uuid,
  account_id: Uuid,
  url: Type.String(),
  event_types: Type.Array(EventTypeSchema),
  coverage_period_id: Nullable(Uuid),
  group_id: Nullable(Uuid),
  description: Nullable(Type.String()),
  status: { ...WatcherStatus, description: '`disabled` watchers receive nothing: disabled through PATCH or after the receiver answered 410 Gone' },
  disabled_reason: Nullable(Type.String({ description: 'Why the watcher was disabled' })),
  previous_secret_expires_at: Nullable({ ...Timestamp, description: 'Until then, the secret replaced by the last rotation signs beside the current one' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}

export const WatcherSchema = Type.Object(watcherProperties, { additionalProperties: false })
export type Watcher = Static<typeof WatcherSchema>

export const WatcherWithSecretSchema = Type.Object(
  {
    ...watcherProperties,
    secret: Type.String({ description: 'The signing secret (Standard Webhooks, whsec_...): shown only in this answer, keep it safe' }),
  },
  { additionalProperties: false },
)
export type WatcherWithSecret = Static<typeof WatcherWithSecretSchema>

const example = {
  id: '0193a4b2-0000-7000-8000-000000000070',
  account_id: '0193a4b2-0000-7000-8000-000000000001',
  ...inputExample,
  status: 'active',
  disabled_reason: null,
  previous_secret_expires_at: null,
  created_at: '2026-11-22T09:30:00.000Z',
  updated_at: '2026-11-22T09:30:00.000Z',
}
const secretExample = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7E5RvLkPsQk='

export const WatcherResponse = Type.Object({ watcher: WatcherSchema }, { description: 'The watcher', examples: [{ watcher: example }] })
export const WatcherWithSecretResponse = Type.Object(
  { watcher: WatcherWithSecretSchema },
  { description: 'The watcher with its signing secret, shown this once', examples: [{ watcher: { ...example, secret: secretExample } }] },
)
export const WatcherList = Type.Object(
  { watchers: Type.Array(WatcherSchema) },
  { description: 'One page of watchers, oldest first; see the Total and Link headers', examples: [{ watchers: [example] }] },
)
export const WatchersQuery = Type.Object(
  { ...PaginationQuery.properties, status: Type.Optional(WatcherStatus) },
  { additionalProperties: false },
)

const AttemptSchema = Type.Object(
  {
    attempt: Type.Integer({ description: '1 for the first' }),
    started_at: Timestamp,
    duration_ms: Type.Integer(),
    status_code: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when none came (timeout, connection error, refused address)" })),
    error: Nullable(Type.String({ description: 'What went wrong, with at most a short excerpt of the response body' })),
    outcome: Type.Enum(['succeeded', 'failed']),
  },
  { additionalProperties: false },
)

export const DeliverySchema = Type.Object(
  {
    id: { ...Uuid, description: 'Sent as webhook-id, the same on every attempt: receivers drop duplicates by it' },
    watcher_id: Uuid,
    event_id: Uuid,
    event_type: EventTypeSchema,
    status: Type.Enum(['pending', 'succeeded', 'failed'], { description: 'pending while attempts remain; succeeded on a 2xx; failed when no attempt is left or none may be made' }),
    attempts: Type.Integer({ description: 'Attempts made so far' }),
    next_attempt_at: Nullable({ ...Timestamp, description: 'When the next attempt is due (pending deliveries)' }),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    delivered_at: Nullable(Timestamp),
    payload: Type.Unknown({ description: 'The body sent: {id, type, timestamp, account_id, data}; ids and statuses only, never personal data' }),
    attempt_history: Type.Array(AttemptSchema, { description: 'Every attempt, oldest first' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
)
export type Delivery = Static<typeof DeliverySchema>

const deliveryExample = {
  id: '0193a4b2-0000-7000-8000-000000000080',
  watcher_id: example.id,
  event_id: '0193a4b2-0000-7000-8000-000000000081',
  event_type: 'error.created',
  status: 'succeeded',
  attempts: 2,
  next_attempt_at: null,
  last_status_code: 200,
  last_error: null,
  delivered_at: '2026-11-22T09:30:05.210Z',
  payload: {
    id: '0193a4b2-0000-7000-8000-000000000081',
    type: 'error.created',
    timestamp: '2026-11-22T09:30:00.000Z',
    account_id: example.account_id,
    data: { error_id: '0193a4b2-0000-7000-8000-000000000090', status: 'unresolved', assignee: 'partner' },
  },
  attempt_history: [
    { attempt: 1, started_at: '2026-11-22T09:30:00.020Z', duration_ms: 10003, status_code: null, error: 'no response within 10000 ms', outcome: 'failed' },
    { attempt: 2, started_at: '2026-11-22T09:30:05.100Z', duration_ms: 110, status_code: 200, error: null, outcome: 'succeeded' },
  ],
  created_at: '2026-11-22T09:30:00.000Z',
  updated_at: '2026-11-22T09:30:05.210Z',
}

export const DeliveryResponse = Type.Object({ watcher_delivery: DeliverySchema }, { description: 'The delivery with every attempt', examples: [{ watcher_delivery: deliveryExample }] })
export const DeliveryList = Type.Object(
  { watcher_deliveries: Type.Array(DeliverySchema) },
  { description: "One page of the watcher's deliveries, newest first; see the Total and Link headers", examples: [{ watcher_deliveries: [deliveryExample] }] },
)
export const DeliveriesQuery = Type.Object(
  { ...PaginationQuery.properties, status: Type.Optional(Type.Enum(['pending', 'succeeded', 'failed'])) },
  { additionalProperties: false },
)
