import { describe, expect, it } from 'vitest'
import { formatEventCursor } from './event-cursor.js'
import type { LoggedEvent } from './event-stream.repo.js'
import { DEFAULT_EVENT_STREAM_SETTINGS } from './event-stream.settings.js'
import { EventSubscription, type EndReason } from './event-stream.subscription.js'

const ACCOUNT = '0193a4b2-0000-7000-8000-000000000001'
const OTHER = '0193a4b2-0000-7000-8000-000000000002'
const everything = { accountId: undefined, types: undefined, coveragePeriodId: undefined, groupId: undefined }

function event(txId: number, seq: number, accountId = ACCOUNT): LoggedEvent {
  return { cursor: { txId: BigInt(txId), seq: BigInt(seq) }, accountId, coveragePeriodId: null, groupId: null, type: 'error.created', payload: `{"n":"${txId}-${seq}"}` }
}

/** The ids of the events written to the stream so far (the opening id-only block aside). */
function sentIds(subscription: EventSubscription): string[] {
  const text = String(subscription.output.read() ?? '')
  return [...text.matchAll(/^id: (.*)\nevent:/gm)].map((match) => match[1]!)
}

describe('EventSubscription', () => {
  it('when live events arrive while it catches up, then it sends the catch-up, then the live events after it, none twice and none lost', async () => {
    const subscription = new EventSubscription(everything, ACCOUNT, { txId: 10n, seq: 0n }, DEFAULT_EVENT_STREAM_SETTINGS)
    const pages = [[event(10, 1), event(11, 2)], [event(12, 3)]]
    await subscription.catchUp(async () => {
      const page = pages.shift() ?? []
      // The live feed overlaps the catch-up (12-3) and runs past it (13-4).
      if (page.length === 1) for (const live of [event(11, 2), event(12, 3), event(13, 4)]) subscription.offer(live)
      return page
    }, 2)
    subscription.offer(event(13, 4))
    subscription.offer(event(14, 5))
    expect(sentIds(subscription)).toEqual(['10-1', '11-2', '12-3', '13-4', '14-5'])
    expect(formatEventCursor(subscription.position)).toBe('14-5')
  })

  it('when an event is not its account\'s, then a partner stream drops it', () => {
    const subscription = new EventSubscription({ ...everything, accountId: ACCOUNT }, ACCOUNT, { txId: 1n, seq: 0n }, DEFAULT_EVENT_STREAM_SETTINGS)
    return subscription.catchUp(async () => [], 10).then(() => {
      subscription.offer(event(2, 1, OTHER))
      subscription.offer(event(2, 2, ACCOUNT))
      expect(sentIds(subscription)).toEqual(['2-2'])
    })
  })

  it('when its client does not read and the text waiting passes the bound, then the stream is cut as too slow', async () => {
    const subscription = new EventSubscription(everything, ACCOUNT, { txId: 1n, seq: 0n }, { ...DEFAULT_EVENT_STREAM_SETTINGS, maxBufferedBytes: 2000 })
    const reasons: EndReason[] = []
    subscription.onEnd((reason) => reasons.push(reason))
    await subscription.catchUp(async () => [], 10)
    for (let seq = 1; seq <= 200 && !subscription.ended; seq++) subscription.offer(event(2, seq))
    expect(reasons).toEqual(['too_slow'])
    expect(subscription.output.destroyed).toBe(true)
  })

  it('when the live feed piles up past its bound during a catch-up, then the stream ends as too slow', async () => {
    const subscription = new EventSubscription(everything, ACCOUNT, { txId: 1n, seq: 0n }, { ...DEFAULT_EVENT_STREAM_SETTINGS, maxPendingEvents: 3 })
    const reasons: EndReason[] = []
    subscription.onEnd((reason) => reasons.push(reason))
    await subscription.catchUp(async () => {
      for (let seq = 1; seq <= 5; seq++) subscription.offer(event(2, seq))
      return []
    }, 10)
    expect(reasons).toEqual(['too_slow'])
  })
})
