import { maskSsn } from '../../lib/ssn-protection.js'

const SSN_KEY = 'social_security_number'

/** ***-**-1234 from whatever the carrier sent (123456789, 123-45-6789, a number); ***-**-**** when it has no four digits. */
function maskedSsn(raw: unknown): unknown {
  if (raw === null || raw === undefined) return raw
  const digits = (typeof raw === 'string' || typeof raw === 'number' ? String(raw) : '').replace(/\D/g, '')
  return maskSsn(digits.length >= 4 ? digits.slice(-4) : '****')
}

/**
 * The census subscriber as stored, with every `social_security_number` masked: the subscriber's,
 * its dependents' (`dependents[]`) and any deeper one. The census is stored this way (SSNs are
 * encrypted at rest, and the census's were only needed for matching) and answered this way (SSNs
 * never appear in list responses: api-contract section 9). Masking
 * every key of that name at any depth, not only the two known places, keeps that true whatever
 * shape a carrier's census takes. Returns a copy; the input is not changed.
 */
export function maskCensusSsns(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskCensusSsns)
  if (value === null || typeof value !== 'object') return value
  const masked: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) masked[key] = key === SSN_KEY ? maskedSsn(inner) : maskCensusSsns(inner)
  return masked
}

/**
 * The census subscriber's JSON text as stored: maskCensusSsns's masking, written straight into
 * the text rather than into a copy first (a 50,000-family census copied every subscriber only to
 * stringify the copy).
 */
export function stringifyMaskedCensus(value: unknown): string {
  return JSON.stringify(value, (key, inner: unknown) => (key === SSN_KEY ? maskedSsn(inner) : inner))
}
