/** Console sessions and sign-in limits, from SESSION_TTL_SECONDS and the SIGN_IN_* variables. */
export interface ConsoleSessionSettings {
  /** Absolute lifetime of a session (SESSION_TTL_SECONDS). */
  ttlSeconds: number
  /** Failed sign-ins per email (SIGN_IN_MAX_FAILURES) and per client address (SIGN_IN_MAX_FAILURES_PER_ADDRESS) ... */
  maxFailuresPerEmail: number
  maxFailuresPerAddress: number
  /** ... within this window (SIGN_IN_WINDOW_SECONDS), after which sign-in is refused until the window ends. */
  failureWindowSeconds: number
}

export const DEFAULT_CONSOLE_SESSION_SETTINGS: ConsoleSessionSettings = Object.freeze({
  ttlSeconds: 12 * 3600,
  maxFailuresPerEmail: 5,
  maxFailuresPerAddress: 20,
  failureWindowSeconds: 15 * 60,
})
