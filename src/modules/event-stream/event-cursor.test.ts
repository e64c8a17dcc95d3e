import { describe, expect, it } from 'vitest'
import { compareEventCursors, formatEventCursor, parseEventCursor } from './event-cursor.js'

describe('event cursor', () => {
  it('when a cursor is formatted and parsed back, then it is the same position', () => {
    const cursor = { txId: 18_446_744_073_709_551_615n, seq: 9_223_372_036_854_775_807n }
    expect(formatEventCursor(cursor)).toBe('18446744073709551615-9223372036854775807')
    expect(parseEventCursor(formatEventCursor(cursor))).toEqual(cursor)
    expect(parseEventCursor('752-1')).toEqual({ txId: 752n, seq: 1n })
    expect(parseEventCursor('0-0')).toEqual({ txId: 0n, seq: 0n })
  })

  it.each([
    ['', 'empty'],
    ['752', 'no seq'],
    ['752-', 'empty seq'],
    ['-1', 'empty tx'],
    ['752-1-2', 'three parts'],
    ['0752-1', 'leading zero'],
    ['752-01', 'leading zero in seq'],
    ['+752-1', 'sign'],
    ['752 -1', 'space'],
    [' 752-1', 'leading space'],
    ['752-1\n', 'trailing newline'],
    ['abc-1', 'letters'],
    ['0x10-1', 'hexadecimal'],
    ['18446744073709551616-1', 'tx past xid8'],
    ['1-9223372036854775808', 'seq past bigint'],
    ['1'.repeat(21) + '-1', 'too long'],
    ['٣-1', 'non-ASCII digit'],
  ])('when the text is %j (%s), then it is not a cursor', (text) => {
    expect(parseEventCursor(text)).toBeUndefined()
  })

  it('when cursors are compared, then the transaction orders first and the row number second', () => {
    const at = (txId: bigint, seq: bigint) => ({ txId, seq })
    expect(compareEventCursors(at(5n, 100n), at(6n, 1n))).toBeLessThan(0)
    expect(compareEventCursors(at(6n, 1n), at(5n, 100n))).toBeGreaterThan(0)
    expect(compareEventCursors(at(6n, 1n), at(6n, 2n))).toBeLessThan(0)
    expect(compareEventCursors(at(6n, 2n), at(6n, 2n))).toBe(0)
  })
})
