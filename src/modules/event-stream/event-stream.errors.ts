import { DomainError } from '../../lib/domain-error.js'

export type EventStreamErrorCode = 'invalid_last_event_id' | 'event_stream_limit_reached'

export const invalidLastEventId = (source: 'Last-Event-ID' | 'last_event_id', reason: 'malformed' | 'ahead') =>
  new DomainError<EventStreamErrorCode>(
    'invalid_last_event_id',
    reason === 'malformed'
      ? `${source} is not an event id of this stream: send the id: of the last event received, unchanged, or leave it out to start with new events.`
      : `${source} names a position this service has not reached (an id from another deployment or database?). Leave it out to start with new events.`,
  )

export const eventStreamLimitReached = (limit: number) =>
  new DomainError<EventStreamErrorCode>(
    'event_stream_limit_reached',
    `Your account already has ${limit} event streams open on this instance, the most it may have. Close one, or share one stream between your consumers.`,
  )
