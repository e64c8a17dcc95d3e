import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../../db/schema.js'
import { httpError } from '../../http/problem.js'
import type { EventCursor } from './event-cursor.js'
import { eventStreamLimitReached, invalidLastEventId } from './event-stream.errors.js'
import { EVERY_EVENT, readEventsAfter, readLogHorizon, type EventFilter } from './event-stream.repo.js'
import type { EventStreamSettings } from './event-stream.settings.js'
import { EventSubscription } from './event-stream.subscription.js'

// On shutdown a stream's remaining text gets this long to reach its client before the connection
// is cut, so closing the app never waits on a client that stopped reading.
const SHUTDOWN_GRACE_MS = 1000

export interface StreamRequest {
  /** The caller's account: its streams are counted against EVENT_STREAMS_PER_ACCOUNT. */
  ownerAccountId: string
  filter: EventFilter
  /** Resume strictly after this position; undefined: only new events. */
  after: EventCursor | undefined
  /** Where `after` came from, for the problem naming it. */
  afterSource: 'Last-Event-ID' | 'last_event_id'
}

/**
 * The process's one reader of the event log, shared by every open stream: while at least one is
 * open it reads every account's new events every pollMs (at once again after a full page) and
 * offers each to every stream, which keeps those its filter selects. With no stream open it reads
 * nothing. A stream resuming from a cursor catches up with reads of its own first (see
 * EventSubscription). Polling rather than LISTEN/NOTIFY: it works the same on the single
 * connection of the embedded database and on PostgreSQL behind a pooler, and costs one indexed
 * query per interval per process.
 */
export class EventHub {
  readonly #subscriptions = new Set<EventSubscription>()
  readonly #perAccount = new Map<string, number>()
  /** The last position read by the poller; meaningful while it runs. */
  #position: EventCursor = { txId: 0n, seq: 0n }
  #running = false
  #closed = false
  #wake: (() => void) | undefined
  #heartbeat: NodeJS.Timeout | undefined
  #loop: Promise<void> = Promise.resolve()
  #failing = false

  constructor(
    private readonly db: Db,
    private readonly settings: EventStreamSettings,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Open streams (tests, metrics). */
  get size(): number {
    return this.#subscriptions.size
  }

  /**
   * Throws what opening this stream would answer instead of a stream (too many streams, a cursor
   * past the end of the log), without opening it; answers the log's horizon. HEAD asks this
   * alone, so it answers as GET would.
   */
  async refusal(request: StreamRequest): Promise<Awaited<ReturnType<typeof readLogHorizon>>> {
    this.#refuseWhenClosed()
    const open = this.#perAccount.get(request.ownerAccountId) ?? 0
    if (open >= this.settings.streamsPerAccount) throw eventStreamLimitReached(this.settings.streamsPerAccount)
    const horizon = await readLogHorizon(this.db)
    if (request.after !== undefined && request.after.txId > horizon.next) throw invalidLastEventId(request.afterSource, 'ahead')
    return horizon
  }

  /**
   * A new stream, joined to the live feed, not yet caught up (call catchUp once its answer is on
   * its way). Throws the problems a client can cause before anything is sent: too many streams, a
   * cursor past the end of the log.
   */
  async open(request: StreamRequest): Promise<EventSubscription> {
    const horizon = await this.refusal(request)
    // Counted again after the await: several opens of one account may have waited together.
    if ((this.#perAccount.get(request.ownerAccountId) ?? 0) >= this.settings.streamsPerAccount) {
      throw eventStreamLimitReached(this.settings.streamsPerAccount)
    }
    this.#refuseWhenClosed()
    const subscription = new EventSubscription(request.filter, request.ownerAccountId, request.after ?? horizon.start, this.settings)
    this.#subscriptions.add(subscription)
    // A poller not yet running starts at the horizon read here, before this stream's first
    // catch-up read: the catch-up then sees every event before the poller's start (their
    // transactions had ended), and the poller every event after it. Nothing awaits from here on,
    // so the stream is in the feed before its catch-up begins.
    if (!this.#running) this.#start(horizon.start)
    this.#perAccount.set(request.ownerAccountId, (this.#perAccount.get(request.ownerAccountId) ?? 0) + 1)
    const expiry = setTimeout(() => subscription.end('expired'), this.settings.maxStreamMs)
    expiry.unref()
    subscription.onEnd(() => {
      clearTimeout(expiry)
      this.#subscriptions.delete(subscription)
      const left = (this.#perAccount.get(request.ownerAccountId) ?? 1) - 1
      if (left > 0) this.#perAccount.set(request.ownerAccountId, left)
      else this.#perAccount.delete(request.ownerAccountId)
    })
    return subscription
  }

  /** Sends the stream what it missed, then lets the live feed through; a failure ends the stream (the client resumes). */
  async catchUp(subscription: EventSubscription): Promise<void> {
    try {
      await subscription.catchUp((after) => readEventsAfter(this.db, after, subscription.filter, this.settings.pageSize), this.settings.pageSize)
    } catch (error) {
      this.log.warn({ err: error }, 'event stream could not catch up; ended, the client resumes with Last-Event-ID')
      subscription.end('failed')
    }
  }

  /** Ends every stream (their clients reconnect elsewhere) and stops reading; for app.close(). */
  async close(): Promise<void> {
    this.#closed = true
    const ending = [...this.#subscriptions].map((subscription) => {
      const output = subscription.output
      const cut = setTimeout(() => output.destroy(), SHUTDOWN_GRACE_MS)
      output.once('close', () => clearTimeout(cut))
      subscription.end('shutdown')
      return new Promise<void>((resolve) => (output.closed ? resolve() : output.once('close', () => resolve())))
    })
    this.#wake?.()
    await Promise.all([this.#loop, ...ending])
  }

  #refuseWhenClosed(): void {
    if (this.#closed) throw httpError('service_unavailable', 'This instance is shutting down. Retry: another instance will answer.')
  }

  #start(from: EventCursor): void {
    this.#running = true
    this.#position = from
    this.#heartbeat = setInterval(() => {
      for (const subscription of this.#subscriptions) subscription.heartbeat()
    }, this.settings.heartbeatMs)
    this.#heartbeat.unref()
    this.#loop = this.#poll()
  }

  async #poll(): Promise<void> {
    try {
      while (!this.#closed && this.#subscriptions.size > 0) {
        const page = await this.#readPage()
        for (const event of page) {
          this.#position = event.cursor
          for (const subscription of this.#subscriptions) subscription.offer(event)
        }
        if (page.length < this.settings.pageSize) await this.#sleep(this.settings.pollMs)
      }
    } finally {
      clearInterval(this.#heartbeat)
      this.#running = false
    }
  }

  /** The next page of the live feed; none while the database fails (logged once per outage, streams stay open). */
  async #readPage() {
    try {
      const page = await readEventsAfter(this.db, this.#position, EVERY_EVENT, this.settings.pageSize)
      if (this.#failing) this.log.info('event stream reads the event log again')
      this.#failing = false
      return page
    } catch (error) {
      if (!this.#failing) this.log.warn({ err: error }, 'event stream cannot read the event log; retrying')
      this.#failing = true
      return []
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.#wake = done
    })
  }
}
