import { describe, expect, it } from 'vitest'
import { BatchWrites } from './batch-writes.js'

/** A write that ends when told to: resolve() or reject(). */
function controlledWrite() {
  let resolve!: () => void
  let reject!: (error: Error) => void
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('BatchWrites', () => {
  it('keeps at most `depth` batches in flight, starting the next as the oldest ends', async () => {
    const writes = new BatchWrites(2)
    const batches = [controlledWrite(), controlledWrite(), controlledWrite()]
    const started: number[] = []
    await writes.start(() => (started.push(0), batches[0]!.promise))
    await writes.start(() => (started.push(1), batches[1]!.promise))
    const third = writes.start(() => (started.push(2), batches[2]!.promise))
    await settle()
    expect(started).toEqual([0, 1])

    batches[0]!.resolve()
    await third
    expect(started).toEqual([0, 1, 2])
    batches[1]!.resolve()
    batches[2]!.resolve()
    await writes.done()
  })

  it('fails with the first error only once every batch in flight has ended, so none writes after a rollback', async () => {
    const writes = new BatchWrites(2)
    const failing = controlledWrite()
    const slow = controlledWrite()
    await writes.start(() => failing.promise)
    await writes.start(() => slow.promise)
    let slowEnded = false
    void slow.promise.then(() => (slowEnded = true))

    const done = writes.done()
    let outcome: unknown = 'pending'
    done.then(
      () => (outcome = 'resolved'),
      (error: Error) => (outcome = error.message),
    )
    failing.reject(new Error('insert failed'))
    await settle()
    expect(outcome).toBe('pending')

    slow.resolve()
    await expect(done).rejects.toThrow('insert failed')
    expect(slowEnded).toBe(true)
  })
})
