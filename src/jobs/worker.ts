import { hostname } from 'node:os'
import type { FastifyBaseLogger } from 'fastify'
import type { Db, JobRow } from '../db/schema.js'
import { uuidv7 } from '../lib/ids.js'
import { Batcher } from './batcher.js'
import type { JobCompletion, JobRegistry } from './job-definition.js'
import { claimDue, findJob, recordAttempt, releaseStaleJobs, writeAttemptRecords, type AttemptRecord, type ClaimCursor } from './jobs.repo.js'
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

/** How long a worker's claims may read on from its cursors before one reads every backlog from the start. */
const FULL_CLAIM_EVERY_MS = 1000

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
  /**
   * More may be waiting than the last claim took (it filled every free slot, or was capped for a
   * destination not yet trusted), so a freed slot claims again at once.
   */
  private backlog = false
  /** Jobs with a fairness key were due at the last claim (a burst of deliveries). */
  private fairDue = false
  /** The last claim filled every slot it was asked to. */
  private claimFilled = false
  /**
   * Per account, the last job this worker claimed: during a burst, claims read each account's
   * backlog on from there (claimFairly says why), and without them at least every
   * FULL_CLAIM_EVERY_MS, to find what was left behind.
   */
  private cursors = new Map<string, ClaimCursor>()
  /** Per account (fairness key), the jobs this worker is running: a claim's rounds start from them (claimDue). */
  private readonly runningPerAccount = new Map<string, number>()
  private fullClaimAt = Number.NEGATIVE_INFINITY
  /** When this worker last looked for stale jobs (performance.now()). */
  private staleCheckedAt = Number.NEGATIVE_INFINITY
  /**
   * Finished attempts are recorded together: the attempts of jobs finishing close together share
   * one transaction (one commit, whose WAL flush is the dearest part), not one each.
   */
  private readonly attemptWriter = new Batcher<AttemptRecord, void>(
    async (records) => {
      await this.options.db.transaction().execute((tx) => writeAttemptRecords(tx, records))
      return records.map(() => undefined)
    },
    { maxBatch: 200, maxInFlight: 2 },
  )
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
    // A heartbeating worker polls at every freed slot during a burst; stale jobs (minutes old by
    // definition) need not be looked for that often.
    if (!this.started || performance.now() - this.staleCheckedAt >= Math.min(1000, staleAfterMs / 4)) {
      this.staleCheckedAt = performance.now()
      await releaseStaleJobs(db, staleAfterMs)
    }
    await this.recordLeftOverAttempts()
    const free = concurrency - this.running.size
    if (free <= 0) return 0
    const burst = this.backlog && this.fairDue
    // A claim cut short may have left jobs behind the cursors: the next one reads from the start.
    const readOn = burst && this.claimFilled && this.cursors.size > 0 && performance.now() - this.fullClaimAt < FULL_CLAIM_EVERY_MS
    const claim = await claimDue(db, this.id, free, this.options.registry.names(), {
      expectFair: burst,
      slots: concurrency,
      running: this.runningPerAccount,
      ...(readOn ? { cursors: [...this.cursors.values()] } : {}),
    })
    const { jobs, due, fair } = claim
    // Worth claiming again as soon as a slot frees: the claim filled every free slot, or left due
    // jobs behind (a cap for a receiver not yet trusted), or took none of those due. A claim that
    // took all it saw (a trickle of new jobs) waits for the poll interval, so a steady trickle is
    // claimed in batches rather than one claim per finished job.
    this.backlog = jobs.length === free || claim.more === true || (jobs.length === 0 && due)
    this.fairDue = fair === true
    this.claimFilled = jobs.length === free
    if (claim.readOn === false) {
      this.cursors = new Map()
      this.fullClaimAt = performance.now()
    }
    for (const cursor of claim.cursors ?? []) this.cursors.set(cursor.key, cursor)
    for (const job of jobs) {
      const account = job.fairness_key
      if (account !== null) this.runningPerAccount.set(account, (this.runningPerAccount.get(account) ?? 0) + 1)
      const run = this.execute(job).finally(() => {
        if (account !== null) {
          const left = this.runningPerAccount.get(account)! - 1
          if (left === 0) this.runningPerAccount.delete(account)
          else this.runningPerAccount.set(account, left)
        }
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
   * A slot came free while jobs may be left waiting (see `backlog`): claim now
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
    // Jobs claimed with more due and slots still free: poll again at once. With every slot busy, or
    // nothing claimable (capped), sleep; a finishing job wakes the worker early (onSlotFreed).
    const free = this.options.concurrency - this.running.size
    this.schedule(claimed > 0 && this.backlog && free > 0 ? 0 : this.options.pollMs)
  }

  private async execute(job: JobRow): Promise<void> {
    const { db, registry, log } = this.options
    const startedAt = new Date()
    const definition = registry.get(job.name)
    let error: string | null = null
    let retryable = true
    let recordedByHandler = false
    const completion: JobCompletion = {
      succeeded: () => ({ job, workerId: this.id, startedAt, finishedAt: new Date(), error: null, retryAt: null }),
      committed: () => {
        recordedByHandler = true
      },
    }
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
      await definition.handle(job.payload, { db, log: log.child({ jobId: job.id, job: job.name }), jobId: job.id, attempt: job.attempts, completion })
    } catch (failure) {
      // Recorded as succeeded with the handler's own writes: what failed after cannot undo that.
      if (recordedByHandler) {
        log.error({ err: failure, jobId: job.id, job: job.name }, 'job failed after its success was recorded')
        return
      }
      error = failure instanceof Error ? failure.message : String(failure)
      log.warn({ jobId: job.id, job: job.name, attempt: job.attempts, error }, 'job attempt failed')
    }
    const finishedAt = new Date()
    const retryAt =
      error !== null && retryable && definition && job.attempts < job.max_attempts
        ? new Date(finishedAt.getTime() + definition.backoffMs(job.attempts))
        : null
    if (recordedByHandler) return
    const record: AttemptRecord = { job, workerId: this.id, startedAt, finishedAt, error, retryAt }
    try {
      await this.attemptWriter.add(record)
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
