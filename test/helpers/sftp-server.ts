import { createHash, timingSafeEqual } from 'node:crypto'
import { mkdir, mkdtemp, open, readdir, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join, posix } from 'node:path'
import ssh2, { type AuthContext, type Connection, type SFTPWrapper } from 'ssh2'

const { STATUS_CODE } = ssh2.utils.sftp

/**
 * A minimal SFTP server on 127.0.0.1 over a temporary directory, for tests of the SFTP transport
 * and end-to-end deliveries. It behaves like OpenSSH where it matters here: RENAME onto an existing
 * name fails, paths are relative to the login directory (the temp directory, which is also `/`).
 */
export interface SftpServerOptions {
  username?: string
  password?: string
  /** An OpenSSH public key (`ssh-ed25519 AAAA...`) accepted for public key login. */
  authorizedKey?: string
}

/** Faults for the next transfers; each fires once and clears itself. */
export interface SftpServerFaults {
  /** Destroy the connection (no goodbye) once more than this many bytes of WRITE data arrived. */
  dropAfterWriteBytes?: number
  /** Perform the next RENAME, then destroy the connection instead of answering. */
  dropAfterRename?: boolean
  /** Stop answering WRITE requests (the connection stays up) once more than this many bytes arrived. */
  stallAfterWriteBytes?: number
}

export interface TestSftpServer {
  host: string
  port: number
  /** The directory the server serves; the login directory and `/`. */
  root: string
  username: string
  password: string
  /** The host key pin as OpenSSH prints it (`SHA256:<base64>`). */
  hostKeySha256: string
  faults: SftpServerFaults
  /** Every successful RENAME, as the client named the paths. */
  renames: Array<{ from: string; to: string }>
  /** Bytes of WRITE data received over the server's life. */
  bytesReceived: number
  /** Password logins tried (right or wrong): shows whether a client ever sent its password. */
  passwordAttempts: number
  close(): Promise<void>
}

/**
 * An ed25519 key pair both halves of which ssh2 can read back. ssh2 1.17's generator strips a
 * leading zero byte of the public key, so about one pair in 256 is unreadable
 * (mscdex/ssh2#1513): such a pair is drawn again rather than failing a test at random.
 */
export function ed25519KeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = ssh2.utils.generateKeyPairSync('ed25519')
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error) && !(ssh2.utils.parseKey(pair.public) instanceof Error)) return pair
  }
}

export async function startSftpServer(options: SftpServerOptions = {}): Promise<TestSftpServer> {
  const username = options.username ?? 'carrier'
  const password = options.password ?? 'correct horse battery staple'
  const root = await mkdtemp(join(tmpdir(), 'sftp-server-'))
  const hostKey = ed25519KeyPair()
  const parsedHostKey = ssh2.utils.parseKey(hostKey.private)
  if (parsedHostKey instanceof Error) throw parsedHostKey
  const authorized = options.authorizedKey ? ssh2.utils.parseKey(options.authorizedKey) : undefined
  if (authorized instanceof Error) throw authorized

  const sockets = new Map<number, Socket>()
  const server: TestSftpServer = {
    host: '127.0.0.1',
    port: 0,
    root,
    username,
    password,
    hostKeySha256: `SHA256:${createHash('sha256').update(parsedHostKey.getPublicSSH()).digest('base64').replace(/=+$/, '')}`,
    faults: {},
    renames: [],
    bytesReceived: 0,
    passwordAttempts: 0,
    close: async () => {
      for (const socket of sockets.values()) socket.destroy()
      await new Promise<void>((resolve) => tcp.close(() => resolve()))
      await new Promise<void>((resolve) => ssh.close(() => resolve()))
      await rm(root, { recursive: true, force: true })
    },
  }

  const ssh = new ssh2.Server({ hostKeys: [hostKey.private] }, (client: Connection, info) => {
    const socket = sockets.get(info.port)
    const drop = (): void => void socket?.destroy()
    client.on('error', () => undefined) // a client vanishing mid-transfer is what the faults test
    client.on('authentication', (ctx: AuthContext) => {
      if (ctx.method === 'password') server.passwordAttempts += 1
      if (ctx.username !== username) return ctx.reject()
      if (ctx.method === 'password' && safeEqual(ctx.password, password)) return ctx.accept()
      if (ctx.method === 'publickey' && authorized && ctx.key.algo === authorized.type && ctx.key.data.equals(authorized.getPublicSSH())) {
        // Without a signature the client only asks whether the key would do.
        if (!ctx.signature || !ctx.blob) return ctx.accept()
        if (authorized.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true) return ctx.accept()
      }
      ctx.reject(authorized ? ['password', 'publickey'] : ['password'])
    })
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        acceptSession().on('sftp', (acceptSftp) => serveSftp(acceptSftp(), root, server, drop))
      })
    })
  })

  const tcp = createServer((socket) => {
    const port = socket.remotePort ?? 0
    sockets.set(port, socket)
    socket.once('close', () => sockets.delete(port))
    socket.on('error', () => undefined)
    ssh.injectSocket(socket)
  })
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', () => resolve()))
  server.port = (tcp.address() as AddressInfo).port
  return server
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

