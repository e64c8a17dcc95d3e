/**
 * A census's writes, a batch at a time, with this process's work and the database's overlapping:
 * a batch's writes run while the next batches are parsed and compared. Every statement still goes
 * through the transaction's one connection in the order issued; batches concern different
 * families, so their writes need no order between them. At most `depth` batches' writes are in
 * flight: a census parsed faster than it is written would otherwise queue all its rows in memory.
 * Two, not one: with one, the comparison waited for the last batch's writes about half of its time
 * (bench/RESULTS.md, issue 16), as a batch's writes are several statements sent one after another.
 *
 * Whoever holds one must not let the transaction end while writes are in flight, failure included
 * (`settle`, `settlingOnFailure`): Kysely sends the ROLLBACK at once, and a batch's next statement,
 * queued behind it, would then run on its own and commit.
 */
export class BatchWrites {
  private readonly inFlight: Promise<unknown>[] = []
  /** The first write that failed: after it the transaction is aborted and every later statement fails too. */
  private failure: { error: unknown } | null = null

  constructor(private readonly depth = 2) {}

  /** Starts `work` once fewer than `depth` batches' writes are in flight, and answers without waiting for it. */
  async start(work: () => Promise<unknown>): Promise<void> {
    while (this.inFlight.length >= this.depth) await this.next()
    const writing = work()
    // Kept until a later start, done() or settle() waits for it.
    writing.catch((error: unknown) => {
      this.failure ??= { error }
    })
    this.inFlight.push(writing)
  }

  /** Waits for the writes in flight; fails with the first error among them. */
  async done(): Promise<void> {
    while (this.inFlight.length > 0) await this.next()
  }

  /** Waits for every write in flight, whatever their outcome: for an error path, before the transaction rolls back. */
  async settle(): Promise<void> {
    await Promise.allSettled(this.inFlight.splice(0))
  }

  /**
   * Waits for the oldest batch's writes. If any write failed, waits for the others too, then fails
   * with the first failure (not the "transaction is aborted" of the statements after it).
   */
  private async next(): Promise<void> {
    try {
      await this.inFlight.shift()
    } catch (error) {
      await this.settle()
      throw this.failure ? this.failure.error : error
    }
  }
}

/**
 * Runs `work`, which starts writes on `writers`; if it fails, waits for every write still in
 * flight before failing, so that none runs after the transaction's rollback.
 */
export async function settlingOnFailure<T>(writers: readonly BatchWrites[], work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    await Promise.all(writers.map((writer) => writer.settle()))
    throw error
  }
}
