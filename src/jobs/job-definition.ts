import type { FastifyBaseLogger } from 'fastify'
import type { Static, TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import type { Db } from '../db/schema.js'
import type { AttemptRecord } from './jobs.repo.js'

export interface JobContext {
  db: Db
  log: FastifyBaseLogger
  jobId: string
  /** 1 for the first run. */
  attempt: number
  /**
   * For a handler that writes its result in a transaction: record the attempt as succeeded in that
   * same transaction (writeAttemptRecords with `succeeded()`), one commit instead of two, then say
   * so with `committed()` once it has committed; the worker then records nothing more for it. A
   * handler that never calls `committed()` is recorded by the worker as before.
   */
  completion: JobCompletion
}

export interface JobCompletion {
  /** This attempt as succeeded, finishing now. */
  succeeded(): AttemptRecord
  /** The transaction that wrote `succeeded()` committed. */
  committed(): void
}

export interface JobDefinition<S extends TSchema = TSchema> {
  name: string
  payload: S
  maxAttempts: number
  /** Delay before the next attempt after `attempt` failed; exponential by default. */
  backoffMs: (attempt: number) => number
  handle: (payload: Static<S>, context: JobContext) => Promise<void>
  /** Checks a payload against the schema (compiled once). */
  check: (payload: unknown) => payload is Static<S>
}

/** 1 s, 2 s, 4 s ... capped at one hour. */
export function exponentialBackoff(attempt: number): number {
  return Math.min(3_600_000, 1000 * 2 ** Math.max(0, attempt - 1))
}

/** What enqueueing needs: a job's name, payload schema and attempt limit, without its handler. */
export type JobSpec<S extends TSchema = TSchema> = Pick<JobDefinition<S>, 'name' | 'payload' | 'maxAttempts' | 'check'>

/**
 * A job's spec alone, for a job whose handler is built later with run-time dependencies (the
 * webhook delivery needs configuration): producers enqueue with the spec, the registry gets
 * `{ ...spec, handle, backoffMs }`.
 */
export function defineJobSpec<S extends TSchema>(spec: { name: string; payload: S; maxAttempts?: number }): JobSpec<S> {
  const validator = Compile(spec.payload)
  return {
    name: spec.name,
    payload: spec.payload,
    maxAttempts: spec.maxAttempts ?? 10,
    check: (payload: unknown): payload is Static<S> => validator.Check(payload),
  }
}

export function defineJob<S extends TSchema>(spec: {
  name: string
  payload: S
  maxAttempts?: number
  backoffMs?: (attempt: number) => number
  handle: (payload: Static<S>, context: JobContext) => Promise<void>
}): JobDefinition<S> {
  const validator = Compile(spec.payload)
  return {
    name: spec.name,
    payload: spec.payload,
    maxAttempts: spec.maxAttempts ?? 10,
    backoffMs: spec.backoffMs ?? exponentialBackoff,
    handle: spec.handle,
    check: (payload: unknown): payload is Static<S> => validator.Check(payload),
  }
}

/** name -> definition, for the worker to find a handler. */
export class JobRegistry {
  private readonly definitions = new Map<string, JobDefinition>()

  constructor(definitions: JobDefinition[] = []) {
    for (const definition of definitions) this.register(definition)
  }

  register(definition: JobDefinition): void {
    if (this.definitions.has(definition.name)) throw new Error(`Job ${definition.name} is registered twice`)
    this.definitions.set(definition.name, definition)
  }

  get(name: string): JobDefinition | undefined {
    return this.definitions.get(name)
  }

  names(): string[] {
    return [...this.definitions.keys()]
  }
}
