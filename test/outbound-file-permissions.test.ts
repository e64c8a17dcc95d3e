import { createHash } from 'node:crypto'
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensurePrivateDirectory } from '../src/lib/private-files.js'
import { DirectoryInbox } from '../src/modules/acknowledgements/acknowledgements.inbox.js'
import { DirectoryTransport } from '../src/modules/carrier-delivery/transports/directory-transport.js'

// 834 files hold SSNs in clear: only the service's user may read them, so they are written 0600
// in 0700 directories, and the same holds for the carriers' acknowledgements kept in processed/.

let root: string
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'outbound-modes-'))
})
afterAll(async () => rm(root, { recursive: true, force: true }))

const modeOf = async (path: string) => (await stat(path)).mode & 0o777
const CONTENT = 'ISA*00*          *00*          *ZZ*ENROLLSYNC     *ZZ*CARRIER        *~INS*Y*18*030*XN*A*E**FT~REF*0F*123456789~'
const expected = { bytes: Buffer.byteLength(CONTENT), sha256: createHash('sha256').update(CONTENT).digest('hex') }
const deliver = (transport: DirectoryTransport, name: string) =>
  transport.deliver(
    name,
    async function* () {
      yield CONTENT
    },
    expected,
  )

describe('834 files in the outbound directory', () => {
  it('when the outbound directory does not exist, then it and the carrier directory are made 0700 and the file 0600', async () => {
    const outbound = join(root, 'fresh', 'outbound')
    const carrierDirectory = join(outbound, 'sandbox_edi')
    const warnings: string[] = []
    const transport = new DirectoryTransport(carrierDirectory, (message) => warnings.push(message))
    expect(await deliver(transport, 'full_834.edi')).toEqual({ alreadyDelivered: false })

    expect(await modeOf(outbound)).toBe(0o700)
    expect(await modeOf(carrierDirectory)).toBe(0o700)
    expect(await modeOf(join(carrierDirectory, 'full_834.edi'))).toBe(0o600)
    expect(await readFile(join(carrierDirectory, 'full_834.edi'), 'utf8')).toBe(CONTENT)
    expect(warnings).toEqual([])
  })

  it('when the directory exists open to others and a leftover .part is world-readable, then the directory is tightened to 0700 and the file still comes out 0600', async () => {
    const carrierDirectory = join(root, 'existing')
    await mkdir(carrierDirectory)
    await chmod(carrierDirectory, 0o755)
    await writeFile(join(carrierDirectory, 'change_834.edi.part'), 'half a file from a crashed attempt')
    await chmod(join(carrierDirectory, 'change_834.edi.part'), 0o644)
    const warnings: string[] = []

    await deliver(new DirectoryTransport(carrierDirectory, (message) => warnings.push(message)), 'change_834.edi')

    expect(await modeOf(carrierDirectory)).toBe(0o700)
    expect(await modeOf(join(carrierDirectory, 'change_834.edi'))).toBe(0o600)
    expect(await readFile(join(carrierDirectory, 'change_834.edi'), 'utf8')).toBe(CONTENT)
    expect(warnings).toEqual([])
  })

  it('when a directory cannot be tightened, then a warning names it and its mode, never the files', async () => {
    // /proc/self is mode 0555 and refuses chmod even to root: a stand-in for a share owned by another user.
    if (process.platform !== 'linux') return
    const warnings: string[] = []
    await ensurePrivateDirectory('/proc/self', (message) => warnings.push(message))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^\/proc\/self is open to other users \(mode 555\) and could not be made 0700 \(E[A-Z]+\)/)
  })
})

describe("carriers' acknowledgements kept in processed/", () => {
  it('when an acknowledgement is moved into processed/, then processed/ is 0700 and the file 0600', async () => {
    const inbox = join(root, 'inbox')
    await mkdir(inbox)
    await writeFile(join(inbox, '999-0001.x12'), 'ISA*00*~IK4*2*67*7*123456789~')
    await chmod(join(inbox, '999-0001.x12'), 0o644)
    const session = await new DirectoryInbox(inbox).open()
    await session.markProcessed('999-0001.x12', new Date('2026-11-25T10:00:00.000Z'))
    await session.close()

    expect(await modeOf(join(inbox, 'processed'))).toBe(0o700)
    expect(await modeOf(join(inbox, 'processed', '999-0001.x12'))).toBe(0o600)
  })
})
