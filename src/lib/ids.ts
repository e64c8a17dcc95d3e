import { randomBytes } from 'node:crypto'

let lastMs = 0
let sequence = 0

// randomBytes is a call into the system per use; drawing 16 bytes at a time from a 4 KiB pool
// makes an id cost a copy instead (request ids are made for every request).
const POOL_SIZE = 4096
let pool = randomBytes(POOL_SIZE)
let poolOffset = 0

function random16(): Buffer {
  if (poolOffset + 16 > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE)
    poolOffset = 0
  }
  const bytes = Buffer.allocUnsafe(16)
  pool.copy(bytes, 0, poolOffset, poolOffset + 16)
  poolOffset += 16
  return bytes
}

/**
 * RFC 9562 UUID version 7: a millisecond timestamp then randomness, so ids sort by creation and
 * index well. Within one millisecond a 12-bit counter keeps ids from one process ordered.
 */
export function uuidv7(now = Date.now()): string {
  const bytes = random16()
  if (now > lastMs) {
    lastMs = now
    // Each millisecond starts its counter at a random point in the lower quarter, leaving room to count.
    sequence = bytes.readUInt16BE(14) & 0x3ff
  } else {
    // Same millisecond (or the clock stepped back): count on, borrowing the next millisecond on overflow.
    sequence = (sequence + 1) & 0xfff
    if (sequence === 0) lastMs += 1
  }
  bytes.writeUIntBE(lastMs, 0, 6)
  bytes[6] = 0x70 | (sequence >> 8)
  bytes[7] = sequence & 0xff
  bytes[8] = 0x80 | (bytes[8]! & 0x3f)
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value)
}
