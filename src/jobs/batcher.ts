/**
 * Gathers calls made close together into one batch (group commit). An item added while no batch is
 * under way starts one at the next turn of the event loop, with every item added in the same turn;
 * items added while batches are under way go together in the next. So a lone call waits for
 * nothing, and a burst of concurrent jobs writes in a few statements and commits instead of a few
 * per job: on PostgreSQL every commit waits for its WAL flush, which is what limited webhook
 * delivery (bench/RESULTS.md, issue 16).
 *
 * Each caller is answered with its own item's result. When a batch fails, its items are tried one
 * by one, so one bad item (or a deadlock between two batches) fails only its own caller.
 */
export class Batcher<T, R> {
  private queue: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = []
  private inFlight = 0
  private scheduled = false

  constructor(
    /** Runs one batch; answers one result per item, in order. */
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly options: { maxBatch: number; maxInFlight: number },
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject })
      this.kick()
    })
  }

  private kick(): void {
    if (this.scheduled || this.queue.length === 0 || this.inFlight >= this.options.maxInFlight) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      void this.runBatch()
    })
  }

  private async runBatch(): Promise<void> {
    const batch = this.queue.splice(0, this.options.maxBatch)
    if (batch.length === 0) return
    this.inFlight += 1
    try {
      const results = await this.runChecked(batch.map((entry) => entry.item))
      batch.forEach((entry, i) => entry.resolve(results[i]!))
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error)
      else await Promise.all(batch.map((entry) => this.runChecked([entry.item]).then(([result]) => entry.resolve(result!), entry.reject)))
    } finally {
      this.inFlight -= 1
      this.kick()
    }
  }

  private async runChecked(items: T[]): Promise<R[]> {
    const results = await this.run(items)
    if (results.length !== items.length) throw new Error(`a batch of ${items.length} answered ${results.length} results`)
    return results
  }
}
