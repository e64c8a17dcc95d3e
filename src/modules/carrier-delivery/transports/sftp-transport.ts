import { createHash, timingSafeEqual } from 'node:crypto'
import { once } from 'node:events'
import { posix } from 'node:path'
import ssh2, { type Client, type ConnectConfig, type SFTPWrapper } from 'ssh2'
import {
  assertValidFileName,
  FileDeliveryError,
  messageOf,
  partNameOf,
  verifiedContent,
  type ExpectedContent,
  type FileTransport,
} from './file-transport.js'

export interface SftpTransportOptions {
  host: string
  port: number
  username: string
  password?: string
  privateKey?: Buffer | string
  remoteDirectory: string
  /** SHA-256 of the server's host key blob (32 bytes); undefined accepts any host key. */
  hostKeySha256?: Buffer
  /** TCP connect, SSH handshake and login together. */
  connectTimeoutMs?: number
  /** Once connected, no progress (an acknowledged write or request) for this long ends the attempt. */
  stallTimeoutMs?: number
}

const DEFAULT_CONNECT_TIMEOUT_MS = 20_000
const DEFAULT_STALL_TIMEOUT_MS = 60_000
// ssh2's write stream waits for each WRITE's acknowledgement but sends what is buffered meanwhile
// in parallel: a 1 MiB buffer keeps the link busy across the round trip while bounding memory.
const UPLOAD_BUFFER_BYTES = 1024 * 1024
const SFTP_NO_SUCH_FILE = 2

/** Reads a configured pin: `SHA256:<base64>` as OpenSSH prints it, plain base64, or hex. */
export function parseHostKeyPin(text: string): Buffer {
  const value = text.trim().replace(/^SHA256:/, '')
  const hex = value.replace(/:/g, '')
  const bytes = /^[0-9a-fA-F]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : Buffer.from(value, 'base64')
  if (bytes.length !== 32) throw new Error('host_key_sha256 must be the SHA-256 of the host key (32 bytes) in base64 or hex')
  return bytes
}

/** The fingerprint OpenSSH shows for a host key blob (`ssh-keygen -lf`). */
export function hostKeyFingerprint(keyBlob: Buffer): string {
  return formatFingerprint(createHash('sha256').update(keyBlob).digest())
}

function formatFingerprint(sha256: Buffer): string {
  return `SHA256:${sha256.toString('base64').replace(/=+$/, '')}`
}

/** Uploads over SFTP, keeping the FileTransport contract with a server-side rename. */
export class SftpTransport implements FileTransport {
  private readonly connectTimeoutMs: number
  private readonly stallTimeoutMs: number

  constructor(private readonly options: SftpTransportOptions) {
    if (options.password === undefined && options.privateKey === undefined) {
      throw new Error(`SFTP transport to ${options.host} needs a password or a private key`)
    }
    if (options.hostKeySha256 && options.hostKeySha256.length !== 32) throw new Error('hostKeySha256 must be 32 bytes (see parseHostKeyPin)')
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
    this.stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS
  }

  describe(): string {
    const { username, host, port, remoteDirectory, hostKeySha256 } = this.options
    const pin = hostKeySha256 ? `host key ${formatFingerprint(hostKeySha256)}` : 'host key NOT pinned'
    return `sftp://${username}@${host}:${port}, directory ${remoteDirectory}, ${pin}`
  }

