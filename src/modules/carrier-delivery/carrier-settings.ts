/** How the service reaches carriers: set from the environment (config.ts), defaults for tests. */
export interface CarrierSettings {
  /** Where `directory` transports write, one sub-directory per carrier (OUTBOUND_DIR). */
  readonly outboundDirectory: string
  /** Member changes made within this window travel in one change file (TRANSACTION_BATCH_DELAY_MS). */
  readonly transactionBatchDelayMs: number
  /** How long a sandbox carrier takes to install a submitted group or answer with a census (SANDBOX_CARRIER_DELAY_MS). */
  readonly sandboxDelayMs: number
  /** ISA05/ISA06 and GS02: who the service is in its 834 files (EDI_SENDER_QUALIFIER, EDI_SENDER_ID). */
  readonly ediSenderQualifier: string
  readonly ediSenderId: string
  /**
   * While a file is built, V8's old generation may grow this many percent over what is live before
   * it is collected (FILE_BUILD_HEAP_GROWING_PERCENT; 0 leaves V8's own policy). See lib/heap-growth.ts.
   */
  readonly fileBuildHeapGrowingPercent: number
  /**
   * The same while a census is reconciled (CENSUS_HEAP_GROWING_PERCENT). Its census module is wired
   * with the carrier side's. Measured on the 50,000-family census (bench/RESULTS.md, 2026-11-28):
   * in a 1 GiB heap V8's own policy collected so often that it took 8.9 s (+62 to +79 MB); 100
   * took 7.95-8.40 s (+82 to +108 MB); 200 reached +135 to +149 MB, at the 150 MB ceiling.
   */
  readonly censusHeapGrowingPercent: number
  /** The environment, for transports that name secrets by environment variable (SFTP password, API token). */
  readonly secrets: Readonly<Record<string, string | undefined>>
}

export const DEFAULT_CARRIER_SETTINGS: CarrierSettings = Object.freeze({
  outboundDirectory: './data/outbound',
  transactionBatchDelayMs: 5000,
  sandboxDelayMs: 10_000,
  ediSenderQualifier: 'ZZ',
  ediSenderId: 'ENROLLSYNC',
  fileBuildHeapGrowingPercent: 100,
  censusHeapGrowingPercent: 100,
  secrets: Object.freeze({}),
})
