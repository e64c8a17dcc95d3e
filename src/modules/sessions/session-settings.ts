/** Console sessions, sign-in limits and set-password links: SESSION_TTL_SECONDS, SIGN_IN_*, PASSWORD_LINK_TTL_SECONDS. */
export interface ConsoleSessionSettings {
  /** Absolute lifetime of a session (SESSION_TTL_SECONDS). */
  ttlSeconds: number
  /** Failed sign-ins per email (SIGN_IN_MAX_FAILURES) and per client address (SIGN_IN_MAX_FAILURES_PER_ADDRESS) ... */
  maxFailuresPerEmail: number
  maxFailuresPerAddress: number
  /** ... within this window (SIGN_IN_WINDOW_SECONDS), after which sign-in is refused until the window ends. */
  failureWindowSeconds: number
  /** How long a set-password link works (PASSWORD_LINK_TTL_SECONDS); it also stops once used or replaced. */
  passwordLinkTtlSeconds: number
}

export const DEFAULT_CONSOLE_SESSION_SETTINGS: ConsoleSessionSettings = Object.freeze({
  ttlSeconds: 12 * 3600,
  maxFailuresPerEmail: 5,
  maxFailuresPerAddress: 20,
  failureWindowSeconds: 15 * 60,
  passwordLinkTtlSeconds: 24 * 3600,
})
