import { Edi834WriteError } from './edi-834.errors.js'

/**
 * Serialisation of X12 segments as this service writes them.
 *
 * Separators: `*` element, `:` component, `^` repetition, `~` segment terminator, and every
 * terminator is followed by `\n`. The newline is not part of the X12 syntax; it is a common
 * convention that makes files readable and diffable (the golden files rely on it). Receivers
 * skip whitespace between segments: node-x12 does (its parser ignores whitespace before a
 * segment tag; the writer tests parse our files with it in strict mode), and so does our own
 * tokenizer, which also reads files without it.
 */
export const SEPARATORS = Object.freeze({ element: '*', component: ':', repetition: '^', segment: '~' })
const SEGMENT_END = `${SEPARATORS.segment}\n`

/** A segment as an array: the id first, then its elements (ISA01 ... at indexes 1 ...). */
export type X12Segment = readonly string[]

// Anything outside printable ASCII, and our four separators, can break a file or a receiver.
const UNSAFE_GLOBAL = /[^\x20-\x7E]|[*:^~]/g
const COMBINING_MARKS = /[\u0300-\u036F]/g

/**
 * Whether a value can go into an element as it is: printable ASCII without our separators, no
 * space at either end, no two spaces in a row (what sanitizeElement would otherwise change). A
 * loop over the characters rather than a regular expression: a full file tests some three million
 * values, mostly a few characters long, and the expression's call cost more than the scan.
 */
function isClean(value: string): boolean {
  const last = value.length - 1
  if (last < 0) return true
  if (value.charCodeAt(0) === 32 || value.charCodeAt(last) === 32) return false
  let previousSpace = false
  for (let i = 0; i <= last; i++) {
    const c = value.charCodeAt(i)
    // 42 '*', 58 ':', 94 '^', 126 '~'
    if (c < 0x20 || c > 0x7e || c === 42 || c === 58 || c === 94 || c === 126) return false
    const space = c === 32
    if (space && previousSpace) return false
    previousSpace = space
  }
  return true
}

/**
 * Makes free text safe to place in an element: separators and control characters become spaces,
 * accents are dropped (José → Jose), other non-ASCII characters become spaces, runs of spaces
 * collapse and the ends are trimmed. Case is kept: 005010 allows lower case (the extended
 * character set); we stay within ASCII because carriers' systems commonly reject anything else.
 * `maxLength` cuts display text (names, addresses) to the element's X12 maximum.
 */
export function sanitizeElement(value: string, maxLength?: number): string {
  let clean = value
  if (!isClean(clean)) {
    clean = clean.normalize('NFKD').replace(COMBINING_MARKS, '').replace(UNSAFE_GLOBAL, ' ').replace(/ {2,}/g, ' ').trim()
  }
  if (maxLength !== undefined && clean.length > maxLength) clean = clean.slice(0, maxLength).trimEnd()
  return clean
}

/**
 * Builds a segment from already mapped values: each value is sanitised, `null`/`undefined`
 * become empty elements, and trailing empty elements are dropped (X12 forbids trailing
 * separators).
 */
export function segment(id: string, ...values: readonly (string | null | undefined)[]): X12Segment {
  const out: string[] = [id]
  let end = 1
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    const clean = value == null ? '' : sanitizeElement(value)
    out.push(clean)
    if (clean !== '') end = i + 2
  }
  // A copy of the kept part rather than shortening `out` in place (setting an array's length is a
  // slow call into the runtime, and most segments end in empty elements: INS, NM1, N4 ...).
  return end === out.length ? out : out.slice(0, end)
}

/** One segment as text, terminator and newline included. */
export function serializeSegment(seg: X12Segment): string {
  return seg.join(SEPARATORS.element) + SEGMENT_END
}

/** ISA fields in order, unpadded; `isaSegment` pads them to the fixed widths. */
export interface IsaFields {
  senderQualifier: string
  senderId: string
  receiverQualifier: string
  receiverId: string
  date: string // YYMMDD
  time: string // HHMM
  controlNumber: number
  usage: 'P' | 'T'
}

