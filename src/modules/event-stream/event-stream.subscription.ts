import { once } from 'node:events'
import { PassThrough } from 'node:stream'
import { compareEventCursors, formatEventCursor, type EventCursor } from './event-cursor.js'
import type { EventFilter, LoggedEvent } from './event-stream.repo.js'
import type { EventStreamSettings } from './event-stream.settings.js'

type Limits = Pick<EventStreamSettings, 'maxBufferedBytes' | 'maxPendingEvents' | 'retryMs'>

export type EndReason = 'client_left' | 'too_slow' | 'shutdown' | 'expired' | 'failed'

/** Whether a stream with this filter receives the event: the same selection watchers make. */
export function selects(filter: EventFilter, event: LoggedEvent): boolean {
  return (
    (filter.accountId === undefined || filter.accountId === event.accountId) &&
    (filter.types === undefined || filter.types.includes(event.type)) &&
    (filter.coveragePeriodId === undefined || filter.coveragePeriodId === event.coveragePeriodId) &&
    (filter.groupId === undefined || filter.groupId === event.groupId)
  )
}

/**
 * One open stream: its filter, the last position sent, and the text on its way to the client.
 *
 * It first catches up from its cursor with its own reads while the hub's live feed, which it joined
 * before the first read, piles up in `pending`; then it sends what is pending and takes the feed
 * directly. Both sources are in cursor order and overlap, so anything at or before the position
 * already sent is dropped: no gap and no duplicate.
 */
export class EventSubscription {
  readonly output = new PassThrough()
  #position: EventCursor
  #state: 'catching_up' | 'live' | 'ended' = 'catching_up'
  #pending: LoggedEvent[] = []
  readonly #endListeners: ((reason: EndReason) => void)[] = []

  constructor(
    readonly filter: EventFilter,
    /** The account whose stream count this stream takes. */
    readonly ownerAccountId: string,
    start: EventCursor,
    private readonly limits: Limits,
  ) {
    this.#position = start
    // The client's retry delay, and the start position as the last event id: a client that
    // reconnects before any event arrives resumes here instead of "now", so it misses nothing.
    // (An id without data sets EventSource's lastEventId and dispatches no event.)
    this.#write(`retry: ${limits.retryMs}\nid: ${formatEventCursor(start)}\n\n`)
    // Fastify destroys the stream when the client goes away.
    this.output.once('close', () => this.end('client_left'))
  }

  get position(): EventCursor {
    return this.#position
  }

  get ended(): boolean {
    return this.#state === 'ended'
  }

  onEnd(listener: (reason: EndReason) => void): void {
    this.#endListeners.push(listener)
  }

  /** An event of the live feed (every account's, in cursor order). */
  offer(event: LoggedEvent): void {
    if (this.#state === 'ended' || !selects(this.filter, event)) return
    if (this.#state === 'live') return this.#send(event)
    this.#pending.push(event)
    if (this.#pending.length > this.limits.maxPendingEvents) this.end('too_slow')
  }

  /**
   * Sends what the log holds after the position, page by page (`read` answers the next page; a
   * short page means the readable end was reached), waiting for the client between pages, then
   * turns live.
   */
  async catchUp(read: (after: EventCursor) => Promise<LoggedEvent[]>, pageSize: number): Promise<void> {
    for (;;) {
      const page = await read(this.#position)
      for (const event of page) this.#send(event)
      if (this.#state === 'ended' || page.length < pageSize) break
      await this.#drained()
    }
    if (this.#state === 'ended') return
    const pending = this.#pending
    this.#pending = []
    this.#state = 'live'
    for (const event of pending) this.#send(event)
  }

  heartbeat(): void {
    this.#write(': keep-alive\n\n')
  }

  end(reason: EndReason): void {
    if (this.#state === 'ended') return
    this.#state = 'ended'
    this.#pending = []
    // A client too slow to read may not read at all: what waits for it is dropped with the
    // connection (it resumes from the last event it did receive). Otherwise the text still
    // waiting is sent before the stream ends.
    if (reason === 'too_slow') this.output.destroy()
    else this.output.end()
    for (const listener of this.#endListeners) listener(reason)
  }

  #send(event: LoggedEvent): void {
    if (this.#state === 'ended' || compareEventCursors(event.cursor, this.#position) <= 0) return
    this.#position = event.cursor
    // The payload is JSON text without line breaks, so it is one data: line.
    this.#write(`id: ${formatEventCursor(event.cursor)}\nevent: ${event.type}\ndata: ${event.payload}\n\n`)
  }

  #write(text: string): void {
    if (this.#state === 'ended') return
    this.output.write(text)
    // Text waiting in this stream; the socket's own buffer is bounded by the pipe's backpressure.
    if (this.output.writableLength + this.output.readableLength > this.limits.maxBufferedBytes) this.end('too_slow')
  }

  async #drained(): Promise<void> {
    if (!this.output.writableNeedDrain) return
    await Promise.race([once(this.output, 'drain'), once(this.output, 'close')])
  }
}
