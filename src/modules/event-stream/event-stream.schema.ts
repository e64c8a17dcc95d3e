import { Type, type Static } from 'typebox'
import { EVENT_TYPES } from '../events/events.js'

// Values are checked against EVENT_TYPES by the route, so a wrong one is named in the problem.
const EventTypesText = Type.String({ maxLength: 400 })

export const EventStreamQuery = Type.Object(
  {
    event_types: Type.Optional(
      Type.Union([EventTypesText, Type.Array(EventTypesText, { maxItems: EVENT_TYPES.length })], {
        description: 'Only these event types (comma-separated or repeated)',
        examples: ['error.created,error.returned'],
      }),
    ),
    coverage_period_id: Type.Optional(Type.String({ format: 'uuid' })),
    group_id: Type.Optional(Type.String({ format: 'uuid' })),
    last_event_id: Type.Optional(Type.String({ maxLength: 64, description: 'As Last-Event-ID, which wins when both are sent' })),
  },
  { additionalProperties: false },
)
export type EventStreamQuery = Static<typeof EventStreamQuery>

export const EventStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(Type.String({ maxLength: 64, description: 'The last `id:` received: resume after it' })),
})

/** The 200 of GET /events/stream in OpenAPI terms: a text/event-stream, sent as it happens, never serialised. */
export const EventStreamResponse = {
  description: 'The event stream; it stays open',
  content: {
    'text/event-stream': {
      schema: { type: 'string', examples: ['retry: 3000\nid: 7001-0\n\nid: 7004-812\nevent: error.created\ndata: {"id":"...","type":"error.created",...}\n\n'] },
    },
  },
}
