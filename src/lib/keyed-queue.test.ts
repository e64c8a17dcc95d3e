import { describe, expect, it } from 'vitest'
import { KeyedQueue } from './keyed-queue.js'

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('KeyedQueue', () => {
  it('when calls share a key, then they run one after another in arrival order; other keys run alongside', async () => {
    const queue = new KeyedQueue()
    const log: string[] = []
    const job = (name: string) => async () => {
      log.push(`${name} start`)
      await tick()
      log.push(`${name} end`)
      return name
    }
    const results = await Promise.all([queue.run(['a'], job('a1')), queue.run(['a', 'b'], job('ab')), queue.run(['c'], job('c1')), queue.run(['b'], job('b1'))])
    expect(results).toEqual(['a1', 'ab', 'c1', 'b1'])
    expect(log.indexOf('a1 end')).toBeLessThan(log.indexOf('ab start'))
    expect(log.indexOf('ab end')).toBeLessThan(log.indexOf('b1 start'))
    // c shares no key: it started before a1 ended.
    expect(log.indexOf('c1 start')).toBeLessThan(log.indexOf('a1 end'))
  })

  it('when a call fails, then the next one for the key still runs and the failure reaches only its caller', async () => {
    const queue = new KeyedQueue()
    const failing = queue.run(['k'], async () => {
      throw new Error('boom')
    })
    const next = queue.run(['k'], async () => 'ran')
    await expect(failing).rejects.toThrow('boom')
    await expect(next).resolves.toBe('ran')
  })
})
