import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions } from 'pino'
import { isPlainObject } from '../lib/plain-object.js'

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'

/**
 * The logger of one request (`request.log`), which makes pino's child logger only when something
 * needs one. pino's child() builds an object with its own method per level on every call, and
 * Fastify asks for one per request, while almost every request logs only its access line. A line
 * given as a message or a plain object is written through the parent instead, with the request's
 * bindings (the request id) as the object's first fields: pino writes a child's bindings right
 * after the parent's, before the object's fields, so the JSON is the same, byte for byte.
 * Anything else (an Error, a changed level, a grandchild) makes the child and goes through it.
 */
export class RequestLogger implements FastifyBaseLogger {
  private own: FastifyBaseLogger | undefined

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  get level(): string {
    return (this.own ?? this.parent).level
  }

  set level(level: string) {
    this.ownChild().level = level
  }

  fatal(obj: unknown, ...rest: unknown[]): void {
    this.write('fatal', obj, rest)
  }

  error(obj: unknown, ...rest: unknown[]): void {
    this.write('error', obj, rest)
  }

  warn(obj: unknown, ...rest: unknown[]): void {
    this.write('warn', obj, rest)
  }

  info(obj: unknown, ...rest: unknown[]): void {
    this.write('info', obj, rest)
  }

  debug(obj: unknown, ...rest: unknown[]): void {
    this.write('debug', obj, rest)
  }

  trace(obj: unknown, ...rest: unknown[]): void {
    this.write('trace', obj, rest)
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.ownChild().child(bindings, options)
  }

  private write(level: Level, obj: unknown, rest: unknown[]): void {
    if (this.own === undefined) {
      // The level is the parent's until someone changes it, which makes the child.
      if (typeof obj === 'string') return this.parent[level](this.bindings, obj, ...rest)
      // Object.assign onto a literal: an object made by spreading the bindings first took pino
      // four times as long to write (measured), as if it had left V8's fast object shapes.
      if (isPlainObject(obj)) return this.parent[level](Object.assign({}, this.bindings, obj), ...(rest as [string?]))
    }
    // pino's log methods take their overloads as (obj, msg?, ...args); the arguments pass on as they came.
    ;(this.ownChild()[level] as (obj: unknown, ...rest: unknown[]) => void)(obj, ...rest)
  }

  private ownChild(): FastifyBaseLogger {
    this.own ??= this.parent.child(this.bindings)
    return this.own
  }
}

/**
 * Fastify's childLoggerFactory: a RequestLogger, unless the route sets its own level or
 * serializers (the probes log at `warn`), which pino's child applies.
 */
export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return Object.keys(options).length === 0 ? new RequestLogger(logger, bindings) : logger.child(bindings, options)
}
