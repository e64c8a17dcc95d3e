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

// Terse: openapi.json is near its size budget (test/openapi-components.test.ts); docs/event-stream.md says more.
const DESCRIPTION =
  "Watchers' events (same types, body and tenancy: a partner key its account's, an operator's every account's) as " +
  'server-sent events on one open response; EventSource works (the console session cookie authenticates it), as does ' +
  '`curl -N`. It opens with `retry:` and an `id:` of the start; each event is `id: <cursor>`, `event: <type>`, ' +
  '`data: <body JSON>`; `: keep-alive` every 15 s. `event_types` (comma-separated or repeated), `coverage_period_id` and ' +
  "`group_id` filter as for watchers (another account's ids match nothing). Resume by sending the last `id:` in " +
  '`Last-Event-ID` (or `last_event_id`): every later event follows in commit order, none twice; without it, only new ' +
  'events. Events are kept 7 days: an older id resumes from the oldest kept. An event waits until every transaction ' +
  'begun before it has ended, so a long write (a census) delays later events until it ends. 10 streams per account per ' +
  'instance; a client that stops reading is disconnected, and streams end after an hour and on shutdown: reconnect ' +
  'with `Last-Event-ID`.'

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
          ...problemResponses('validation_failed', 'invalid_last_event_id', 'event_stream_limit_reached'),
        },
      },
    },
    async (request, reply) => {
      const actor = requireActor(request)
      const filter = streamFilter(accountScopeOf(actor), request.query)
      const after = resumption(request.headers['last-event-id'], request.query.last_event_id)
      reply
        .header('Content-Type', 'text/event-stream; charset=utf-8')
        .header('Cache-Control', 'no-store')
        // nginx buffers responses by default, which would hold events back.
        .header('X-Accel-Buffering', 'no')
      // Fastify's HEAD twin of this route drains the body it is given without ever ending it: a
      // stream opened for HEAD would hold one of the account's streams for an hour.
      // Asked whether GET would be refused, HEAD answers as GET would (a cursor ahead of the log: 400).
      const streamRequest = { ownerAccountId: actor.accountId, filter, ...after }
      if (request.method === 'HEAD') {
        await hub.refusal(streamRequest)
        return reply.send()
      }
      const stream = await hub.open(streamRequest)
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
    // Lower case already (validation.ts canonicalises uuids in the URL): the live feed compares
    // them with each event's ids as text.
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
