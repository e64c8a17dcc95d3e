import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import ssh2 from 'ssh2'
import { ConfigError } from '../../../config.js'
import { urlShapeRefusal } from '../../../lib/outbound-url.js'
import { ApiCarrierConnector } from './api-connector.js'
import { DirectoryTransport } from './directory-transport.js'
import type { FileTransport } from './file-transport.js'
import { parseHostKeyPin, SftpTransport } from './sftp-transport.js'
import type { ApiConnectionSettings, EdiTransportSettings, SftpTransportSettings } from './transport.schema.js'

export interface TransportDefaults {
  /** The deployment's outbound directory; a carrier without settings gets `<it>/<carrier name>`. */
  outboundDirectory: string
  /** Where the secrets named by the settings are read (the parsed environment, from main/). */
  env: Readonly<Record<string, string | undefined>>
}

const DEFAULT_SFTP_PORT = 22
const DEFAULT_API_TIMEOUT_MS = 30_000

/**
 * The transport for an edi carrier. Every secret and key file is resolved here, so a missing one
 * is a configuration error naming the carrier and the variable, not a failed delivery later.
 */
export function createFileTransport(
  carrierName: string,
  settings: EdiTransportSettings | undefined,
  defaults: TransportDefaults,
): FileTransport {
  // The name becomes a directory name: the catalogue's pattern is checked again here.
  if (!/^[a-z0-9_]+$/.test(carrierName)) throw new ConfigError(`Invalid carrier name ${JSON.stringify(carrierName)}`)
  if (!settings || settings.type === 'directory') {
    return new DirectoryTransport(resolve(settings?.path ?? join(defaults.outboundDirectory, carrierName)))
  }
  return createSftpTransport(carrierName, settings, defaults)
}

function createSftpTransport(carrierName: string, settings: SftpTransportSettings, defaults: TransportDefaults): SftpTransport {
  const where = `carrier ${carrierName} (edi_transport)`
  if (settings.password_env === undefined && settings.private_key_file === undefined) {
    throw new ConfigError(`${where}: sftp needs password_env or private_key_file`)
  }
  const password = settings.password_env === undefined ? undefined : secretFrom(defaults.env, settings.password_env, where)
  let privateKey: Buffer | undefined
  if (settings.private_key_file !== undefined) {
    try {
      privateKey = readFileSync(settings.private_key_file)
    } catch (error) {
      throw new ConfigError(`${where}: private_key_file ${settings.private_key_file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
    }
    // An encrypted or malformed key would otherwise surface as a login failure at the first delivery.
    const parsed = ssh2.utils.parseKey(privateKey)
    if (parsed instanceof Error || !parsed.isPrivateKey()) {
      const detail = parsed instanceof Error ? parsed.message : 'it holds a public key'
      throw new ConfigError(`${where}: private_key_file ${settings.private_key_file} is not an unencrypted private key (${detail})`)
    }
  }
  let hostKeySha256: Buffer | undefined
  if (settings.host_key_sha256 !== undefined) {
    try {
      hostKeySha256 = parseHostKeyPin(settings.host_key_sha256)
    } catch (error) {
      throw new ConfigError(`${where}: ${(error as Error).message}`)
    }
  }
  return new SftpTransport({
    host: settings.host,
    port: settings.port ?? DEFAULT_SFTP_PORT,
    username: settings.username,
    password,
    privateKey,
    remoteDirectory: settings.remote_directory ?? '.',
    hostKeySha256,
  })
}

/** The connector of an api carrier; it must have api_connection settings. */
export function createApiConnector(
  carrierName: string,
  settings: ApiConnectionSettings | undefined,
  defaults: Pick<TransportDefaults, 'env'>,
): ApiCarrierConnector {
  const where = `carrier ${carrierName} (api_connection)`
  if (!settings) throw new ConfigError(`carrier ${carrierName} has no api_connection settings`)
  // The URL comes from the deployment's own configuration, not from clients, so it is not held to
  // the webhook SSRF policy (carrier test endpoints may be private); only its shape is checked.
  const refusal = urlShapeRefusal(settings.base_url)
  if (refusal) throw new ConfigError(`${where}: base_url ${refusal.detail}`)
  return new ApiCarrierConnector({
    baseUrl: settings.base_url,
    token: settings.token_env === undefined ? undefined : secretFrom(defaults.env, settings.token_env, where),
    timeoutMs: settings.timeout_ms ?? DEFAULT_API_TIMEOUT_MS,
  })
}

function secretFrom(env: Readonly<Record<string, string | undefined>>, name: string, where: string): string {
  const value = env[name]
  if (value === undefined || value === '') throw new ConfigError(`${where}: environment variable ${name} is not set`)
  return value
}
