/** How webhooks are delivered; from the WEBHOOK_* variables (src/config.ts). */
export interface WebhookSettings {
  /** A receiver that has not answered (status line and headers) by then is cut off. */
  readonly timeoutMs: number
  /** Delay before each attempt, in seconds (the first is 0): its length is the number of attempts. */
  readonly retryScheduleSeconds: readonly number[]
  /** Let watchers call loopback, private and link-local addresses (development, private networks). */
  readonly allowPrivateUrls: boolean
  /** Let watchers call loopback addresses only (a receiver on the same machine: embedded development). */
  readonly allowLoopbackUrls: boolean
  /** How long the previous secret keeps signing beside the new one after a rotation. */
  readonly secretOverlapSeconds: number
  /**
   * Deliveries a worker sends at once, in slots of their own (see createWorkers); also the most
   * connections it keeps to one receiver.
   */
  readonly concurrency: number
  /** Watchers an account may have (deleted ones do not count). */
  readonly watchersPerAccountLimit: number
  /** Consecutive connection failures or timeouts after which a destination is backed off. */
  readonly hostFailureThreshold: number
  /** How long the first back-off lasts; each failed probe doubles it, up to an hour. */
  readonly hostBackoffSeconds: number
}

/** Immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts over about a day and a half. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS = [0, 5, 300, 1800, 7200, 18000, 36000, 36000] as const

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = Object.freeze({
  timeoutMs: 10_000,
  retryScheduleSeconds: DEFAULT_RETRY_SCHEDULE_SECONDS,
  allowPrivateUrls: false,
  allowLoopbackUrls: false,
  secretOverlapSeconds: 86_400,
  // A delivery mostly waits (on its receiver, on the batch that records it), and the deliveries
  // running together share a burst's statements: with 64 slots a delivery cost about half the CPU
  // (worker and PostgreSQL) it did with 16, and a burst drained faster (bench/RESULTS.md, issue 16).
  concurrency: 64,
  watchersPerAccountLimit: 25,
  hostFailureThreshold: 5,
  hostBackoffSeconds: 30,
})

/** The longest a destination is blocked, however often its probes fail. */
export const MAX_HOST_BACKOFF_SECONDS = 3600

export const DEFAULT_WORKER_STALE_AFTER_MS = 300_000
