import type { FastifyBaseLogger } from 'fastify'
import type { Executor } from '../db/schema.js'
import { beat, deregister, releaseJobsOfDeadWorkers, type Judgement } from './worker-liveness.repo.js'

export const DEFAULT_WORKER_HEARTBEAT_MS = 5_000
export const DEFAULT_WORKER_DEAD_AFTER_MS = 30_000

export interface HeartbeatOptions {
  db: Executor
  workerId: string
  log: FastifyBaseLogger
  /** How often the worker beats (WORKER_HEARTBEAT_MS). */
  intervalMs: number
  /** Silence after which a worker is presumed dead (WORKER_DEAD_AFTER_MS). */
  deadAfterMs: number
}

/**
 * A started worker's heartbeat in `worker_heartbeats`. It beats from a timer on the event loop, so
 * it keeps going while jobs await I/O (and the 834 build yields every few families); a
 * synchronous stretch longer than the dead window silences it, and other workers then release
 * its jobs and run them again (at least once). When it beats again it registers anew and says so.
 */
export class WorkerHeartbeat {
  private timer: NodeJS.Timeout | undefined
  private beating: Promise<void> | undefined
  private startedAt: Date | undefined
  private lastJudgedAt = Number.NEGATIVE_INFINITY

  constructor(private readonly options: HeartbeatOptions) {}

  /** A beat later than this after the previous one breaks the worker's run of punctual beats. */
  private get lateAfterMs(): number {
    return 2 * this.options.intervalMs
  }

  /** Beats now (the returned promise settles with that first beat), then every interval. */
  start(): Promise<void> {
    if (!this.timer) {
      this.timer = setInterval(() => void this.beat(), this.options.intervalMs)
      this.timer.unref()
    }
    return this.beat()
  }

  /**
   * Releases the jobs of workers silent past the dead window, when this worker may judge. At most
   * a few times per beat: a burst makes the worker poll again at every freed slot, and a judgement
   * a fifth of a beat late changes nothing against a window of several beats.
   */
  async judge(): Promise<Judgement> {
    const { db, workerId, log, intervalMs } = this.options
    if (performance.now() - this.lastJudgedAt < intervalMs / 5) return { deadWorkers: [], releasedJobs: 0 }
    this.lastJudgedAt = performance.now()
    const judgement = await releaseJobsOfDeadWorkers(db, workerId, { lateAfterMs: this.lateAfterMs })
    if (judgement.deadWorkers.length > 0) {
      log.warn({ deadWorkers: judgement.deadWorkers, releasedJobs: judgement.releasedJobs }, 'workers presumed dead; their running jobs were released')
    }
    return judgement
  }

  /** A clean stop: no more beats, the row goes, and jobs this worker could not record are released. */
  async stop(): Promise<void> {
    if (!this.timer) return
    clearInterval(this.timer)
    this.timer = undefined
    await this.beating
    this.startedAt = undefined
    try {
      const released = await deregister(this.options.db, this.options.workerId)
      if (released > 0) this.options.log.warn({ releasedJobs: released }, 'released jobs whose attempts this worker could not record')
    } catch (error) {
      // The row stays and ages: other workers presume this one dead after the window.
      this.options.log.error({ err: error }, 'could not remove the worker heartbeat')
    }
  }

  /** One beat at a time: a beat still waiting for the database is not joined by another. */
  private beat(): Promise<void> {
    this.beating ??= this.beatOnce().finally(() => {
      this.beating = undefined
    })
    return this.beating
  }

  private async beatOnce(): Promise<void> {
    const { db, workerId, log, deadAfterMs } = this.options
    try {
      const { startedAt } = await beat(db, workerId, { lateAfterMs: this.lateAfterMs, deadAfterMs })
      if (this.startedAt && startedAt.getTime() !== this.startedAt.getTime()) {
        log.warn({ workerId, deadAfterMs }, 'this worker was presumed dead (silent past the dead window): its running jobs were released and may run twice')
      }
      this.startedAt = startedAt
    } catch (error) {
      log.warn({ err: error, workerId }, 'worker heartbeat failed')
    }
  }
}
