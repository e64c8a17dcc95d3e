import v8 from 'node:v8'

/**
 * Keeps V8's heap close to what is live while a memory-bounded job runs.
 *
 * After each full collection V8 lets the old generation grow to up to four times what survived
 * before it collects again. A full 834 build keeps about 25-30 MB live but allocates about a
 * gigabyte of short-lived pages, records and text on its way, enough of which lives long enough to
 * be promoted: with V8's default the heap reached 100-130 MB between collections and the process's
 * RSS grew by 120-170 MB per build. With growth capped at `percent` (50: collect once the old
 * generation is 1.5 times what was live) the same build grows RSS by about 55-65 MB for a few
 * percent more CPU (measured in bench/RESULTS.md, issue 13).
 *
 * Not set for the whole process: a census reconciliation holds close to a gigabyte live for a
 * moment, and collecting it every 1.5x made it about a second slower. So the cap holds while at
 * least one bounded job runs and V8's own policy (`0`) returns after the last one.
 *
 * `--heap-growing-percent` is read each time V8 computes the next limit, so setting it while the
 * process runs takes effect at the next collection (Node documents flags set after start as
 * unsupported in general; this one is checked by the benchmark on the Node version we pin).
 */
let running = 0

export async function withBoundedHeapGrowth<T>(percent: number, work: () => Promise<T>): Promise<T> {
  if (percent <= 0) return work()
  if (running++ === 0) v8.setFlagsFromString(`--heap-growing-percent=${Math.floor(percent)}`)
  try {
    return await work()
  } finally {
    if (--running === 0) v8.setFlagsFromString('--heap-growing-percent=0')
  }
}

/** How many bounded jobs run now (tests). */
export function boundedHeapGrowthJobs(): number {
  return running
}
