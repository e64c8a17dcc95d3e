import { createHash } from 'node:crypto'
import type { Executor } from '../../db/schema.js'
import type { Edi834Envelope, Edi834Header, Edi834Member } from '../edi-834/edi-834.model.js'
import { Edi834MemberLoops, write834Head, write834Trailer, type Write834Options } from '../edi-834/edi-834.writer.js'
import { Utf8Accumulator } from '../../lib/utf8-accumulator.js'
import type { SsnProtection } from '../../lib/ssn-protection.js'
import { insertChunk } from './carrier-delivery.repo.js'
import { fileChunks } from './file-deliveries.repo.js'

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

/** Where content is stored: a delivery's chunks, sealed, written in the background. */
export interface ContentTarget {
  tx: Executor
  deliveryId: string
  ssn: SsnProtection
  writes: BackgroundWrites
}

/** What was stored: its size and checksum, and the member totals it carries. */
export interface WrittenContent {
  bytes: number
  sha256: string
  totals: { subscribers: number; dependents: number }
}

/**
 * Appends content to the delivery's chunks, sealed, counting and hashing the plain bytes as it
 * goes. Text is copied as it comes into one reusable buffer (see Utf8Accumulator). `firstSeq`
 * leaves room before the content for chunks written later (writeChunkAt): a change file's
 * header, written once its members are counted. Its bytes and hash then cover only what this
 * writer appended (contentDigest reads the whole).
 */
export class ChunkWriter {
  private readonly pending = new Utf8Accumulator(CHUNK_BYTES + 256 * 1024)
  private seq: number
  readonly hash = createHash('sha256')
  bytes = 0

  constructor(
    private readonly target: ContentTarget,
    firstSeq = 0,
  ) {
    this.seq = firstSeq
  }

  /** Stores `text` alone as chunk `seq`, one of those left free before `firstSeq`; not counted nor hashed. */
  async writeChunkAt(seq: number, text: string): Promise<void> {
    const { tx, deliveryId, ssn, writes } = this.target
    const { data, keyId } = ssn.sealBytes(Buffer.from(text, 'utf8'))
    await writes.add(insertChunk(tx, deliveryId, seq, keyId, data))
  }

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
    const { tx, deliveryId, ssn, writes } = this.target
    const { data, keyId } = ssn.sealBytes(plain)
    this.pending.clear()
    await writes.add(insertChunk(tx, deliveryId, this.seq++, keyId, data))
  }
}

/**
 * Size and SHA-256 of a delivery's stored content, read back in order: for content not written
 * front to back (a change file's header stored after its members). Call once every write is done.
 */
export async function contentDigest(db: Executor, ssn: SsnProtection, deliveryId: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256')
  let bytes = 0
  // As the send reads them: a chunk at a time, in pieces (fileChunks says why).
  for await (const chunk of fileChunks(db, ssn, deliveryId)) {
    hash.update(chunk)
    bytes += chunk.length
  }
  return { bytes, sha256: hash.digest('hex') }
}

/**
 * A change 834, member loop by member loop as they are composed; the envelope and header once the
 * totals are known (a change file learns them only from its members: the check may hold some
 * back). The loops are stored from chunk 1 on, the header alone in chunk 0 after them, and the
 * checksum is read back in order once everything is stored (a change file is small: 2 MB for
 * 2,500 families). Nothing is stored before the first member loop.
 */
export class Change834Writer {
  private readonly loops: Edi834MemberLoops
  private readonly out: ChunkWriter

  constructor(
    private readonly target: ContentTarget,
    segmentsOf: Write834Options['segmentsOf'],
    private readonly headOf: (totals: WrittenContent['totals']) => { envelope: Edi834Envelope; header: Edi834Header },
  ) {
    this.out = new ChunkWriter(target, 1)
    this.loops = new Edi834MemberLoops('change', segmentsOf)
  }

  get members(): number {
    return this.loops.subscribers + this.loops.dependents
  }

  async add(member: Edi834Member): Promise<void> {
    await this.out.write(this.loops.add(member))
  }

  async finish(): Promise<WrittenContent> {
    const { loops, target } = this
    const totals = { subscribers: loops.subscribers, dependents: loops.dependents }
    const { envelope, header } = this.headOf(totals)
    const head = write834Head(envelope, header)
    await this.out.write(write834Trailer(envelope, head.segmentCount + loops.segmentCount))
    await this.out.flush()
    await this.out.writeChunkAt(0, head.text)
    await target.writes.drain()
    return { ...(await contentDigest(target.tx, target.ssn, target.deliveryId)), totals }
  }
}

/** An api carrier's JSON document of the members, written as they come after its `opening`. */
export class JsonDocumentWriter {
  private readonly out: ChunkWriter
  private subscribers = 0
  private dependents = 0

  constructor(
    target: ContentTarget,
    private readonly opening: string,
  ) {
    this.out = new ChunkWriter(target)
  }

  get members(): number {
    return this.subscribers + this.dependents
  }

  async add(member: Edi834Member): Promise<void> {
    await this.out.write((this.members === 0 ? this.opening : ',') + JSON.stringify(member))
    if (member.subscriber) this.subscribers++
    else this.dependents++
  }

  async finish(): Promise<WrittenContent> {
    await this.out.write(`${this.members === 0 ? this.opening : ''}]}`)
    await this.out.flush()
    return { bytes: this.out.bytes, sha256: this.out.hash.digest('hex'), totals: { subscribers: this.subscribers, dependents: this.dependents } }
  }
}
