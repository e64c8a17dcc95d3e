import { describe, expect, it } from 'vitest'
import { createDatabaseOutageReporter } from './database-outage.js'
import { isDatabaseUnavailable, isUniqueViolation } from './sql-errors.js'

const withCode = (message: string, code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), { code, ...extra })
const socketError = (code: string, syscall: string) => withCode(`${syscall} ${code} 127.0.0.1:5432`, code, { syscall, address: '127.0.0.1', port: 5432 })

describe('isDatabaseUnavailable', () => {
  it('when PostgreSQL shuts down, is starting or refuses the connection, then the database is unavailable (503)', () => {
    for (const code of ['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006']) {
      expect(isDatabaseUnavailable(withCode('server says no', code)), code).toBe(true)
    }
  })

  it('when the socket to the server is refused, reset or unroutable, then the database is unavailable', () => {
    expect(isDatabaseUnavailable(socketError('ECONNREFUSED', 'connect'))).toBe(true)
    expect(isDatabaseUnavailable(socketError('ECONNRESET', 'read'))).toBe(true)
    expect(isDatabaseUnavailable(socketError('EPIPE', 'write'))).toBe(true)
    expect(isDatabaseUnavailable(socketError('ENOTFOUND', 'getaddrinfo'))).toBe(true)
    // Node reports a refused connect to both address families as one AggregateError.
    expect(isDatabaseUnavailable(Object.assign(new AggregateError([socketError('ECONNREFUSED', 'connect')]), { code: 'ECONNREFUSED' }))).toBe(true)
  })

  it('when node-postgres or its pool lose or cannot get a connection, then the database is unavailable', () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated',
      'Client has encountered a connection error and is not queryable',
      'Client was closed and is not queryable',
      'timeout exceeded when trying to connect',
      'Cannot use a pool after calling end on the pool',
    ]) {
      expect(isDatabaseUnavailable(new Error(message)), message).toBe(true)
    }
    // The pool's connect timeout wraps the socket's error.
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: new Error('Connection terminated due to connection timeout') }))).toBe(true)
  })

  it('when the query itself is at fault or a client aborts its upload, then it is not an outage (the usual mapping applies)', () => {
    expect(isDatabaseUnavailable(withCode('duplicate key value violates unique constraint', '23505'))).toBe(false)
    expect(isDatabaseUnavailable(withCode('invalid byte sequence for encoding "UTF8": 0x00', '22021'))).toBe(false)
    expect(isDatabaseUnavailable(withCode('could not serialize access', '40001'))).toBe(false)
    expect(isDatabaseUnavailable(withCode('canceling statement due to statement timeout', '57014'))).toBe(false)
    // Node's "aborted" request stream says ECONNRESET too, but names no syscall: the client left.
    expect(isDatabaseUnavailable(withCode('aborted', 'ECONNRESET'))).toBe(false)
    expect(isDatabaseUnavailable(new Error('Connection to the carrier terminated'))).toBe(false)
    expect(isDatabaseUnavailable(undefined)).toBe(false)
    expect(isDatabaseUnavailable('Connection terminated unexpectedly')).toBe(false)
    expect(isUniqueViolation(withCode('duplicate', '23505'))).toBe(true)
  })
})

describe('database outage report', () => {
  it('when every request of an outage fails alike, then one warning per 10 seconds counts them instead of one line each', () => {
    let now = 0
    const lines: { count: unknown; message: string }[] = []
    const log = { warn: (fields: { requestsAnswered503: unknown }, message: string) => lines.push({ count: fields.requestsAnswered503, message }) }
    const report = createDatabaseOutageReporter(() => now)
    // `never`: pino's overloaded LogFn; the reporter calls only warn(fields, message).
    for (let i = 0; i < 50; i++) {
      report(log as never, new Error('Connection terminated unexpectedly'))
      now += 100
    }
    // 50 failures within 5 s: one line, at the first.
    expect(lines).toEqual([{ count: 1, message: expect.stringContaining('database unreachable') }])
    // The next one after the interval counts the 49 left unreported and itself.
    now += 10_000
    report(log as never, new Error('Connection terminated unexpectedly'))
    expect(lines[1]).toEqual({ count: 50, message: expect.stringContaining('503 database_unavailable') })
  })
})
