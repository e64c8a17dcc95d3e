import { hostname } from 'node:os'
import type { FastifyBaseLogger } from 'fastify'
import type { Db, JobRow } from '../db/schema.js'
import { uuidv7 } from '../lib/ids.js'
import type { JobRegistry } from './job-definition.js'
import { claimDueJobs, findJob, recordAttempt, releaseStaleJobs, type AttemptRecord } from './jobs.repo.js'
import { DEFAULT_WORKER_DEAD_AFTER_MS, DEFAULT_WORKER_HEARTBEAT_MS, WorkerHeartbeat } from './worker-heartbeat.js'

export interface WorkerOptions {
  db: Db
  registry: JobRegistry
  log: FastifyBaseLogger
  concurrency: number
  pollMs: number
  /**
   * A running job older than this, held by a worker without a heartbeat row (an older release's,
   * or one that only drains), is presumed orphaned. A heartbeating worker's jobs are never stale.
   */
  staleAfterMs?: number
  /** How often a started worker beats (WORKER_HEARTBEAT_MS, 5 s). */
  heartbeatMs?: number
  /** A worker silent this long is presumed dead and its running jobs released (WORKER_DEAD_AFTER_MS, 30 s). */
  deadAfterMs?: number
  /** Extra work done every poll (housekeeping); failures are logged, never fatal. */
  onPoll?: () => Promise<void>
}

/**
 * Polls the outbox and runs due jobs, at most `concurrency` at a time. Runs in the API process
 * (default) or alone (`npm run worker`); any number of workers may share one PostgreSQL.
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${uuidv7().slice(-8)}`
  private readonly running = new Set<Promise<void>>()
  /**
   * Attempts that finished but could not be recorded (the database was away). A heartbeating
   * worker's jobs are never released as stale, so the worker records them itself on later polls.
   */
  private readonly unrecorded: AttemptRecord[] = []
  private timer: NodeJS.Timeout | undefined
  private stopping = false
  private started = false
  private polling: Promise<void> | undefined
  /** The last poll filled every free slot: more jobs may be due than it could take. */
  private backlog = false
  private readonly heartbeat: WorkerHeartbeat
  /** The first beat, awaited by the first poll so this worker's jobs are never held unregistered. */
  private registered: Promise<void> | undefined

  constructor(private readonly options: WorkerOptions) {
    this.heartbeat = new WorkerHeartbeat({
      db: options.db,
      workerId: this.id,
      log: options.log,
      intervalMs: options.heartbeatMs ?? DEFAULT_WORKER_HEARTBEAT_MS,
      deadAfterMs: options.deadAfterMs ?? DEFAULT_WORKER_DEAD_AFTER_MS,
    })
  }

  /** Starts beating and polling. Workers that only drain (tests, the CLI) have no heartbeat. */
  start(): void {
    this.stopping = false
    this.started = true
    this.registered = this.heartbeat.start()
    this.schedule(0)
  }

  /**
   * Stops claiming, then waits for the jobs already running to finish, beating meanwhile so a
   * long job is not taken for orphaned; then removes the worker's heartbeat row.
   */
  async stop(): Promise<void> {
    this.stopping = true
    this.started = false
    if (this.timer) clearTimeout(this.timer)
    await this.polling
    await Promise.allSettled([...this.running])
    // What is still unrecorded is released with the heartbeat row (deregister).
    await this.recordLeftOverAttempts().catch((error: unknown) => this.options.log.error({ err: error }, 'could not record left-over job attempts'))
    await this.heartbeat.stop()
  }

  /** One poll: claim what fits in the free slots and start it. Answers how many were claimed. */
  async runOnce(): Promise<number> {
    const { db, concurrency, staleAfterMs = 300_000 } = this.options
    if (this.started) {
      await this.registered
      await this.heartbeat.judge()
    }
    await releaseStaleJobs(db, staleAfterMs)
    await this.recordLeftOverAttempts()
    const free = concurrency - this.running.size
    if (free <= 0) return 0
    const jobs = await claimDueJobs(db, this.id, free, this.options.registry.names())
    this.backlog = jobs.length === free
    for (const job of jobs) {
      const run = this.execute(job).finally(() => {
        this.running.delete(run)
        this.onSlotFreed()
      })
      this.running.add(run)
    }
    return jobs.length
  }

  /** Runs polls until no due job is left and nothing is running: for tests and the CLI. */
  async drain(): Promise<void> {
    for (;;) {
      const claimed = await this.runOnce()
      if (claimed === 0 && this.running.size === 0) return
      await Promise.race([...this.running])
    }
  }

  /**
   * A slot came free while jobs were left waiting (the last poll filled every slot): claim now
   * rather than after the poll interval, or a burst would drain at one batch per interval.
   */
  private onSlotFreed(): void {
    if (!this.backlog || !this.started || this.stopping || this.polling) return
    if (this.timer) clearTimeout(this.timer)
    this.schedule(0)
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return
    this.timer = setTimeout(() => {
      this.polling = this.poll().finally(() => {
        this.polling = undefined
      })
    }, delayMs)
    this.timer.unref()
  }

  private async poll(): Promise<void> {
    let claimed = 0
    try {
      await this.options.onPoll?.()
      claimed = await this.runOnce()
    } catch (error) {
      this.options.log.error({ err: error }, 'worker poll failed')
    }
    // A full batch with slots still free suggests more is waiting: poll again at once. With every
    // slot busy, sleep; a finishing job wakes the worker early (onSlotFreed).
    const free = this.options.concurrency - this.running.size
    this.schedule(claimed > 0 && this.backlog && free > 0 ? 0 : this.options.pollMs)
  }

  private async execute(job: JobRow): Promise<void> {
    const { db, registry, log } = this.options
    const startedAt = new Date()
    const definition = registry.get(job.name)
    let error: string | null = null
    let retryable = true
    try {
      // Only registered names are claimed; this guards a registry changed while running.
      if (!definition) {
        retryable = false
        throw new Error(`no handler is registered for job ${job.name}`)
      }
      if (!definition.check(job.payload)) {
        retryable = false
        throw new Error(`payload of job ${job.name} does not match its schema`)
      }
      await definition.handle(job.payload, { db, log: log.child({ jobId: job.id, job: job.name }), jobId: job.id, attempt: job.attempts })
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure)
      log.warn({ jobId: job.id, job: job.name, attempt: job.attempts, error }, 'job attempt failed')
    }
    const finishedAt = new Date()
    const retryAt =
      error !== null && retryable && definition && job.attempts < job.max_attempts
        ? new Date(finishedAt.getTime() + definition.backoffMs(job.attempts))
        : null
    const record: AttemptRecord = { job, workerId: this.id, startedAt, finishedAt, error, retryAt }
    try {
      await recordAttempt(db, record)
    } catch (failure) {
      // The job stays `running`: recorded on a later poll, else released at this worker's clean
      // stop or when it is presumed dead. Never lost, at worst retried.
      log.error({ err: failure, jobId: job.id }, 'could not record a job attempt')
      this.unrecorded.push(record)
    }
  }

  /** Records the attempts that could not be recorded when they finished, oldest first. */
  private async recordLeftOverAttempts(): Promise<void> {
    while (this.unrecorded.length > 0) {
      const record = this.unrecorded[0]!
      // The first try may have committed with its answer lost: record only a job still held.
      const job = await findJob(this.options.db, record.job.id)
      if (job?.status === 'running' && job.locked_by === this.id) await recordAttempt(this.options.db, record)
      this.unrecorded.shift()
    }
  }
}
