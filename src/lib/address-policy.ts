import { isIPv4, isIPv6 } from 'node:net'

/**
 * Why an address must not receive the service's outbound requests (webhooks): it reaches the
 * service's own host or network rather than the public internet (SSRF).
 */
export type ForbiddenAddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'carrier_grade_nat'
  | 'unique_local'
  | 'multicast'
  | 'reserved'

type Range = readonly [prefix: readonly number[], bits: number, kind: ForbiddenAddressClass]

const IPV4_RANGES: readonly Range[] = [
  [[0, 0, 0, 0], 8, 'unspecified'], // "this network": 0.0.0.0 connects to the local host
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'carrier_grade_nat'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link_local'], // cloud metadata endpoints live here
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 168, 0, 0], 16, 'private'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'], // includes the broadcast address
]

const IPV6_RANGES: readonly Range[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 128, 'unspecified'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'],
  [[0xfe, 0x80], 10, 'link_local'],
  [[0xfe, 0xc0], 10, 'private'], // deprecated site-local
  [[0xfc, 0x00], 7, 'unique_local'],
  [[0xff, 0x00], 8, 'multicast'],
]

/**
 * IPv6 forms that carry an IPv4 address a host or gateway may connect to: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, deprecated), NAT64 (64:ff9b::/96) and 6to4
 * (2002:aabb:ccdd::/48). Each is judged by the IPv4 address inside.
 */
function embeddedIPv4(bytes: readonly number[]): number[] | undefined {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0)
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12)
  if (zeros(0, 12)) return bytes.slice(12)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return bytes.slice(12)
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6)
  return undefined
}

function inRange(bytes: readonly number[], [prefix, bits]: Range): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const take = Math.min(8, bits - bit)
    const mask = (0xff << (8 - take)) & 0xff
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false
  }
  return true
}

function ipv4Bytes(text: string): number[] {
  return text.split('.').map((part) => Number.parseInt(part, 10))
}

/** 16 bytes of a valid IPv6 text (`::` expanded, a trailing dotted IPv4 part converted). */
function ipv6Bytes(text: string): number[] {
  let groups = text
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(groups)
  if (dotted) {
    const [a, b, c, d] = ipv4Bytes(dotted[1]!)
    groups = groups.slice(0, dotted.index) + `${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`
  }
  const [head = '', tail] = groups.split('::')
  const headParts = head === '' ? [] : head.split(':')
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':')
  const middle = tail === undefined ? [] : Array<string>(8 - headParts.length - tailParts.length).fill('0')
  return [...headParts, ...middle, ...tailParts].flatMap((group) => {
    const value = Number.parseInt(group, 16)
    return [value >> 8, value & 0xff]
  })
}

/**
 * The class that forbids this IP address as a webhook target, or undefined for a public address.
 * Anything that is not a valid IP address at all is refused as `reserved`, failing closed.
 */
export function forbiddenAddressClass(address: string): ForbiddenAddressClass | undefined {
  // A zone index (fe80::1%eth0) names an interface, not part of the address.
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  if (isIPv4(ip)) {
    const bytes = ipv4Bytes(ip)
    return IPV4_RANGES.find((range) => inRange(bytes, range))?.[2]
  }
  if (!isIPv6(ip)) return 'reserved'
  const bytes = ipv6Bytes(ip)
  const own = IPV6_RANGES.find((range) => inRange(bytes, range))?.[2]
  if (own) return own
  const inner = embeddedIPv4(bytes)
  return inner ? IPV4_RANGES.find((range) => inRange(inner, range))?.[2] : undefined
}

export function describeAddressClass(kind: ForbiddenAddressClass): string {
  switch (kind) {
    case 'unspecified':
      return 'an unspecified address'
    case 'loopback':
      return 'a loopback address'
    case 'private':
      return 'a private network address'
    case 'link_local':
      return 'a link-local address'
    case 'carrier_grade_nat':
      return 'a carrier-grade NAT (shared) address'
    case 'unique_local':
      return 'a unique local IPv6 address'
    case 'multicast':
      return 'a multicast address'
    case 'reserved':
      return 'a reserved address'
  }
}
