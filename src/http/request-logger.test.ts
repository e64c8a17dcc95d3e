import type { FastifyBaseLogger } from 'fastify'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { loggerOptions } from '../main/runtime.js'
import type { Config } from '../config.js'
import { RequestLogger, requestLoggerFactory } from './request-logger.js'

/** The service's logger options (redaction, the err serializer), writing to an array, at a fixed time. */
function serviceLogger(level = 'info') {
  const lines: string[] = []
  const options = loggerOptions({ logLevel: level } as Config) as object
  const logger = pino({ ...options, timestamp: () => ',"time":1' }, { write: (line: string) => void lines.push(line) })
  return { logger, lines }
}

const BINDINGS = { reqId: 'req-1' }

/** The same calls through pino's own child and through a RequestLogger: the lines each wrote. */
function bothWays(level: string, log: (logger: FastifyBaseLogger) => void) {
  const viaChild = serviceLogger(level)
  log(viaChild.logger.child(BINDINGS))
  const viaRequestLogger = serviceLogger(level)
  log(new RequestLogger(viaRequestLogger.logger, BINDINGS))
  return { child: viaChild.lines, requestLogger: viaRequestLogger.lines }
}

describe('the request logger', () => {
  it('when a request logs a plain object or a message, then the line is byte for byte what pino child would write', () => {
    const boom = new Error('boom')
    const { child, requestLogger } = bothWays('info', (l) => {
      l.info({ method: 'GET', path: '/users/1', status: 200, ms: 3 }, 'request completed')
      l.warn('rate limit store unavailable %s', 'now')
      l.error({ err: boom }, 'request failed unexpectedly')
      l.debug({ hidden: true }, 'below the level')
    })
    expect(requestLogger).toEqual(child)
    expect(requestLogger).toHaveLength(3)
    expect(JSON.parse(requestLogger[0]!)).toMatchObject({ reqId: 'req-1', method: 'GET', msg: 'request completed' })
  })

  it('when a request logs an Error itself, then it goes through a child and is serialized as pino would', () => {
    const broken = new Error('broken')
    const { child, requestLogger } = bothWays('info', (l) => l.error(broken, 'failed'))
    expect(requestLogger).toEqual(child)
    expect(JSON.parse(requestLogger[0]!)).toMatchObject({ reqId: 'req-1', err: { message: 'broken' } })
  })

  it("when a request's level is changed, then that request logs at its level and the parent keeps its own", () => {
    const { logger, lines } = serviceLogger('info')
    const log = new RequestLogger(logger, BINDINGS)
    log.level = 'debug'
    log.debug({ detail: 1 }, 'now visible')
    logger.debug('still hidden')
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['now visible'])
    expect(log.level).toBe('debug')
    expect(logger.level).toBe('info')
  })

  it('when a route sets its own level (the probes log at warn), then the factory gives pino child with it', () => {
    const { logger, lines } = serviceLogger('info')
    const probe = requestLoggerFactory(logger, BINDINGS, { level: 'warn' })
    probe.info('not written')
    expect(probe).not.toBeInstanceOf(RequestLogger)
    expect(lines).toEqual([])
    expect(requestLoggerFactory(logger, BINDINGS, {})).toBeInstanceOf(RequestLogger)
  })

  it('when a request logger makes a child, then it carries both bindings', () => {
    const { logger, lines } = serviceLogger('info')
    new RequestLogger(logger, BINDINGS).child({ component: 'census' }).info('hello')
    expect(JSON.parse(lines[0]!)).toMatchObject({ reqId: 'req-1', component: 'census', msg: 'hello' })
  })
})
