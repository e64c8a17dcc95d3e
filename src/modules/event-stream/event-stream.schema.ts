import { Type, type Static } from 'typebox'
import { EVENT_TYPES } from '../events/events.js'

const CURSOR_DESCRIPTION =
  'The `id:` of the last event received, exactly as sent (an opaque cursor); the stream resumes strictly after it'

// Values are checked against EVENT_TYPES by the route, so a wrong one is named in the problem.
const EventTypesText = Type.String({
  maxLength: 400,
  description: `Comma-separated event types; one of: ${EVENT_TYPES.join(', ')}`,
  examples: ['error.created,error.returned'],
})

export const EventStreamQuery = Type.Object(
  {
    event_types: Type.Optional(
      Type.Union([EventTypesText, Type.Array(EventTypesText, { maxItems: EVENT_TYPES.length })], {
        description: `Only these events: comma-separated, repeated, or both (one of: ${EVENT_TYPES.join(', ')}). All of them by default.`,
      }),
    ),
    coverage_period_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only events of this coverage period' })),
    group_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only events of this group' })),
    last_event_id: Type.Optional(
      Type.String({ maxLength: 64, description: `${CURSOR_DESCRIPTION}, for clients that cannot send the Last-Event-ID header; the header wins when both are sent` }),
    ),
  },
  { additionalProperties: false },
)
export type EventStreamQuery = Static<typeof EventStreamQuery>

export const EventStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ maxLength: 64, description: `${CURSOR_DESCRIPTION}. EventSource sends it by itself when it reconnects.`, examples: ['1234567-89012'] }),
  ),
})

const example =
  'retry: 3000\nid: 1234567-0\n\n' +
  'id: 1234570-89012\nevent: error.created\n' +
  'data: {"id":"0193a4b2-7c1d-7e8f-9a0b-1c2d3e4f5a6b","type":"error.created","timestamp":"2025-01-06T14:03:11.512Z",' +
  '"account_id":"0193a4b2-0000-7000-8000-000000000001","data":{"error_id":"0193a4b2-7c1d-7e8f-9a0b-000000000042","status":"unresolved"}}\n\n' +
  ': keep-alive\n\n'

/** The 200 of GET /events/stream in OpenAPI terms: a text/event-stream, sent as it happens, never serialised. */
export const EventStreamResponse = {
  description: 'A server-sent event stream (text/event-stream) that stays open',
  headers: {
    'Cache-Control': { schema: { type: 'string', const: 'no-store' }, description: 'Never cached' },
  },
  content: {
    'text/event-stream': {
      schema: {
        type: 'string',
        description:
          'Blocks separated by a blank line: first `retry:` and the start position as `id:`, then for each event `id:` (the ' +
          'cursor), `event:` (its type) and `data:` (the webhook body as one line of JSON), and a `: keep-alive` comment every 15 s.',
        examples: [example],
      },
    },
  },
}
