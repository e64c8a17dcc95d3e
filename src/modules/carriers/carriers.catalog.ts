import { readFileSync } from 'node:fs'
import { Compile } from 'typebox/compile'
import { ConfigError } from '../../config.js'
import { CarriersFile, DEFAULT_RETROACTIVE_LIMIT_DAYS, type CarrierConfig } from './carriers.schema.js'

/**
 * The carriers a deployment ships with when CARRIERS_FILE is not set. The sandbox carriers act
 * like real ones (issue 5) so the whole life cycle can be tried locally; the real-named ones carry
 * plausible connection settings that a deployment confirms against each carrier's agreement.
 */
export const DEFAULT_CARRIERS: readonly CarrierConfig[] = Object.freeze([
  { name: 'sandbox_edi', display_name: 'Sandbox carrier (EDI)', distribution_format: 'edi', member_management: true, requires_pcp_for_hmo: true, sandbox: true },
  { name: 'sandbox_api', display_name: 'Sandbox carrier (API)', distribution_format: 'api', member_management: true, requires_pcp_for_hmo: false, sandbox: true },
  { name: 'sandbox_manual', display_name: 'Sandbox carrier (manual)', distribution_format: 'manual', member_management: false, requires_pcp_for_hmo: false, sandbox: true },
  { name: 'aetna', display_name: 'Aetna', distribution_format: 'edi', member_management: true, requires_pcp_for_hmo: true, sandbox: false },
  { name: 'anthem', display_name: 'Anthem Blue Cross', distribution_format: 'edi', member_management: true, requires_pcp_for_hmo: true, sandbox: false },
  { name: 'cigna', display_name: 'Cigna Healthcare', distribution_format: 'edi', member_management: true, requires_pcp_for_hmo: false, sandbox: false },
  { name: 'guardian', display_name: 'Guardian Life', distribution_format: 'edi', member_management: true, requires_pcp_for_hmo: false, sandbox: false },
  { name: 'humana', display_name: 'Humana', distribution_format: 'edi', member_management: true, requires_pcp_for_hmo: true, sandbox: false },
  { name: 'kaiser_permanente', display_name: 'Kaiser Permanente', distribution_format: 'manual', member_management: false, requires_pcp_for_hmo: true, sandbox: false },
  { name: 'metlife', display_name: 'MetLife', distribution_format: 'edi', member_management: true, requires_pcp_for_hmo: false, sandbox: false },
  { name: 'principal', display_name: 'Principal Financial Group', distribution_format: 'api', member_management: true, requires_pcp_for_hmo: false, sandbox: false },
  { name: 'unitedhealthcare', display_name: 'UnitedHealthcare', distribution_format: 'edi', member_management: true, requires_pcp_for_hmo: true, sandbox: false },
].map((carrier) => Object.freeze(carrier as CarrierConfig)))

const checkFile = Compile(CarriersFile)

/** Reads CARRIERS_FILE; a missing, malformed or duplicated entry stops the start with a message. */
export function loadCarriers(path: string | undefined): readonly CarrierConfig[] {
  if (!path) return DEFAULT_CARRIERS
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new ConfigError(`CARRIERS_FILE ${path} could not be read as JSON: ${(error as Error).message}`)
  }
  if (!checkFile.Check(parsed)) {
    const problems = checkFile.Errors(parsed).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`)
    throw new ConfigError(`CARRIERS_FILE ${path} is not a valid carrier list: ${problems.join('; ')}`)
  }
  const names = new Set<string>()
  for (const carrier of parsed) {
    if (names.has(carrier.name)) throw new ConfigError(`CARRIERS_FILE ${path} lists carrier ${carrier.name} twice`)
    names.add(carrier.name)
    // Settings for the other kind of connection would be silently unused: say so at start.
    if (carrier.edi_transport && carrier.distribution_format !== 'edi') {
      throw new ConfigError(`CARRIERS_FILE ${path}: carrier ${carrier.name} has edi_transport but distribution_format ${carrier.distribution_format}`)
    }
    if (carrier.api_connection && carrier.distribution_format !== 'api') {
      throw new ConfigError(`CARRIERS_FILE ${path}: carrier ${carrier.name} has api_connection but distribution_format ${carrier.distribution_format}`)
    }
  }
  return Object.freeze(parsed.map((carrier) => Object.freeze(carrier)))
}

/** Lookups over the deployment's carriers, passed to the modules that need them. */
export class CarrierCatalog {
  private readonly byName: ReadonlyMap<string, CarrierConfig & { retroactive_limit_days: number }>

  readonly all: readonly (CarrierConfig & { retroactive_limit_days: number })[]

  constructor(carriers: readonly CarrierConfig[] = DEFAULT_CARRIERS) {
    // Settings a deployment may leave out get their defaults here, once.
    this.all = carriers.map((carrier) => Object.freeze({ ...carrier, retroactive_limit_days: carrier.retroactive_limit_days ?? DEFAULT_RETROACTIVE_LIMIT_DAYS }))
    this.byName = new Map(this.all.map((carrier) => [carrier.name, carrier]))
  }

  find(name: string): (CarrierConfig & { retroactive_limit_days: number }) | undefined {
    return this.byName.get(name)
  }

  names(): string[] {
    return [...this.byName.keys()]
  }
}
