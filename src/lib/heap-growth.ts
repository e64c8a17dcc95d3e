import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * Keeps V8's heap close to what is live while a memory-bounded job runs.
 *
 * After each full collection V8 lets the old generation grow to up to four times what survived
 * before it collects again. A full 834 build keeps about 25-30 MB live but allocates about a
 * gigabyte of short-lived pages, records and text on its way, enough of which lives long enough to
 * be promoted. Measured in-process on one build (bench/RESULTS.md, issue 13), the process grows by:
 * V8's default (`0`) +119 to +136 MB; `percent` 100, the default (FILE_BUILD_HEAP_GROWING_PERCENT,
 * carrier-settings.ts: collect once the old generation is twice what was live) about +70 MB with
 * no measurable CPU cost; 50 +53 to +66 MB for 5-15% more CPU.
 *
 * A census reconciliation is bounded too (CENSUS_HEAP_GROWING_PERCENT): since it streams (issue 16)
 * it holds a few batches of families, and in a 1 GiB heap V8's own policy collected it so often
 * that the cap at 100 made it faster, not slower (bench/RESULTS.md, 2026-11-28). Not set for the
 * whole process: the cap holds while at least one bounded job runs and V8's own policy (`0`)
 * returns after the last one. The flag is the process's, not the job's: work running beside a
 * bounded job in the same process is collected under the same cap meanwhile; two bounded jobs
 * with different percents share the first one's until both end.
 *
 * `--heap-growing-percent` is read each time V8 computes the next limit, so setting it while the
 * process runs takes effect at the next collection (Node documents flags set after start as
 * unsupported in general; this one is checked by the benchmark on the Node version we pin).
 */
let running = 0

export interface BoundedHeapOptions {
  /**
   * Collect the whole heap before the work when no other bounded job runs, so the cap applies
   * from its start: the old generation's next limit is then twice what is live (at 100) instead
   * of the limit V8's own policy left, which a job of a few seconds never reached and a long one
   * reached only after promoting its first hundred megabytes. Costs one pause of a full
   * collection (tens of milliseconds on an idle service): worth it for a census, which runs for
   * seconds; a change file of a few families would pay it every few seconds.
   */
  collectFirst?: boolean
}

export async function withBoundedHeapGrowth<T>(percent: number, work: () => Promise<T>, options: BoundedHeapOptions = {}): Promise<T> {
  if (percent <= 0) return work()
  if (running++ === 0) {
    v8.setFlagsFromString(`--heap-growing-percent=${Math.floor(percent)}`)
    if (options.collectFirst) fullCollection()?.()
  }
  try {
    return await work()
  } finally {
    if (--running === 0) v8.setFlagsFromString('--heap-growing-percent=0')
  }
}

let collect: (() => void) | null | undefined

/**
 * V8's full collection, as a function: `gc` exists in a context made once --expose-gc is set
 * (the flag is read when a context is made, so it is set here, at the first need, and only the
 * new context sees `gc`). Null where the flag is refused.
 */
function fullCollection(): (() => void) | null {
  if (collect === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc')
      collect = runInNewContext('gc') as () => void
    } catch {
      collect = null
    }
  }
  return collect
}

/** How many bounded jobs run now (tests). */
export function boundedHeapGrowthJobs(): number {
  return running
}
