import { lstat, readdir, readFile, rename } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { ConfigError } from '../../config.js'
import { ensurePrivateDirectory, makeFilePrivate } from '../../lib/private-files.js'
import { createFileTransport, SftpTransport, type TransportDefaults } from '../carrier-delivery/index.js'
import type { CarrierConfig } from '../carriers/carriers.schema.js'

/**
 * A carrier's inbound location for acknowledgements (acknowledgement_inbound in CARRIERS_FILE): a
 * local directory, or a directory on the carrier's SFTP server. A file is moved into `processed/`
 * beside it only once it is stored, so nothing is lost when the service stops half-way.
 */

export const PROCESSED_DIRECTORY = 'processed'
/** An acknowledgement of an 834 is small; anything bigger is not one and is left for a person. */
export const INBOUND_FILE_LIMIT = 5 * 1024 * 1024

export interface InboundFile {
  name: string
  size: number
}

/** One visit to the inbound location (one SFTP connection). */
export interface InboxSession {
  /** Regular files waiting, oldest name first; hidden and `.part` files (uploads in progress) are skipped. */
  list(): Promise<InboundFile[]>
  read(name: string): Promise<string>
  /** Moves a stored file into processed/ (another name there is kept: the new one gets a suffix). */
  markProcessed(name: string, now: Date): Promise<void>
  close(): Promise<void>
}

export interface AcknowledgementInbox {
  /** Where, for logs (no secrets). */
  describe(): string
  open(): Promise<InboxSession>
}

/** Uploads in progress (`.part`, as our own transports write) and hidden files are not acknowledgements yet. */
export const waiting = (name: string) => !name.startsWith('.') && !name.endsWith('.part') && !name.endsWith('.tmp')

/** The name a file gets in processed/ when that name is taken (a carrier reusing a file name). */
export const processedNameOf = (name: string, now: Date) => `${name}.${now.toISOString().replace(/[-:.]/g, '')}`

export class DirectoryInbox implements AcknowledgementInbox {
  constructor(readonly directory: string) {}

  describe(): string {
    return `directory ${this.directory}`
  }

  async open(): Promise<InboxSession> {
    const directory = this.directory
    const processed = join(directory, PROCESSED_DIRECTORY)
    return {
      async list() {
        let entries
        try {
          entries = await readdir(directory, { withFileTypes: true })
        } catch (error) {
          // Not created yet: the carrier has sent nothing.
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
          throw error
        }
        const files: InboundFile[] = []
        for (const entry of entries) {
          if (!entry.isFile() || !waiting(entry.name)) continue
          files.push({ name: entry.name, size: (await lstat(join(directory, entry.name))).size })
        }
        return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      },
      read: (name) => readFile(join(directory, name), 'utf8'),
      async markProcessed(name, now) {
        // A 999 may copy a refused element (IK4-04), an SSN among them: processed/ is kept like our 834s.
        await ensurePrivateDirectory(processed)
        const taken = await lstat(join(processed, name)).then(
          () => true,
          () => false,
        )
        const target = join(processed, taken ? processedNameOf(name, now) : name)
        try {
          await rename(join(directory, name), target)
        } catch (error) {
          // Another worker moved it first (both stored it: the second found it stored already).
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
          return
        }
        await makeFilePrivate(target)
      },
      close: async () => undefined,
    }
  }
}

/** A directory on the carrier's SFTP server, over the connection its edi_transport describes. */
export class SftpInbox implements AcknowledgementInbox {
  constructor(
    private readonly transport: SftpTransport,
    readonly remoteDirectory: string,
  ) {}

  describe(): string {
    return `${this.transport.describe()}, inbound directory ${this.remoteDirectory}`
  }

  async open(): Promise<InboxSession> {
    const session = await this.transport.session()
    const directory = this.remoteDirectory
    const path = (...parts: string[]) => [directory, ...parts].join('/')
    return {
      async list() {
        const entries = await session.list(directory)
        return entries
          .filter((entry) => entry.isFile && waiting(entry.name))
          .map(({ name, size }) => ({ name, size }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      },
      read: async (name) => (await session.read(path(name))).toString('utf8'),
      async markProcessed(name, now) {
        await session.ensureDirectory(path(PROCESSED_DIRECTORY))
        const taken = (await session.size(path(PROCESSED_DIRECTORY, name))) !== undefined
        try {
          await session.rename(path(name), path(PROCESSED_DIRECTORY, taken ? processedNameOf(name, now) : name))
        } catch (error) {
          // Another worker moved it first.
          if ((await session.size(path(name))) !== undefined) throw error
        }
      },
      close: async () => session.close(),
    }
  }
}

/**
 * The inbox of each carrier with acknowledgement_inbound. An SFTP inbound path needs the carrier's
 * edi_transport to be SFTP (its login and host key pin are reused): otherwise the start stops here.
 */
export function createAcknowledgementInboxes(
  carriers: readonly CarrierConfig[],
  defaults: TransportDefaults,
): { carrierName: string; inbox: AcknowledgementInbox }[] {
  const inboxes: { carrierName: string; inbox: AcknowledgementInbox }[] = []
  for (const carrier of carriers) {
    const inbound = carrier.acknowledgement_inbound
    if (!inbound) continue
    if (carrier.distribution_format !== 'edi') {
      throw new ConfigError(`carrier ${carrier.name} has acknowledgement_inbound but distribution_format ${carrier.distribution_format}: only edi carriers acknowledge files`)
    }
    if (inbound.type === 'directory') {
      inboxes.push({ carrierName: carrier.name, inbox: new DirectoryInbox(resolve(inbound.path)) })
      continue
    }
    if (carrier.edi_transport?.type !== 'sftp') {
      throw new ConfigError(`carrier ${carrier.name}: acknowledgement_inbound of type sftp uses the carrier's SFTP connection, but its edi_transport is not sftp`)
    }
    const transport = createFileTransport(carrier.name, carrier.edi_transport, defaults)
    if (!(transport instanceof SftpTransport)) throw new ConfigError(`carrier ${carrier.name}: edi_transport did not give an SFTP connection`)
    inboxes.push({ carrierName: carrier.name, inbox: new SftpInbox(transport, inbound.remote_directory) })
  }
  return inboxes
}
