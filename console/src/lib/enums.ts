/**
 * A list of every value of a union of the published contract: a value the contract adds and the
 * list lacks fails to compile (the argument then needs a `missing` property naming it), and so
 * does a value the contract does not know.
 *
 *   export const WATCHER_STATUSES = everyValueOf<WatcherStatus>()(['active', 'disabled'])
 */
export function everyValueOf<Union extends string>() {
  return <const List extends readonly Union[]>(list: List & ([Exclude<Union, List[number]>] extends [never] ? unknown : { missing: Exclude<Union, List[number]> })): List => list
}

/** The URL's value when it is one of the allowed ones, else nothing (an unknown value filters nothing). */
export function pickValue<T extends string>(values: readonly T[], raw: string | null): T | undefined {
  return values.find((value) => value === raw)
}
