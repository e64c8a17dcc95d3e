import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ssh2 from 'ssh2'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError } from '../src/config.js'
import { CarrierRejectedError, CarrierUnavailableError } from '../src/modules/carrier-delivery/transports/api-connector.js'
import { createApiConnector, createFileTransport } from '../src/modules/carrier-delivery/transports/create-transport.js'
import { FileDeliveryError, type FileTransport } from '../src/modules/carrier-delivery/transports/file-transport.js'
import { SftpTransport } from '../src/modules/carrier-delivery/transports/sftp-transport.js'
import type { SftpTransportSettings } from '../src/modules/carrier-delivery/transports/transport.schema.js'
import { ed25519KeyPair, startSftpServer, type TestSftpServer } from './helpers/sftp-server.js'

const CHUNK = 64 * 1024

/** A file of `size` random bytes and a producer that streams it in chunks, optionally failing half-way. */
function testFile(size: number) {
  const bytes = randomBytes(size)
  const expected = { bytes: size, sha256: createHash('sha256').update(bytes).digest('hex') }
  const content = (failAfter?: number) =>
    async function* produce(): AsyncGenerator<Buffer> {
      for (let offset = 0; offset < size; offset += CHUNK) {
        if (failAfter !== undefined && offset >= failAfter) throw new Error('producer failed')
        yield bytes.subarray(offset, Math.min(size, offset + CHUNK))
      }
    }
  return { bytes, expected, content }
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error('expected a rejection')
}

describe('directory transport', () => {
  let outbound: string
  let transport: FileTransport
  let directory: string

  beforeEach(async () => {
    outbound = await mkdtemp(join(tmpdir(), 'outbound-'))
    directory = join(outbound, 'acme')
    transport = createFileTransport('acme', undefined, { outboundDirectory: outbound, env: {} })
  })
  afterEach(async () => {
    await rm(outbound, { recursive: true, force: true })
  })

  it('when a file is delivered, then it is byte-identical in <outbound>/<carrier> and no .part is left', async () => {
    const file = testFile(3 * 1024 * 1024 + 17)
    expect(transport.describe()).toBe(`directory ${directory}`)
    await expect(transport.deliver('acme_834.edi', file.content(), file.expected)).resolves.toEqual({ alreadyDelivered: false })
    expect((await readFile(join(directory, 'acme_834.edi'))).equals(file.bytes)).toBe(true)
    expect(await readdir(directory)).toEqual(['acme_834.edi'])
  })

  it('when the content fails half-way, then the delivery rejects, no file is left, and a retry delivers it once', async () => {
    const file = testFile(1024 * 1024)
    const error = await rejection(transport.deliver('f.edi', file.content(512 * 1024), file.expected))
    expect(error).toBeInstanceOf(FileDeliveryError)
    expect((error as FileDeliveryError).retryable).toBe(true)
    expect(error.message).toContain('producer failed')
    expect(await readdir(directory)).toEqual([])

    await expect(transport.deliver('f.edi', file.content(), file.expected)).resolves.toEqual({ alreadyDelivered: false })
    expect(await readdir(directory)).toEqual(['f.edi'])
    expect((await readFile(join(directory, 'f.edi'))).equals(file.bytes)).toBe(true)
  })

  it('when a leftover .part exists, then it is overwritten', async () => {
    const file = testFile(100_000)
    await mkdir(directory, { recursive: true })
    await writeFile(join(directory, 'f.edi.part'), randomBytes(300_000))
    await transport.deliver('f.edi', file.content(), file.expected)
    expect(await readdir(directory)).toEqual(['f.edi'])
    expect((await readFile(join(directory, 'f.edi'))).equals(file.bytes)).toBe(true)
  })

  it('when the file was already delivered, then a second delivery reports it and leaves the file untouched', async () => {
    const file = testFile(200_000)
    await transport.deliver('f.edi', file.content(), file.expected)
    const before = await stat(join(directory, 'f.edi'))
    let produced = false
    const again = await transport.deliver('f.edi', () => {
      produced = true
      return file.content()()
    }, file.expected)
    expect(again).toEqual({ alreadyDelivered: true })
    expect(produced).toBe(false)
    const after = await stat(join(directory, 'f.edi'))
    expect([after.ino, after.mtimeMs, after.size]).toEqual([before.ino, before.mtimeMs, before.size])
  })

  it('when the final name holds other content of the same size, then it is not replaced', async () => {
    const file = testFile(1000)
    const other = randomBytes(1000)
    await mkdir(directory, { recursive: true })
    await writeFile(join(directory, 'f.edi'), other)
    const error = await rejection(transport.deliver('f.edi', file.content(), file.expected))
    expect(error).toMatchObject({ code: 'destination_conflict', retryable: false })
    expect((await readFile(join(directory, 'f.edi'))).equals(other)).toBe(true)
  })

  it('when the content differs from what was expected, then nothing is delivered', async () => {
    const file = testFile(10_000)
    const error = await rejection(transport.deliver('f.edi', file.content(), { bytes: 10_000, sha256: '0'.repeat(64) }))
    expect(error).toMatchObject({ code: 'content_mismatch', retryable: false })
    expect(existsSync(join(directory, 'f.edi'))).toBe(false)
    expect(existsSync(join(directory, 'f.edi.part'))).toBe(false)
  })

  it('when content comes as strings, then their UTF-8 bytes are written', async () => {
    const text = 'ISA*00*héllo~\n'.repeat(1000)
    const bytes = Buffer.from(text)
    const expected = { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }
    await transport.deliver('t.edi', async function* () {
      for (const line of text.split(/(?<=\n)/)) yield line
    }, expected)
    expect((await readFile(join(directory, 't.edi'))).equals(bytes)).toBe(true)
  })

  it.each(['a/b.edi', '../x.edi', '..', '.', 'x\u0000.edi', 'x\n.edi', '', 'back\\slash', 'f.edi.part', 'x'.repeat(201)])(
    'when the file name is %j, then it is refused before anything is written',
    async (name) => {
      const file = testFile(10)
      const error = await rejection(transport.deliver(name, file.content(), file.expected))
      expect(error).toMatchObject({ code: 'invalid_file_name', retryable: false })
      expect(error.message).toMatch(/^Invalid delivery file name/)
      expect(existsSync(directory)).toBe(false)
    },
  )
})

