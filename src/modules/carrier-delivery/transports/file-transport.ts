import { createHash } from 'node:crypto'

/** What the caller computed when it produced the file; the transport checks the bytes it sends. */
export interface ExpectedContent {
  bytes: number
  /** Lower-case hex SHA-256 of the whole file. */
  sha256: string
}

/**
 * Delivers one file to a carrier. The contract every implementation keeps:
 *
 * - A delivery that fails part-way may be retried (by the job that calls it), and the carrier must
 *   never see two copies or a partial file. So the content goes to `<name>.part` and is renamed to
 *   `<name>` only once it is complete: the rename is atomic on the carrier's side, and carriers
 *   collect only final names.
 * - Before uploading, when `<name>` already exists with the expected size (and, where reading it
 *   back is cheap, the expected SHA-256) the file was delivered by an earlier attempt whose success
 *   was not recorded: resolve `{ alreadyDelivered: true }` and send nothing. An existing `<name>`
 *   that differs is never overwritten (the carrier may be processing it): a conflict error.
 * - A leftover `<name>.part` of an earlier attempt is overwritten.
 * - The bytes sent are counted and hashed on the way; when they do not match `expected` nothing is
 *   renamed, so a bug in the producer cannot deliver a file nobody checked.
 * - `content` is called once per attempt and must start the file from its first byte each time; it
 *   is streamed (files reach 60+ MB), never joined in memory.
 * - One delivery of a given file at a time: the job queue's claim guarantees it, and two writers
 *   of the same `.part` would interleave.
 */
export interface FileTransport {
  /** Where files go, for logs and the work order (no secrets). */
  describe(): string
  deliver(fileName: string, content: () => AsyncIterable<Buffer | string>, expected: ExpectedContent): Promise<{ alreadyDelivered: boolean }>
}

export type FileDeliveryErrorCode =
  | 'invalid_file_name'
  /** The final name exists with other content. */
  | 'destination_conflict'
  /** The content stream produced other bytes than `expected`. */
  | 'content_mismatch'
  | 'host_key_mismatch'
  | 'authentication_failed'
  /** Connection, timeout, I/O or server error: worth retrying later. */
  | 'transfer_failed'

/**
 * A delivery failure. `retryable` tells the job whether another attempt can succeed without a
 * person changing something (configuration, the carrier's server, the producer).
 */
export class FileDeliveryError extends Error {
  readonly retryable: boolean

  constructor(
    readonly code: FileDeliveryErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'FileDeliveryError'
    this.retryable = code === 'transfer_failed'
  }
}

const PART_SUFFIX = '.part'

/**
 * File names come from our own generator, but a name is joined to a directory on our disk or on
 * the carrier's server, so anything that could leave it (separators, `..`) or confuse a listing
 * (control characters) is refused rather than cleaned.
 */
export function assertValidFileName(fileName: string): void {
  let reason: string | undefined
  if (fileName.length === 0 || fileName.length > 200) reason = 'must have 1 to 200 characters'
  else if (fileName.includes('/') || fileName.includes('\\')) reason = 'must not contain a path separator'
  else if (fileName.includes('..') || fileName === '.') reason = 'must not contain ".."'
  else if (/[\u0000-\u001f\u007f]/.test(fileName)) reason = 'must not contain control characters'
  else if (fileName.endsWith(PART_SUFFIX)) reason = `must not end with ${PART_SUFFIX} (the suffix of incomplete uploads)`
  if (reason) throw new FileDeliveryError('invalid_file_name', `Invalid delivery file name ${JSON.stringify(fileName)}: ${reason}`)
}

export function partNameOf(fileName: string): string {
  return fileName + PART_SUFFIX
}

/**
 * A pipeline stage that turns strings into bytes, counts and hashes them, and fails at the end of
 * the stream when they differ from `expected` (so the destination is never completed).
 * `onChunk` lets a transport see progress (its stall timer).
 */
export function verifiedContent(expected: ExpectedContent, onChunk: () => void = () => {}) {
  return async function* verify(source: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
    const hash = createHash('sha256')
    let bytes = 0
    for await (const chunk of source) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
      if (buffer.length === 0) continue
      bytes += buffer.length
      if (bytes > expected.bytes) throw contentMismatch(`more than the expected ${expected.bytes} bytes`)
      hash.update(buffer)
      onChunk()
      yield buffer
    }
    const sha256 = hash.digest('hex')
    if (bytes !== expected.bytes) throw contentMismatch(`${bytes} bytes instead of ${expected.bytes}`)
    if (sha256 !== expected.sha256.toLowerCase()) throw contentMismatch(`SHA-256 ${sha256} instead of ${expected.sha256}`)
  }
}

function contentMismatch(detail: string): FileDeliveryError {
  return new FileDeliveryError('content_mismatch', `The file content produced ${detail}; nothing was delivered`)
}

/** The message of anything thrown, for wrapping into a delivery error. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