/** Widths of ISA01..ISA16: the ISA is fixed width so a receiver can find the separators by position. */
export const ISA_WIDTHS = Object.freeze([2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1])
/** ISA length including its terminator (not the newline after it). */
export const ISA_LENGTH = 106

/**
 * The ISA elements, padded (ISA13 with zeros, the rest with spaces): joined with `*` and `~`
 * they make exactly 106 characters.
 */
/** ISA13 (and IEA02, which must repeat it): the interchange control number, nine digits. */
export function interchangeControlNumber(controlNumber: number): string {
  return String(controlNumber).padStart(9, '0')
}

export function isaElements(fields: IsaFields): string[] {
  for (const [name, value] of [['ISA05', fields.senderQualifier], ['ISA06', fields.senderId], ['ISA07', fields.receiverQualifier], ['ISA08', fields.receiverId]] as const) {
    const width = name === 'ISA05' || name === 'ISA07' ? 2 : 15
    // Padding a longer value is impossible and cutting an id would address another partner.
    if (value.length === 0 || value.length > width || value !== sanitizeElement(value)) {
      throw new Edi834WriteError('bad_envelope', `${name} must be 1 to ${width} printable characters without separators`)
    }
  }
  if (!Number.isInteger(fields.controlNumber) || fields.controlNumber < 1 || fields.controlNumber > 999_999_999) {
    throw new Edi834WriteError('bad_envelope', 'ISA13 must be an integer from 1 to 999999999')
  }
  const values = [
    '00', '', '00', '',
    fields.senderQualifier, fields.senderId, fields.receiverQualifier, fields.receiverId,
    fields.date, fields.time, SEPARATORS.repetition, '00501',
    interchangeControlNumber(fields.controlNumber), '0', fields.usage, SEPARATORS.component,
  ]
  return values.map((value, i) => value.padEnd(ISA_WIDTHS[i] as number, ' '))
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** True for a real calendar date written CCYYMMDD. */
export function isValidD8(value: string): boolean {
  if (!/^\d{8}$/.test(value)) return false
  const year = Number(value.slice(0, 4))
  const month = Number(value.slice(4, 6))
  const day = Number(value.slice(6, 8))
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** Dates already converted: a full file writes some 600,000 dates, of a few thousand values. */
const d8OfIso = new Map<string, string>()
const D8_CACHE_LIMIT = 50_000

/** ISO `YYYY-MM-DD` → X12 `CCYYMMDD` (the D8 format). */
export function toD8(isoDate: string): string {
  const known = d8OfIso.get(isoDate)
  if (known !== undefined) return known
  const match = ISO_DATE.exec(isoDate)
  const d8 = match ? `${match[1]}${match[2]}${match[3]}` : ''
  if (!isValidD8(d8)) throw new Edi834WriteError('bad_date', 'a date is not a valid YYYY-MM-DD calendar date')
  if (d8OfIso.size >= D8_CACHE_LIMIT) d8OfIso.clear()
  d8OfIso.set(isoDate, d8)
  return d8
}

/** X12 `CCYYMMDD` → ISO `YYYY-MM-DD`, or null when it is not a real date. */
export function fromD8(d8: string): string | null {
  return isValidD8(d8) ? `${d8.slice(0, 4)}-${d8.slice(4, 6)}-${d8.slice(6, 8)}` : null
}

/**
 * Envelope dates and times are written in UTC: the same instant gives the same file wherever the
 * job runs, which the golden files need. Carriers read them as the file's creation stamp only.
 */
export function envelopeStamps(at: Date): { d8: string; d6: string; hhmm: string } {
  const iso = at.toISOString() // YYYY-MM-DDTHH:MM:SS.sssZ
  const d8 = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}`
  return { d8, d6: d8.slice(2), hhmm: `${iso.slice(11, 13)}${iso.slice(14, 16)}` }
}
