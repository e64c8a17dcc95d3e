import { maskSsn } from './ssn-protection.js'

/**
 * SSNs typed into free text (a comment, a resolution, a carrier's answer) are masked before the
 * text is stored, logged or shown, to the form every answer uses (`***-**-6789`): SSNs are kept
 * encrypted on the member and nowhere else in clear (api-contract section 9).
 *
 * "SSN-shaped" is nine digits grouped 3-2-4, written `123-45-6789`, `123 45 6789` or `123456789`
 * (one separator kind throughout), that
 * - stand alone: no letter, digit or `_` touches them, and no `-`, `.` or `/` joins them to more
 *   digits, so phone numbers, dates, decimals (`123456789.50`), UUIDs and ids such as
 *   `A123456789` or `01-123-45-6789` are left alone. One exception: a one- or two-digit suffix
 *   (`123456789-01`) is a carrier's member id built from the SSN and a person code, so the SSN in
 *   it is masked (`***-**-6789-01`);
 * - could have been issued: area not 000 or 666, group not 00, serial not 0000. The 9xx areas are
 *   masked too: they are ITINs, as personal as an SSN.
 * Erring towards masking is deliberate: a masked order number costs a question, a leaked SSN more.
 */
const SSN_SHAPED = /(?<![\p{L}\p{N}_]|\p{N}[-./])(\d{3})([- ]?)(\d{2})\2(\d{4})(?![\p{L}\p{N}_]|[./]\p{N}|-\p{N}(?!\p{N}?(?![\p{L}\p{N}_]|[-./]\p{N})))/gu

function couldBeIssued(area: string, group: string, serial: string): boolean {
  return area !== '000' && area !== '666' && group !== '00' && serial !== '0000'
}

/** The text with every SSN-shaped number replaced by `***-**-` and its last four digits. */
export function maskSsnsInText(text: string): string {
  // Cheap exit for the common case: no run of nine digits at all.
  if (!/\d{3}[- ]?\d{2}[- ]?\d{4}/.test(text)) return text
  return text.replace(SSN_SHAPED, (match, area: string, _separator: string, group: string, serial: string) =>
    couldBeIssued(area, group, serial) ? maskSsn(serial) : match,
  )
}

/**
 * A JSON value with its strings (object keys included) masked as `maskSsnsInText` does, and a
 * nine-digit integer that is SSN-shaped replaced by the masked string (a carrier may send an SSN
 * as a number). Other values are returned as they are.
 */
export function maskSsnsInJson(value: unknown): unknown {
  if (typeof value === 'string') return maskSsnsInText(value)
  if (typeof value === 'number') {
    const text = String(value)
    const masked = /^\d{9}$/.test(text) ? maskSsnsInText(text) : text
    return masked === text ? value : masked
  }
  if (Array.isArray(value)) return value.map(maskSsnsInJson)
  if (typeof value === 'object' && value !== null) {
    // fromEntries defines own properties: a "__proto__" key stays a key instead of becoming the prototype.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [maskSsnsInText(key), maskSsnsInJson(item)]))
  }
  return value
}
