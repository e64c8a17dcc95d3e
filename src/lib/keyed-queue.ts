/**
 * Runs work one at a time per key, in arrival order: later callers for a key wait for the earlier
 * ones. Used where a check and the write that follows it must not interleave within a process.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>()

  /** Runs `work` once every earlier call holding any of `keys` has finished. */
  async run<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    // Waiting on every key's tail at once, and registering this call on each, needs no lock order.
    const before = keys.map((key) => this.tails.get(key) ?? Promise.resolve())
    const done = Promise.allSettled(before).then(() => work())
    const tail = done.then(
      () => undefined,
      () => undefined,
    )
    for (const key of keys) this.tails.set(key, tail)
    try {
      return await done
    } finally {
      // The last caller of a key removes it, so idle keys do not accumulate.
      for (const key of keys) if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }
}
