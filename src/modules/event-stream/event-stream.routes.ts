import type { TSchema } from 'typebox'
import type { App } from '../../http/app-types.js'
import { requireActor } from '../../http/guard.js'
import { httpError } from '../../http/problem.js'
import { problemResponses } from '../../http/schemas.js'
import { accountScopeOf } from '../../lib/actor.js'
import type { Db } from '../../db/schema.js'
import { EVENT_TYPES, type EventType } from '../events/events.js'
import { parseEventCursor } from './event-cursor.js'
import { invalidLastEventId } from './event-stream.errors.js'
import { EventHub, type StreamRequest } from './event-stream.hub.js'
import type { EventFilter } from './event-stream.repo.js'
import { EventStreamHeaders, EventStreamQuery, EventStreamResponse } from './event-stream.schema.js'
import type { EventStreamSettings } from './event-stream.settings.js'

const DESCRIPTION = `The events watchers receive, as [server-sent events](https://html.spec.whatwg.org/multipage/server-sent-events.html)
over one long-lived response (\`text/event-stream\`, \`Cache-Control: no-store\`): the same event types, the same body
(\`{id, type, timestamp, account_id, data}\`: ids and statuses, never personal data; \`id\` is the event id the watchers'
deliveries carry) and the same tenancy: a partner credential receives its own account's events, an operator (service)
credential every account's. Works with the browser's \`EventSource\` (the console's session cookie authenticates it) and
with \`curl -N\`.

**Format.** The stream opens with \`retry:\` (the reconnection delay) and an \`id:\` naming the start position. Each
event is \`id: <cursor>\\nevent: <type>\\ndata: <body JSON>\\n\\n\`. A comment line \`: keep-alive\` every 15 s keeps
proxies from closing a quiet stream.

**Filters.** \`event_types\` (comma-separated or repeated; 422 for a value that is not an event type),
\`coverage_period_id\` and \`group_id\` narrow the stream as they narrow a watcher. An id of another account's coverage
period or group matches nothing.

**Resuming.** The \`id:\` of an event is an opaque cursor. Send the last one received in \`Last-Event-ID\` (EventSource
does so by itself when it reconnects) or, for clients that cannot set headers, in \`last_event_id\` (the header wins when
both are sent): the stream then sends every event after it, in order, none twice, before the new ones. Without one it
starts with new events. A malformed id, or one from another database, answers 400 \`invalid_last_event_id\`. Events are
kept 7 days (EVENT_LOG_RETENTION_DAYS): a cursor older than that resumes from the oldest event kept.

**Ordering and delays.** Events arrive in the order their changes committed, within seconds. An event is handed out only
once every transaction that began before it has ended, so that none can appear later before a cursor already given out:
while a long write (a census reconciliation, a large installation) runs, events committed after it began wait until it ends.

**Connections.** At most 10 streams per account per instance (EVENT_STREAMS_PER_ACCOUNT; 429 \`event_stream_limit_reached\`);
opening one counts as one call against the rate limit. A client that stops reading falls behind and is disconnected, as
is every stream after an hour and when the instance shuts down: reconnect with \`Last-Event-ID\` and nothing is missed.`

/** GET /events/stream and the one hub serving its streams, which app.close() ends. */
export function eventStreamRoutes(app: App, db: Db, settings: EventStreamSettings): EventHub {
  const hub = new EventHub(db, settings, app.log.child({ component: 'event-stream' }))
  // preClose, before the server stops: open streams would otherwise keep it waiting.
  app.addHook('preClose', async () => hub.close())

  app.get(
    '/events/stream',
    {
      config: { auth: 'any' },
      // Compressed, events would wait in the compressor's buffer instead of going out.
      compress: false,
      schema: {
        operationId: 'streamEvents',
        summary: 'Receive events live (server-sent events)',
        description: DESCRIPTION,
        tags: ['Watchers'],
        querystring: EventStreamQuery,
        headers: EventStreamHeaders,
        response: {
          // Declared as raw content per media type, as problemResponses does for problems.
          200: EventStreamResponse as unknown as TSchema,
          ...problemResponses('validation_failed', 'invalid_last_event_id', 'event_stream_limit_reached', 'service_unavailable'),
        },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request)
      const stream = await hub.open({ ownerAccountId: actor.accountId, filter: streamFilter(accountScopeOf(actor), request.query), ...resumption(request.headers['last-event-id'], request.query.last_event_id) })
      reply
        .header('Content-Type', 'text/event-stream; charset=utf-8')
        .header('Cache-Control', 'no-store')
        // nginx buffers responses by default, which would hold events back.
        .header('X-Accel-Buffering', 'no')
      void hub.catchUp(stream)
      return reply.send(stream.output)
    },
  )
  return hub
}

function streamFilter(accountId: string | undefined, query: EventStreamQuery): EventFilter {
  return {
    accountId,
    types: eventTypes(query.event_types),
    coveragePeriodId: query.coverage_period_id,
    groupId: query.group_id,
  }
}

function eventTypes(value: string | string[] | undefined): EventType[] | undefined {
  if (value === undefined) return undefined
  const names = [value]
    .flat()
    .flatMap((text) => text.split(','))
    .map((name) => name.trim())
  const unknown = names.filter((name) => !(EVENT_TYPES as readonly string[]).includes(name))
  if (unknown.length > 0) {
    throw httpError('validation_failed', 'event_types names an event type that does not exist.', [
      { parameter: 'event_types', code: 'invalid_value', detail: `must be one of: ${EVENT_TYPES.join(', ')}` },
    ])
  }
  return [...new Set(names as EventType[])]
}

/** The cursor to resume after: the header (which EventSource updates as events arrive) before the query parameter. */
function resumption(header: string | undefined, parameter: string | undefined): Pick<StreamRequest, 'after' | 'afterSource'> {
  const [text, source] = header !== undefined && header !== '' ? [header, 'Last-Event-ID' as const] : [parameter, 'last_event_id' as const]
  if (text === undefined || text === '') return { after: undefined, afterSource: source }
  const after = parseEventCursor(text.trim())
  if (!after) throw invalidLastEventId(source, 'malformed')
  return { after, afterSource: source }
}