describe('sftp transport', () => {
  let server: TestSftpServer
  let clientKeyDir: string
  const env = { CARRIER_SFTP_PASSWORD: '' }
  const inbox = () => join(server.root, 'inbox')
  const renamesTo = (name: string) => server.renames.filter((r) => r.to === `inbox/${name}`).length

  function sftp(overrides: Partial<SftpTransportSettings> = {}, environment: Record<string, string> = env): FileTransport {
    const settings: SftpTransportSettings = {
      type: 'sftp',
      host: server.host,
      port: server.port,
      username: server.username,
      password_env: 'CARRIER_SFTP_PASSWORD',
      remote_directory: 'inbox',
      host_key_sha256: server.hostKeySha256,
      ...overrides,
    }
    return createFileTransport('acme', settings, { outboundDirectory: '/nonexistent', env: environment })
  }

  beforeAll(async () => {
    const clientKey = ed25519KeyPair()
    clientKeyDir = await mkdtemp(join(tmpdir(), 'sftp-client-'))
    await writeFile(join(clientKeyDir, 'id_ed25519'), clientKey.private, { mode: 0o600 })
    server = await startSftpServer({ authorizedKey: clientKey.public })
    env.CARRIER_SFTP_PASSWORD = server.password
    await mkdir(inbox())
  })
  afterAll(async () => {
    await server?.close()
    await rm(clientKeyDir, { recursive: true, force: true })
  })
  afterEach(() => {
    server.faults = {}
  })

  it('when a file is delivered, then the server holds an identical file under its final name only', async () => {
    const file = testFile(4 * 1024 * 1024 + 5)
    const transport = sftp()
    expect(transport.describe()).toBe(`sftp://carrier@127.0.0.1:${server.port}, directory inbox, host key ${server.hostKeySha256}`)
    await expect(transport.deliver('ok.edi', file.content(), file.expected)).resolves.toEqual({ alreadyDelivered: false })
    expect((await readFile(join(inbox(), 'ok.edi'))).equals(file.bytes)).toBe(true)
    expect(existsSync(join(inbox(), 'ok.edi.part'))).toBe(false)
    expect(renamesTo('ok.edi')).toBe(1)
  })

  it('when the connection drops mid-transfer, then the delivery rejects with no final file, and a retry delivers it once', async () => {
    const file = testFile(2 * 1024 * 1024)
    server.faults.dropAfterWriteBytes = server.bytesReceived + 1024 * 1024
    const error = await rejection(sftp().deliver('drop.edi', file.content(), file.expected))
    expect(error).toMatchObject({ code: 'transfer_failed', retryable: true })
    expect(error.message).toContain('drop.edi')
    expect(error.message).toContain(`127.0.0.1:${server.port}`)
    expect(existsSync(join(inbox(), 'drop.edi'))).toBe(false)
    expect((await stat(join(inbox(), 'drop.edi.part'))).size).toBeLessThanOrEqual(1024 * 1024)

    await expect(sftp().deliver('drop.edi', file.content(), file.expected)).resolves.toEqual({ alreadyDelivered: false })
    expect((await readFile(join(inbox(), 'drop.edi'))).equals(file.bytes)).toBe(true)
    expect(existsSync(join(inbox(), 'drop.edi.part'))).toBe(false)
    expect(renamesTo('drop.edi')).toBe(1)
  })

  it('when the answer to the rename is lost, then the retry finds the file delivered and sends nothing', async () => {
    const file = testFile(300_000)
    server.faults.dropAfterRename = true
    const error = await rejection(sftp().deliver('lost.edi', file.content(), file.expected))
    expect(error).toMatchObject({ code: 'transfer_failed' })
    const received = server.bytesReceived

    await expect(sftp().deliver('lost.edi', file.content(), file.expected)).resolves.toEqual({ alreadyDelivered: true })
    expect(server.bytesReceived).toBe(received)
    expect(renamesTo('lost.edi')).toBe(1)
    expect((await readFile(join(inbox(), 'lost.edi'))).equals(file.bytes)).toBe(true)
  })

  it('when the server stops answering mid-transfer, then the attempt ends after the stall timeout and releases the producer', async () => {
    const file = testFile(2 * 1024 * 1024)
    server.faults.stallAfterWriteBytes = server.bytesReceived + 512 * 1024
    const transport = new SftpTransport({
      host: server.host,
      port: server.port,
      username: server.username,
      password: server.password,
      remoteDirectory: 'inbox',
      stallTimeoutMs: 300,
    })
    let released = false
    const produce = file.content()
    const error = await rejection(
      transport.deliver('stall.edi', async function* () {
        try {
          yield* produce()
        } finally {
          released = true
        }
      }, file.expected),
    )
    expect(error).toMatchObject({ code: 'transfer_failed', retryable: true })
    expect(error.message).toContain('no progress for 300 ms')
    expect(released).toBe(true)
    expect(existsSync(join(inbox(), 'stall.edi'))).toBe(false)
  })

  it('when the final name exists with another size, then it is not replaced', async () => {
    const file = testFile(1000)
    await writeFile(join(inbox(), 'taken.edi'), 'someone else')
    const error = await rejection(sftp().deliver('taken.edi', file.content(), file.expected))
    expect(error).toMatchObject({ code: 'destination_conflict', retryable: false })
    expect(await readFile(join(inbox(), 'taken.edi'), 'utf8')).toBe('someone else')
  })

  it('when the host key does not match the pin, then the connection is refused before login or upload', async () => {
    const other = ssh2.utils.parseKey(ed25519KeyPair().private)
    if (other instanceof Error) throw other
    const otherPin = createHash('sha256').update(other.getPublicSSH()).digest('hex')
    const { passwordAttempts, bytesReceived } = server
    const file = testFile(1000)
    const error = await rejection(sftp({ host_key_sha256: otherPin }).deliver('pinned.edi', file.content(), file.expected))
    expect(error).toMatchObject({ code: 'host_key_mismatch', retryable: false })
    expect(error.message).toContain(server.hostKeySha256)
    expect(server.passwordAttempts).toBe(passwordAttempts)
    expect(server.bytesReceived).toBe(bytesReceived)
    expect(existsSync(join(inbox(), 'pinned.edi.part'))).toBe(false)
  })

  it('when the password is wrong, then the login is refused with a message that does not contain it', async () => {
    const wrong = 'wrong-Pa55word-do-not-log'
    const file = testFile(1000)
    const error = await rejection(sftp({}, { CARRIER_SFTP_PASSWORD: wrong }).deliver('auth.edi', file.content(), file.expected))
    expect(error).toMatchObject({ code: 'authentication_failed', retryable: false })
    expect(error.message).toContain('auth.edi')
    expect(error.message).toContain('127.0.0.1')
    expect(error.message).not.toContain(wrong)
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(wrong)
    expect(existsSync(join(inbox(), 'auth.edi'))).toBe(false)
  })

  it('when a private key file is configured and no pin, then it logs in with the key and says the host key is not pinned', async () => {
    const file = testFile(50_000)
    const transport = sftp({ password_env: undefined, private_key_file: join(clientKeyDir, 'id_ed25519'), host_key_sha256: undefined }, {})
    expect(transport.describe()).toContain('host key NOT pinned')
    await expect(transport.deliver('key.edi', file.content(), file.expected)).resolves.toEqual({ alreadyDelivered: false })
    expect((await readFile(join(inbox(), 'key.edi'))).equals(file.bytes)).toBe(true)
  })

  it('when the settings name a missing secret or key, then creating the transport is a configuration error', () => {
    expect(() => sftp({}, {})).toThrow(ConfigError)
    expect(() => sftp({}, {})).toThrow(/CARRIER_SFTP_PASSWORD is not set/)
    expect(() => sftp({ password_env: undefined })).toThrow(/password_env or private_key_file/)
    expect(() => sftp({ password_env: undefined, private_key_file: '/nonexistent/key' })).toThrow(/cannot be read/)
    expect(() => sftp({ host_key_sha256: 'SHA256:tooshort' })).toThrow(/32 bytes/)
  })
})

