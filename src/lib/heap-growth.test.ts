import { describe, expect, it } from 'vitest'
import { boundedHeapGrowthJobs, withBoundedHeapGrowth } from './heap-growth.js'

describe('withBoundedHeapGrowth', () => {
  it('when jobs overlap, then the cap holds until the last one ends, and a failing job releases it too', async () => {
    let release!: () => void
    const first = withBoundedHeapGrowth(50, () => new Promise<string>((resolve) => (release = () => resolve('first'))))
    expect(boundedHeapGrowthJobs()).toBe(1)
    await expect(withBoundedHeapGrowth(50, async () => {
      expect(boundedHeapGrowthJobs()).toBe(2)
      throw new Error('build failed')
    })).rejects.toThrow('build failed')
    expect(boundedHeapGrowthJobs()).toBe(1)
    release()
    await expect(first).resolves.toBe('first')
    expect(boundedHeapGrowthJobs()).toBe(0)
  })

  it('when asked to collect first, then what was garbage before the job is gone when it starts', async () => {
    const made = () => new WeakRef({ rows: new Array(10_000).fill('row') })
    const weak = made()
    // A WeakRef keeps its target for the rest of the task that made it: the job starts in the next.
    await new Promise((resolve) => setImmediate(resolve))
    await expect(withBoundedHeapGrowth(100, async () => weak.deref() === undefined, { collectFirst: true })).resolves.toBe(true)
    expect(boundedHeapGrowthJobs()).toBe(0)
  })

  it('when the percent is 0, then V8 keeps its own policy and the work still runs', async () => {
    await expect(withBoundedHeapGrowth(0, async () => boundedHeapGrowthJobs())).resolves.toBe(0)
  })
})
