/**
 * A position in the event log: the id of the transaction that wrote an event and the event's row
 * number. Events are ordered by (txId, seq) and a stream hands out only those of ended
 * transactions (migration 0020), so "everything after this cursor" never loses an event that
 * committed late. Clients see it as the opaque SSE `id:` "<txId>-<seq>".
 */
export interface EventCursor {
  readonly txId: bigint
  readonly seq: bigint
}

// Canonical decimals only (no sign, no leading zeros), so one position has one spelling.
const CURSOR_TEXT = /^(0|[1-9]\d{0,19})-(0|[1-9]\d{0,18})$/
const MAX_XID8 = 2n ** 64n - 1n
const MAX_SEQ = 2n ** 63n - 1n

/** The cursor a Last-Event-ID names, or undefined when it is not one this service hands out. */
export function parseEventCursor(text: string): EventCursor | undefined {
  const match = CURSOR_TEXT.exec(text)
  if (!match) return undefined
  const txId = BigInt(match[1]!)
  const seq = BigInt(match[2]!)
  if (txId > MAX_XID8 || seq > MAX_SEQ) return undefined
  return { txId, seq }
}

export function formatEventCursor(cursor: EventCursor): string {
  return `${cursor.txId}-${cursor.seq}`
}

/** Negative when a comes first, 0 when equal, positive when a comes after b. */
export function compareEventCursors(a: EventCursor, b: EventCursor): number {
  if (a.txId !== b.txId) return a.txId < b.txId ? -1 : 1
  return a.seq === b.seq ? 0 : a.seq < b.seq ? -1 : 1
}
