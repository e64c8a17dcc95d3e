import { createHash } from 'node:crypto'
import type { Executor } from '../../db/schema.js'
import { Utf8Accumulator } from '../../lib/utf8-accumulator.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import { insertChunk } from './carrier-delivery.repo.js'

/** Inserts issued but not yet finished, at most. */
const MAX_OUTSTANDING_WRITES = 2
/** Content is stored in chunks of about this size, written as the file is generated. */
const CHUNK_BYTES = 1024 * 1024

/**
 * Writes the build issues without waiting for each: the connection runs them in order while this
 * process composes the next members, so the database and the writer work at once. At most a few
 * are outstanding (memory stays flat); `drain` waits for all and rethrows the first failure, which
 * rolls the build's transaction back.
 */
export class BackgroundWrites {
  private readonly outstanding: Promise<unknown>[] = []

  async add(write: Promise<unknown>): Promise<void> {
    // Keep rejections from going unhandled while they wait their turn in drain().
    write.catch(() => {})
    this.outstanding.push(write)
    if (this.outstanding.length > MAX_OUTSTANDING_WRITES) await this.outstanding.shift()
  }

  async drain(): Promise<void> {
    while (this.outstanding.length > 0) await this.outstanding.shift()
  }
}

/**
 * Appends content to the delivery's chunks, sealed, counting and hashing the plain bytes as it
 * goes. Text is copied as it comes into one reusable buffer (see Utf8Accumulator).
 */
export class ChunkWriter {
  private readonly pending = new Utf8Accumulator(CHUNK_BYTES + 256 * 1024)
  private seq = 0
  readonly hash = createHash('sha256')
  bytes = 0

  constructor(
    private readonly tx: Executor,
    private readonly deliveryId: string,
    private readonly ssn: SsnProtection,
    private readonly writes: BackgroundWrites,
  ) {}

  async write(text: string): Promise<void> {
    this.pending.append(text)
    if (this.pending.length >= CHUNK_BYTES) await this.flush()
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return
    const plain = this.pending.bytes()
    this.hash.update(plain)
    this.bytes += plain.length
    // Sealing copies the bytes, so the buffer is free for the next chunk once this returns.
    const { data, keyId } = this.ssn.sealBytes(plain)
    this.pending.clear()
    await this.writes.add(insertChunk(this.tx, this.deliveryId, this.seq++, keyId, data))
  }
}
