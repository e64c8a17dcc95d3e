/** Today in UTC as YYYY-MM-DD: dates that must not lie in the future are compared with it. */
export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10)
}
