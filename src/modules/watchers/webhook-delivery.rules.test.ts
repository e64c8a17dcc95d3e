import { describe, expect, it } from 'vitest'
import { nextAttemptAt, verdictOf } from './webhook-delivery.rules.js'
import type { SendResult } from './webhook-sender.js'

const answered = (statusCode: number, excerpt = ''): SendResult => ({ statusCode, error: null, refused: false, excerpt, durationMs: 5 })
const unanswered = (error: string, refused = false): SendResult => ({ statusCode: null, error, refused, excerpt: '', durationMs: 5 })

describe('verdictOf', () => {
  it.each([200, 201, 202, 204, 299])('when the receiver answers %i, then the delivery succeeded', (status) => {
    expect(verdictOf(answered(status))).toEqual({ kind: 'succeeded' })
  })

  it.each([500, 502, 503, 504, 408, 429])('when the receiver answers %i, then the attempt is retried', (status) => {
    expect(verdictOf(answered(status, 'busy'))).toEqual({ kind: 'retryable', error: `HTTP ${status}: busy` })
  })

  it('when no answer came (timeout, connection failure), then the attempt is retried; when the address was refused, then not', () => {
    expect(verdictOf(unanswered('no response within 10000 ms'))).toEqual({ kind: 'retryable', error: 'no response within 10000 ms' })
    expect(verdictOf(unanswered('connection failed (ECONNREFUSED)'))).toEqual({ kind: 'retryable', error: 'connection failed (ECONNREFUSED)' })
    expect(verdictOf(unanswered('refused: resolves to a loopback address (127.0.0.1)', true))).toEqual({ kind: 'failed', error: 'refused: resolves to a loopback address (127.0.0.1)' })
  })

  it('when the receiver answers 410, then it is gone; a redirect or another 4xx fails at once', () => {
    expect(verdictOf(answered(410)).kind).toBe('gone')
    expect(verdictOf(answered(302))).toEqual({ kind: 'failed', error: 'HTTP 302: redirects are not followed; set the watcher URL to the final location' })
    expect(verdictOf(answered(400, 'bad signature'))).toEqual({ kind: 'failed', error: 'HTTP 400: bad signature' })
    expect(verdictOf(answered(401))).toEqual({ kind: 'failed', error: 'HTTP 401' })
  })
})

describe('nextAttemptAt', () => {
  const schedule = [0, 5, 300, 1800, 7200, 18000, 36000, 36000]
  const from = new Date('2026-11-22T09:00:00.000Z')

  it('when attempt n failed, then attempt n + 1 is due after the n-th delay of the schedule (0-based), and after the eighth none is', () => {
    expect(nextAttemptAt(schedule, 1, from)).toEqual(new Date('2026-11-22T09:00:05.000Z'))
    expect(nextAttemptAt(schedule, 2, from)).toEqual(new Date('2026-11-22T09:05:00.000Z'))
    expect(nextAttemptAt(schedule, 7, from)).toEqual(new Date('2026-11-22T19:00:00.000Z'))
    expect(nextAttemptAt(schedule, 8, from)).toBeNull()
  })
})
