import { describe, expect, it } from 'vitest'
import { BatchWrites, settlingOnFailure } from './batch-writes.js'

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

  it('fails with the first write that failed, not with the older batch that failed after it', async () => {
    const writes = new BatchWrites(2)
    const older = controlledWrite()
    const younger = controlledWrite()
    await writes.start(() => older.promise)
    await writes.start(() => younger.promise)
    younger.reject(new Error('duplicate key'))
    await settle()
    // Once a statement fails, PostgreSQL refuses every later one of the transaction.
    older.reject(new Error('current transaction is aborted'))
    await expect(writes.done()).rejects.toThrow('duplicate key')
  })

  it('when the work that starts writes fails, then settlingOnFailure waits for every write in flight before failing with its error', async () => {
    const writes = new BatchWrites(2)
    const pending = controlledWrite()
    let writeEnded = false
    void pending.promise.then(() => (writeEnded = true))
    const outcome = settlingOnFailure([writes], async () => {
      await writes.start(() => pending.promise)
      throw new Error('reading failed')
    })
    let failedAt: boolean | null = null
    outcome.catch(() => (failedAt = writeEnded))
    await settle()
    expect(failedAt).toBe(null)

    pending.resolve()
    await expect(outcome).rejects.toThrow('reading failed')
    expect(failedAt).toBe(true)
  })
})