  async deliver(
    fileName: string,
    content: () => AsyncIterable<Buffer | string>,
    expected: ExpectedContent,
  ): Promise<{ alreadyDelivered: boolean }> {
    assertValidFileName(fileName)
    const finalPath = posix.join(this.options.remoteDirectory, fileName)
    const partPath = posix.join(this.options.remoteDirectory, partNameOf(fileName))
    let session: SftpSession | undefined
    try {
      session = await this.connect()
      const existingSize = await session.size(finalPath)
      if (existingSize !== undefined) return this.existing(existingSize, fileName, expected)
      await session.upload(partPath, content, expected)
      try {
        await session.rename(partPath, finalPath)
      } catch (error) {
        // SFTP v3 servers (OpenSSH among them) refuse to rename onto an existing name. It exists
        // when an earlier attempt's rename succeeded but its answer was lost: then it is ours.
        const size = await session.size(finalPath)
        if (size === undefined) throw error
        const result = this.existing(size, fileName, expected)
        await session.remove(partPath)
        return result
      }
      return { alreadyDelivered: false }
    } catch (error) {
      const code = error instanceof FileDeliveryError ? error.code : 'transfer_failed'
      throw new FileDeliveryError(code, `Delivering ${fileName} to ${this.where()} failed: ${messageOf(error)}`, { cause: error })
    } finally {
      session?.close()
    }
  }

  private where(): string {
    return `sftp://${this.options.host}:${this.options.port} (directory ${this.options.remoteDirectory})`
  }

  /** Reading a remote file back would mean downloading it, so a same-sized final file counts as ours. */
  private existing(size: number, fileName: string, expected: ExpectedContent): { alreadyDelivered: true } {
    if (size === expected.bytes) return { alreadyDelivered: true }
    throw new FileDeliveryError('destination_conflict', `${fileName} already exists on the server with ${size} bytes instead of ${expected.bytes}; it was not replaced`)
  }

  /** A connection of its own, for reading the carrier's acknowledgements back (acknowledgements.inbox.ts); the caller closes it. */
  session(): Promise<SftpSession> {
    return this.connect()
  }

  private connect(): Promise<SftpSession> {
    const { host, port, username, password, privateKey, hostKeySha256 } = this.options
    const client = new ssh2.Client()
    let hostKeyRefusal: string | undefined
    return new Promise<SftpSession>((resolve, reject) => {
      let settled = false
      const fail = (error: unknown): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        client.destroy()
        if (hostKeyRefusal) {
          reject(new FileDeliveryError('host_key_mismatch', `${hostKeyRefusal}; nothing was sent`))
        } else if ((error as { level?: unknown }).level === 'client-authentication') {
          // ssh2's message names the methods tried, never the password or key.
          reject(new FileDeliveryError('authentication_failed', `login as ${username} was refused (${messageOf(error)})`))
        } else {
          reject(error)
        }
      }
      const timer = setTimeout(() => fail(new Error(`no SSH session within ${this.connectTimeoutMs} ms`)), this.connectTimeoutMs)
      client.on('error', fail)
      client.once('close', () => fail(new Error('the server closed the connection during login')))
      client.once('ready', () => {
        client.sftp((error, sftp) => {
          if (error) return fail(error)
          if (settled) return
          settled = true
          clearTimeout(timer)
          resolve(new SftpSession(client, sftp, this.stallTimeoutMs))
        })
      })
      const config: ConnectConfig = {
        host,
        port,
        username,
        password,
        privateKey,
        tryKeyboard: false,
        readyTimeout: this.connectTimeoutMs,
        // Detects a peer that vanished without closing TCP (NAT timeouts, a crashed server).
        keepaliveInterval: 10_000,
        keepaliveCountMax: 3,
        // Runs before authentication, so a wrong server never sees the password or a byte of data.
        hostVerifier: (key: Buffer): boolean => {
          if (!hostKeySha256) return true
          const presented = createHash('sha256').update(key).digest()
          if (timingSafeEqual(presented, hostKeySha256)) return true
          hostKeyRefusal = `the server presented host key ${formatFingerprint(presented)}, not the pinned ${formatFingerprint(hostKeySha256)}`
          return false
        },
      }
      client.connect(config)
    })
  }
}

/**
 * One connection. ssh2 never answers an SFTP request sent after the connection is gone, so every
 * request races the connection's end, and a stall timer ends a connection that stops progressing.
 */
export class SftpSession {
  private readonly lost: Promise<never>
  private readonly stallTimer: NodeJS.Timeout

