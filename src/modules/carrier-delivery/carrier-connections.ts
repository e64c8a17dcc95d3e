import { messageOf } from './transports/file-transport.js'
import type { CarrierConfig } from '../carriers/carriers.schema.js'
import type { CarrierSettings } from './carrier-settings.js'
import type { CarrierApiResult } from './transports/api-connector.js'
import { createApiConnector, createFileTransport } from './transports/create-transport.js'
import type { FileTransport } from './transports/file-transport.js'

/** What an api carrier is sent through: the HTTP connector, or a sandbox carrier's stand-in. */
export interface CarrierApi {
  describe(): string
  submit(path: string, body: unknown, idempotencyKey: string): Promise<CarrierApiResult>
}

/**
 * A sandbox api carrier accepts every submission, as a real carrier's API would answer 202; what
 * it does with it (installing, answering with a census) is the sandbox jobs' part.
 */
const SANDBOX_API: CarrierApi = {
  describe: () => 'sandbox api (in process)',
  submit: async () => ({ status: 202, body: { accepted: true } }),
}

/** A carrier whose connection settings are wrong: every delivery to it fails with this message. */
export class CarrierConnectionError extends Error {}

/** Transports and connectors per carrier, built once from its configuration. */
export class CarrierConnections {
  private readonly transports = new Map<string, FileTransport>()
  private readonly apis = new Map<string, CarrierApi>()

  constructor(private readonly settings: CarrierSettings) {}

  fileTransport(carrier: CarrierConfig): FileTransport {
    let transport = this.transports.get(carrier.name)
    if (!transport) {
      try {
        transport = createFileTransport(carrier.name, carrier.edi_transport, { outboundDirectory: this.settings.outboundDirectory, env: this.settings.secrets })
      } catch (error) {
        throw new CarrierConnectionError(messageOf(error))
      }
      this.transports.set(carrier.name, transport)
    }
    return transport
  }

  api(carrier: CarrierConfig): CarrierApi {
    if (carrier.sandbox && !carrier.api_connection) return SANDBOX_API
    let api = this.apis.get(carrier.name)
    if (!api) {
      try {
        api = createApiConnector(carrier.name, carrier.api_connection, { env: this.settings.secrets })
      } catch (error) {
        throw new CarrierConnectionError(messageOf(error))
      }
      this.apis.set(carrier.name, api)
    }
    return api
  }
}
