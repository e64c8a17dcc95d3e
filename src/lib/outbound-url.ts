import { promises as dns } from 'node:dns'
import type { LookupFunction } from 'node:net'
import { isIP } from 'node:net'
import { describeAddressClass, forbiddenAddressClass } from './address-policy.js'

/**
 * Checks for URLs the service itself calls (webhook receivers), so a client cannot make the
 * service reach its own host, its network or a cloud metadata endpoint (SSRF).
 */

export interface ResolvedAddress {
  address: string
  family: number
}

/** Every address a host name resolves to (A and AAAA). Injectable so tests need no DNS. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>

/** The system resolver, as connections use it (getaddrinfo: /etc/hosts, then DNS). */
export const systemResolveHost: ResolveHost = async (hostname) => dns.lookup(hostname, { all: true, verbatim: true })

export type UrlRefusalCode = 'invalid_url' | 'unsupported_scheme' | 'credentials_in_url' | 'forbidden_address' | 'unresolvable_host'

export interface UrlRefusal {
  code: UrlRefusalCode
  detail: string
}

export interface OutboundPolicy {
  /** Allow loopback, private and the other internal ranges (development, tests, private networks). */
  allowPrivate: boolean
  /**
   * Allow loopback addresses only (a receiver on the same machine): the embedded development
   * default, so a newcomer's local receiver works while private networks and cloud metadata
   * endpoints stay refused.
   */
  allowLoopback: boolean
  resolve: ResolveHost
}

/** Which internal addresses a policy lets through; `addressRefusal` needs no resolver. */
export type AddressAllowance = Pick<OutboundPolicy, 'allowPrivate' | 'allowLoopback'>

/** The host of a URL as an address or name: brackets of an IPv6 literal removed. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '')
}

/** What a URL must be before anything is resolved: http(s), a host, no user name or password. */
export function urlShapeRefusal(text: string): UrlRefusal | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { code: 'invalid_url', detail: 'must be an absolute http or https URL' }
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { code: 'unsupported_scheme', detail: 'must use http or https' }
  // Credentials in a URL end up in logs and listings; receivers authenticate deliveries by signature.
  if (url.username !== '' || url.password !== '') return { code: 'credentials_in_url', detail: 'must not contain a user name or password' }
  if (hostOf(url) === '') return { code: 'invalid_url', detail: 'must name a host' }
  return undefined
}

/** The refusal for one address, or undefined when the policy lets it be called. */
export function addressRefusal(address: string, allowance: AddressAllowance): UrlRefusal | undefined {
  if (allowance.allowPrivate) return undefined
  const kind = forbiddenAddressClass(address)
  if (kind === 'loopback' && allowance.allowLoopback) return undefined
  return kind ? { code: 'forbidden_address', detail: `resolves to ${describeAddressClass(kind)} (${address}), which webhooks may not call` } : undefined
}

/**
 * Every check at once: the shape, then every address the host resolves to (one internal address
 * among public ones is enough to refuse, since a connection may pick any of them).
 */
export async function outboundUrlRefusal(text: string, policy: OutboundPolicy): Promise<UrlRefusal | undefined> {
  const shape = urlShapeRefusal(text)
  if (shape || policy.allowPrivate) return shape
  const host = hostOf(new URL(text))
  if (isIP(host)) return addressRefusal(host, policy)
  let addresses: ResolvedAddress[]
  try {
    addresses = await policy.resolve(host)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'lookup failed'
    return { code: 'unresolvable_host', detail: `host does not resolve (${code})` }
  }
  if (addresses.length === 0) return { code: 'unresolvable_host', detail: 'host does not resolve to any address' }
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, policy)
    if (refusal) return refusal
  }
  return undefined
}

/** Raised inside a connection attempt whose resolved address the policy refuses. */
export class ForbiddenAddressError extends Error {
  readonly code = 'EFORBIDDENADDRESS'
}

/**
 * A `lookup` for http.request that resolves with `policy.resolve` and refuses internal addresses
 * before connecting. The check runs on the addresses the socket actually connects to, so a host
 * that resolved to a public address when the watcher was saved and to an internal one now (DNS
 * rebinding) is still refused. IP literals never reach a lookup: check them before the request.
 */
export function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    policy.resolve(hostname).then(
      (all) => {
        const family = options.family === 4 || options.family === 6 ? options.family : undefined
        const addresses = family ? all.filter((a) => a.family === family) : all
        for (const { address } of addresses) {
          const refusal = addressRefusal(address, policy)
          if (refusal) return callback(new ForbiddenAddressError(refusal.detail), '', 0)
        }
        const first = addresses[0]
        if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0)
        if (options.all) return callback(null, addresses)
        return callback(null, first.address, first.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    )
  }
}