describe('api connector', () => {
  let http: Server
  let baseUrl: string
  const requests: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = []
  const routes: Record<string, (res: ServerResponse) => void> = {
    '/v1/enrollments': (res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"enr_1","__proto__":{"x":1}}'),
    '/v1/invalid': (res) => res.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"member 123-45-6789 has no birth date"}'),
    '/v1/down': (res) => res.writeHead(503, { 'retry-after': '7' }).end('maintenance'),
    '/v1/hang': () => undefined,
  }

  beforeAll(async () => {
    http = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        requests.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() })
        const route = routes[req.url ?? '']
        if (route) route(res)
        else res.writeHead(404).end()
      })
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()))
    baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/`
  })
  afterAll(async () => {
    http.closeAllConnections()
    await new Promise<void>((resolve) => http.close(() => resolve()))
  })

  const connector = (timeout_ms = 2000) => createApiConnector('principal', { base_url: baseUrl, token_env: 'PRINCIPAL_TOKEN', timeout_ms }, { env: { PRINCIPAL_TOKEN: 'tok_secret' } })

  it('when the carrier accepts, then the result carries its answer and the request carried the key and the token', async () => {
    const result = await connector().submit('/v1/enrollments', { member: 'm_1' }, 'delivery-42')
    expect(result).toEqual({ status: 201, body: { id: 'enr_1' } })
    const sent = requests.at(-1)
    expect(sent).toMatchObject({ method: 'POST', url: '/v1/enrollments', body: '{"member":"m_1"}' })
    expect(sent?.headers).toMatchObject({ 'idempotency-key': 'delivery-42', authorization: 'Bearer tok_secret', 'content-type': 'application/json' })
  })

  it('when the carrier answers 422, then a non-retryable CarrierRejectedError carries the status and a masked excerpt', async () => {
    const error = await rejection(connector().submit('/v1/invalid', {}, 'k1'))
    expect(error).toBeInstanceOf(CarrierRejectedError)
    expect(error).toMatchObject({ status: 422, retryable: false })
    expect((error as CarrierRejectedError).bodyExcerpt).toContain('has no birth date')
    expect(error.message).not.toContain('123-45-6789')
  })

  it('when the carrier answers 503, then a retryable CarrierUnavailableError carries Retry-After', async () => {
    const error = await rejection(connector().submit('/v1/down', {}, 'k2'))
    expect(error).toBeInstanceOf(CarrierUnavailableError)
    expect(error).toMatchObject({ status: 503, retryable: true, retryAfterMs: 7000 })
  })

  it('when the carrier never answers, then the call times out as CarrierUnavailableError', async () => {
    const started = Date.now()
    const error = await rejection(connector(300).submit('/v1/hang', {}, 'k3'))
    expect(error).toBeInstanceOf(CarrierUnavailableError)
    expect(error.message).toContain('within 300 ms')
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('when nothing listens, then the call fails as CarrierUnavailableError', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const unreachable = createApiConnector('principal', { base_url: `http://127.0.0.1:${port}` }, { env: {} })
    const error = await rejection(unreachable.submit('/v1/enrollments', {}, 'k4'))
    expect(error).toBeInstanceOf(CarrierUnavailableError)
    expect(error.message).toContain('ECONNREFUSED')
  })

  it('when a path could change the host, then it is refused before any request', async () => {
    await expect(connector().submit('@evil.example/x', {}, 'k5')).rejects.toThrow(/single \//)
    await expect(connector().submit('//evil.example/x', {}, 'k5')).rejects.toThrow(/single \//)
  })

  it('when the settings are missing or name an unset token, then creating the connector is a configuration error', () => {
    expect(() => createApiConnector('principal', undefined, { env: {} })).toThrow(/no api_connection/)
    expect(() => createApiConnector('principal', { base_url: baseUrl, token_env: 'PRINCIPAL_TOKEN' }, { env: {} })).toThrow(ConfigError)
    expect(() => createApiConnector('principal', { base_url: 'https://user:pw@carrier.example' }, { env: {} })).toThrow(/user name or password/)
  })
})