function serveSftp(sftp: SFTPWrapper, root: string, server: TestSftpServer, drop: () => void): void {
  const handles = new Map<number, FileHandle>()
  let nextHandle = 1
  // Paths are resolved under root: `..` cannot leave it, `/` is root.
  const local = (path: string): string => join(root, posix.normalize(posix.join('/', path)))
  const handleOf = (buffer: Buffer): FileHandle | undefined => (buffer.length === 4 ? handles.get(buffer.readUInt32BE(0)) : undefined)
  const fail = (reqId: number, error: unknown): void => {
    const code = (error as NodeJS.ErrnoException).code
    sftp.status(reqId, code === 'ENOENT' ? STATUS_CODE.NO_SUCH_FILE : code === 'EACCES' ? STATUS_CODE.PERMISSION_DENIED : STATUS_CODE.FAILURE)
  }
  const attrsOf = async (path: string) => {
    const stats = await stat(path)
    return { mode: stats.mode, uid: stats.uid, gid: stats.gid, size: stats.size, atime: Math.floor(stats.atimeMs / 1000), mtime: Math.floor(stats.mtimeMs / 1000) }
  }

  // A dropped connection leaves its files open; release them so the directory can be removed.
  sftp.on('close', () => {
    for (const file of handles.values()) void file.close().catch(() => undefined)
    handles.clear()
  })
  sftp.on('OPEN', (reqId, filename, flags) => {
    // ssh2 writes exclusive modes as 'xw'; Node spells them 'wx'.
    const mode = ssh2.utils.sftp.flagsToString(flags)?.replace(/^x(.)(\+?)$/, '$1x$2')
    if (!mode) return sftp.status(reqId, STATUS_CODE.OP_UNSUPPORTED)
    open(local(filename), mode).then(
      (file) => {
        const id = nextHandle++
        handles.set(id, file)
        const handle = Buffer.alloc(4)
        handle.writeUInt32BE(id, 0)
        sftp.handle(reqId, handle)
      },
      (error) => fail(reqId, error),
    )
  })
  sftp.on('WRITE', (reqId, handle, offset, data) => {
    const file = handleOf(handle)
    if (!file) return sftp.status(reqId, STATUS_CODE.FAILURE)
    const limit = server.faults.dropAfterWriteBytes
    if (limit !== undefined && server.bytesReceived + data.length > limit) {
      server.faults.dropAfterWriteBytes = undefined
      return drop()
    }
    const stallAt = server.faults.stallAfterWriteBytes
    if (stallAt !== undefined && server.bytesReceived + data.length > stallAt) return
    server.bytesReceived += data.length
    file.write(data, 0, data.length, offset).then(
      () => sftp.status(reqId, STATUS_CODE.OK),
      (error) => fail(reqId, error),
    )
  })
  // Directory listings and reads, for clients that pick files up (the acknowledgement inbox).
  const directories = new Map<number, { path: string; names: string[]; listed: boolean }>()
  const newHandle = (): { id: number; buffer: Buffer } => {
    const id = nextHandle++
    const buffer = Buffer.alloc(4)
    buffer.writeUInt32BE(id, 0)
    return { id, buffer }
  }
  sftp.on('OPENDIR', (reqId, path) => {
    readdir(local(path)).then(
      (names) => {
        const handle = newHandle()
        directories.set(handle.id, { path: local(path), names, listed: false })
        sftp.handle(reqId, handle.buffer)
      },
      (error) => fail(reqId, error),
    )
  })
  sftp.on('READDIR', (reqId, handle) => {
    const directory = handle.length === 4 ? directories.get(handle.readUInt32BE(0)) : undefined
    if (!directory) return sftp.status(reqId, STATUS_CODE.FAILURE)
    if (directory.listed) return sftp.status(reqId, STATUS_CODE.EOF)
    directory.listed = true
    Promise.all(directory.names.map(async (name) => ({ filename: name, longname: name, attrs: await attrsOf(join(directory.path, name)) }))).then(
      (entries) => sftp.name(reqId, entries),
      (error) => fail(reqId, error),
    )
  })
  sftp.on('READ', (reqId, handle, offset, length) => {
    const file = handleOf(handle)
    if (!file) return sftp.status(reqId, STATUS_CODE.FAILURE)
    const buffer = Buffer.alloc(length)
    file.read(buffer, 0, length, offset).then(
      ({ bytesRead }) => (bytesRead === 0 ? sftp.status(reqId, STATUS_CODE.EOF) : sftp.data(reqId, buffer.subarray(0, bytesRead))),
      (error) => fail(reqId, error),
    )
  })
  sftp.on('FSTAT', (reqId, handle) => {
    const file = handleOf(handle)
    if (!file) return sftp.status(reqId, STATUS_CODE.FAILURE)
    file.stat().then(
      (stats) => sftp.attrs(reqId, { mode: stats.mode, uid: stats.uid, gid: stats.gid, size: stats.size, atime: Math.floor(stats.atimeMs / 1000), mtime: Math.floor(stats.mtimeMs / 1000) }),
      (error) => fail(reqId, error),
    )
  })
  sftp.on('MKDIR', (reqId, path) => {
    mkdir(local(path)).then(
      () => sftp.status(reqId, STATUS_CODE.OK),
      (error) => fail(reqId, error),
    )
  })
  sftp.on('CLOSE', (reqId, handle) => {
    if (handle.length === 4 && directories.delete(handle.readUInt32BE(0))) return sftp.status(reqId, STATUS_CODE.OK)
    const file = handleOf(handle)
    if (!file) return sftp.status(reqId, STATUS_CODE.FAILURE)
    handles.delete(handle.readUInt32BE(0))
    file.close().then(
      () => sftp.status(reqId, STATUS_CODE.OK),
      (error) => fail(reqId, error),
    )
  })
  sftp.on('FSETSTAT', (reqId) => sftp.status(reqId, STATUS_CODE.OK))
  sftp.on('SETSTAT', (reqId) => sftp.status(reqId, STATUS_CODE.OK))
  const statRequest = (reqId: number, path: string): void => {
    attrsOf(local(path)).then(
      (attrs) => sftp.attrs(reqId, attrs),
      (error) => fail(reqId, error),
    )
  }
  sftp.on('STAT', statRequest)
  sftp.on('LSTAT', statRequest)
  sftp.on('REALPATH', (reqId, path) => {
    const absolute = posix.normalize(posix.join('/', path))
    sftp.name(reqId, [{ filename: absolute, longname: absolute, attrs: { mode: 0o40755, uid: 0, gid: 0, size: 0, atime: 0, mtime: 0 } }])
  })
  sftp.on('REMOVE', (reqId, path) => {
    unlink(local(path)).then(
      () => sftp.status(reqId, STATUS_CODE.OK),
      (error) => fail(reqId, error),
    )
  })
  sftp.on('RENAME', (reqId, from, to) => {
    const target = local(to)
    // SFTP v3 (and OpenSSH's server) refuse to rename onto an existing name.
    stat(target).then(
      () => sftp.status(reqId, STATUS_CODE.FAILURE, 'target exists'),
      () =>
        rename(local(from), target).then(
          () => {
            server.renames.push({ from, to })
            if (server.faults.dropAfterRename) {
              server.faults.dropAfterRename = undefined
              return drop()
            }
            sftp.status(reqId, STATUS_CODE.OK)
          },
          (error) => fail(reqId, error),
        ),
    )
  })
}
