import { once } from 'node:events'
import { createReadStream, createWriteStream } from 'node:fs'
import { lstat, open, rename, rm } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { emitLooseDirectoryWarning, ensurePrivateDirectory, PRIVATE_FILE_MODE, type LooseDirectoryWarning } from '../../../lib/private-files.js'
import {
  assertValidFileName,
  FileDeliveryError,
  messageOf,
  partNameOf,
  verifiedContent,
  type ExpectedContent,
  type FileTransport,
} from './file-transport.js'

/**
 * Writes files into a local directory: a share the carrier collects from, a mount synchronised to
 * it, or development. Keeps the FileTransport contract with a local rename, which is atomic on one
 * file system (the `.part` lives next to the final name for that reason). 834 files hold SSNs in
 * clear, so they are written 0600 in a 0700 directory (lib/private-files.ts).
 */
export class DirectoryTransport implements FileTransport {
  private warned = false

  constructor(
    readonly directory: string,
    private readonly warn: LooseDirectoryWarning = emitLooseDirectoryWarning,
  ) {}

  describe(): string {
    return `directory ${this.directory}`
  }

  async deliver(
    fileName: string,
    content: () => AsyncIterable<Buffer | string>,
    expected: ExpectedContent,
  ): Promise<{ alreadyDelivered: boolean }> {
    assertValidFileName(fileName)
    const finalPath = join(this.directory, fileName)
    const partPath = join(this.directory, partNameOf(fileName))
    try {
      // Once per transport: a directory that cannot be tightened would otherwise warn at every file.
      await ensurePrivateDirectory(this.directory, (message) => {
        if (!this.warned) this.warn(message)
        this.warned = true
      })
      const existing = await compareExisting(finalPath, expected)
      if (existing === 'same') return { alreadyDelivered: true }
      if (existing === 'different') {
        throw new FileDeliveryError('destination_conflict', `${fileName} already exists in ${this.directory} with other content; it was not replaced`)
      }
      await writePart(partPath, content, expected)
      await rename(partPath, finalPath)
      await syncDirectory(this.directory)
      return { alreadyDelivered: false }
    } catch (error) {
      if (error instanceof FileDeliveryError) throw error
      throw new FileDeliveryError('transfer_failed', `Writing ${fileName} to ${this.directory} failed: ${messageOf(error)}`, { cause: error })
    }
  }
}

/** Streams the content into `.part` (truncating a leftover) and makes it durable before the rename. */
async function writePart(partPath: string, content: () => AsyncIterable<Buffer | string>, expected: ExpectedContent): Promise<void> {
  // A leftover .part is removed rather than truncated: truncating keeps the mode it was made with,
  // and the file must be created 0600 before any byte is in it.
  await rm(partPath, { force: true })
  // flush: fsync before the descriptor closes, and the pipeline settles only after that close.
  // Without it a crash after the rename could leave the final name on a short file, which the
  // carrier would then collect. (FileHandle streams with autoClose off cannot be used for this:
  // the handle then never closes.)
  const file = createWriteStream(partPath, { flags: 'wx', mode: PRIVATE_FILE_MODE, flush: true })
  try {
    await pipeline(content(), verifiedContent(expected), file)
  } catch (error) {
    // A failed attempt's .part would be overwritten by the retry anyway; removing it keeps the
    // directory the carrier browses free of debris (member data) when no retry comes. The stream
    // may still be opening the file when the pipeline fails (content refused early): removed
    // before it closes, the .part would appear again behind the removal.
    if (!file.closed) await once(file, 'close').catch(() => undefined)
    await rm(partPath, { force: true }).catch(() => undefined)
    throw error
  }
}

async function compareExisting(path: string, expected: ExpectedContent): Promise<'absent' | 'same' | 'different'> {
  let stats
  try {
    stats = await lstat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent'
    throw error
  }
  if (!stats.isFile() || stats.size !== expected.bytes) return 'different'
  // Reading the file back is cheap locally, so a same-sized different file is not mistaken for ours.
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex') === expected.sha256.toLowerCase() ? 'same' : 'different'
}

/** Makes the rename itself durable (the directory entry), where the platform allows it. */
async function syncDirectory(directory: string): Promise<void> {
  let handle
  try {
    handle = await open(directory, 'r')
    await handle.sync()
  } catch {
    // Some file systems and platforms cannot fsync a directory; the rename has happened either way.
  } finally {
    await handle?.close()
  }
}
