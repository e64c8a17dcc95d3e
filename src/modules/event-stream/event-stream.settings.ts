/** How GET /events/stream serves (EVENT_STREAM_* variables for the first two; the rest fixed). */
export interface EventStreamSettings {
  /** How often the process reads the event log while at least one stream is open. */
  pollMs: number
  /** Streams one account may hold open on one instance; one more answers 429. */
  streamsPerAccount: number
  /** A comment line this often keeps proxies and load balancers from closing a quiet stream. */
  heartbeatMs: number
  /** The reconnection delay suggested to EventSource (`retry:`). */
  retryMs: number
  /** Text a stream may have waiting for its client; past it the client is too slow and is disconnected. */
  maxBufferedBytes: number
  /** Events a stream still catching up may hold from the live feed; past it, it is disconnected. */
  maxPendingEvents: number
  /** Rows read per query, catching up and polling. */
  pageSize: number
  /**
   * A stream ends after this long and the client reconnects with Last-Event-ID, which
   * authenticates it again: a revoked key or ended console session stops receiving within it.
   */
  maxStreamMs: number
}

export const DEFAULT_EVENT_STREAM_SETTINGS: Readonly<EventStreamSettings> = Object.freeze({
  pollMs: 500,
  streamsPerAccount: 10,
  heartbeatMs: 15_000,
  retryMs: 3000,
  maxBufferedBytes: 1024 * 1024,
  maxPendingEvents: 10_000,
  pageSize: 500,
  maxStreamMs: 3_600_000,
})

/** How long event_log rows are kept by default (EVENT_LOG_RETENTION_DAYS). */
export const DEFAULT_EVENT_LOG_RETENTION_DAYS = 7
