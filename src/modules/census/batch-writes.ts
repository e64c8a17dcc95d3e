/**
 * A census's writes, a batch at a time, with this process's work and the database's overlapping:
 * a batch's writes run while the next batches are parsed and compared. Every statement still goes
 * through the transaction's one connection in the order issued; batches concern different
 * families, so their writes need no order between them. At most `depth` batches' writes are in
 * flight: a census parsed faster than it is written would otherwise queue all its rows in memory.
 * Two, not one: with one, the comparison waited for the last batch's writes about half of its time
 * (bench/RESULTS.md, issue 16), as a batch's writes are several statements sent one after another.
 */
export class BatchWrites {
  private readonly inFlight: Promise<unknown>[] = []

  constructor(private readonly depth = 2) {}

  /** Starts `work` once fewer than `depth` batches' writes are in flight, and answers without waiting for it. */
  async start(work: () => Promise<unknown>): Promise<void> {
    while (this.inFlight.length >= this.depth) await this.next()
    const writing = work()
    // Awaited by a later start or by done(), before anything depends on it.
    writing.catch(() => undefined)
    this.inFlight.push(writing)
  }

  /** Waits for the writes in flight; fails with the first error among them. */
  async done(): Promise<void> {
    while (this.inFlight.length > 0) await this.next()
  }

  /**
   * Waits for the oldest batch's writes. If they failed, waits for the others too before failing:
   * the transaction rolls back on that error, and nothing may still be writing through it then.
   */
  private async next(): Promise<void> {
    try {
      await this.inFlight.shift()
    } catch (error) {
      await Promise.allSettled(this.inFlight.splice(0))
      throw error
    }
  }
}