  constructor(
    private readonly client: Client,
    private readonly sftp: SFTPWrapper,
    stallTimeoutMs: number,
  ) {
    let stalled = false
    this.lost = new Promise<never>((_, reject) => {
      client.on('error', (error) => reject(error))
      client.once('close', () => {
        reject(new Error(stalled ? `no progress for ${stallTimeoutMs} ms; connection abandoned` : 'the connection was closed'))
      })
    })
    this.lost.catch(() => undefined) // observed through guard(); a loss while idle is not an error
    this.stallTimer = setTimeout(() => {
      stalled = true
      client.destroy()
    }, stallTimeoutMs)
  }

  private touch(): void {
    this.stallTimer.refresh()
  }

  private async guard<T>(operation: Promise<T>): Promise<T> {
    operation.catch(() => undefined) // when the connection is lost first, its late failure is moot
    const value = await Promise.race([operation, this.lost])
    this.touch()
    return value
  }

  private request<T>(start: (done: (error: Error | undefined | null, value: T) => void) => void): Promise<T> {
    return this.guard(new Promise<T>((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value)))))
  }

  /** Size of a remote file, or undefined when it does not exist. */
  async size(path: string): Promise<number | undefined> {
    try {
      const stats = await this.request<{ size: number }>((done) => this.sftp.stat(path, done))
      return stats.size
    } catch (error) {
      if ((error as { code?: unknown }).code === SFTP_NO_SUCH_FILE) return undefined
      throw error
    }
  }

  async upload(path: string, content: () => AsyncIterable<Buffer | string>, expected: ExpectedContent): Promise<void> {
    // 'w' truncates a leftover .part of an earlier attempt.
    const stream = this.sftp.createWriteStream(path, { flags: 'w', highWaterMark: UPLOAD_BUFFER_BYTES })
    // 'close' comes once the CLOSE is acknowledged (the server released the file): only then is
    // the rename safe. The error listener stays for the stream's whole life (a late CLOSE failure).
    const ended = new Promise<void>((resolve, reject) => {
      stream.once('close', () => resolve())
      stream.on('error', reject)
    })
    ended.catch(() => undefined)
    // A hand-written pump rather than stream.pipeline: on a dead connection ssh2's stream never
    // settles, and pipeline would then hold the producer (a database cursor, say) forever. Here
    // every wait races the connection's end, and leaving the loop returns the producer.
    try {
      for await (const chunk of verifiedContent(expected, () => this.touch())(content())) {
        if (!stream.write(chunk)) await this.guard(Promise.race([once(stream, 'drain'), ended]))
      }
      stream.end()
      await this.guard(ended)
    } catch (error) {
      stream.destroy()
      throw error
    }
  }

  /** The entries of a directory (ssh2 reads it to the end and closes the handle). */
  async list(path: string): Promise<{ name: string; size: number; isFile: boolean }[]> {
    const entries = await this.request<{ filename: string; attrs: { size: number; isFile(): boolean } }[]>((done) => this.sftp.readdir(path, done))
    return entries.map((entry) => ({ name: entry.filename, size: entry.attrs.size, isFile: entry.attrs.isFile() }))
  }

  /** A whole (small) file. */
  read(path: string): Promise<Buffer> {
    return this.request<Buffer>((done) => this.sftp.readFile(path, done))
  }

  /** Creates the directory unless it exists. */
  async ensureDirectory(path: string): Promise<void> {
    try {
      await this.request<void>((done) => this.sftp.mkdir(path, (error) => done(error, undefined)))
    } catch (error) {
      // Servers answer a bare FAILURE when it exists; whether it does is what matters.
      if ((await this.size(path)) === undefined) throw error
    }
  }

  rename(from: string, to: string): Promise<void> {
    return this.request<void>((done) => this.sftp.rename(from, to, (error) => done(error, undefined)))
  }

  /** Best effort: a leftover .part is harmless, it is overwritten by the next delivery of that name. */
  async remove(path: string): Promise<void> {
    await this.request<void>((done) => this.sftp.unlink(path, (error) => done(error, undefined))).catch(() => undefined)
  }

  close(): void {
    clearTimeout(this.stallTimer)
    this.client.end()
  }
}
