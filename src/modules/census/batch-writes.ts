/**
 * A census's writes, a batch at a time, with this process's work and the database's overlapping:
 * a batch's writes run while the next batch is parsed and compared. Every statement still goes
 * through the transaction's one connection in the order issued; batches concern different
 * families, so their writes need no order between them. At most one batch's writes are in
 * flight: a census parsed faster than it is written would otherwise queue all its rows in memory.
 */
export class BatchWrites {
  private writing: Promise<unknown> = Promise.resolve()

  /** Starts `work` once the previous batch's writes are done, and answers without waiting for it. */
  async start(work: () => Promise<unknown>): Promise<void> {
    await this.writing
    this.writing = work()
    // Awaited by the next start or by done(), before anything depends on it.
    this.writing.catch(() => undefined)
  }

  /** Waits for the writes in flight; fails with their error. */
  async done(): Promise<void> {
    await this.writing
  }
}
