/**
 * Gathers text as UTF-8 bytes in one reusable buffer. What long-running writers (a full 834's
 * content, its staged carrier views) use instead of `text += piece`: a concatenated string keeps
 * every piece alive until it is flattened, so a megabyte of text built from tens of thousands of
 * small strings survives garbage collections and fills the old generation; copied here, each
 * piece dies young.
 */
export class Utf8Accumulator {
  private buffer: Buffer
  /** Bytes gathered. */
  length = 0

  constructor(initialBytes: number) {
    this.buffer = Buffer.allocUnsafe(initialBytes)
  }

  append(text: string): void {
    // A UTF-16 code unit is at most 3 UTF-8 bytes: room for that means the write always fits.
    const worstCase = this.length + text.length * 3
    if (worstCase > this.buffer.length) {
      const larger = Buffer.allocUnsafe(Math.max(worstCase, this.buffer.length * 2))
      this.buffer.copy(larger, 0, 0, this.length)
      this.buffer = larger
    }
    this.length += this.buffer.write(text, this.length, 'utf8')
  }

  /** The bytes gathered: a view, valid until the next append or clear. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length)
  }

  text(): string {
    return this.buffer.toString('utf8', 0, this.length)
  }

  clear(): void {
    this.length = 0
  }
}
