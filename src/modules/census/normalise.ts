import { isNpi } from '../../lib/identifiers.js'
import { isStateCode } from '../../lib/us-geography.js'
import { EMPLOYMENT_STATUSES, GENDERS, MARITAL_STATUSES, RELATIONSHIPS, WAGE_FREQUENCIES } from '../members/index.js'
import type { GenderMapping } from './reconcile.model.js'

/**
 * Normalisers turn one value, as either side spells it, into a comparison key: two values are
 * the same data exactly when their keys are equal. Each says what it makes of a missing value
 * (`empty`: no discrepancy unless the other side has one) and of a value it cannot read
 * (`invalid`: a value_invalid discrepancy, never a silent "differs"). They accept `unknown`
 * because the carrier side is parsed JSON whatever the census schema promised.
 */
export type Normalised = { readonly kind: 'empty' } | { readonly kind: 'invalid' } | { readonly kind: 'value'; readonly key: string }
export type Normaliser = (raw: unknown) => Normalised

export const EMPTY: Normalised = Object.freeze({ kind: 'empty' })
export const INVALID: Normalised = Object.freeze({ kind: 'invalid' })
const valueOf = (key: string): Normalised => ({ kind: 'value', key })

/** null, undefined, a blank string and an empty list all mean "this side has no value". */
export function isBlank(raw: unknown): boolean {
  if (raw === null || raw === undefined) return true
  if (typeof raw === 'string') return raw.trim() === ''
  return Array.isArray(raw) && raw.length === 0
}

/** A string, or a number a JSON census sent where the schema has a string (a ZIP, an id). */
function textOf(raw: unknown): string | null {
  if (typeof raw === 'string') return raw
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw)
  return null
}

/** Entries a memoised key function keeps before it starts afresh: a bounded few hundred KB. */
const MEMO_ENTRIES = 4096

/**
 * A key function that remembers its recent answers. A census spells the same dates, first names
 * and cities thousands of times; working each out again (regular expressions, case folding) made
 * a large share of what a 50,000-family census allocated. The functions are pure, so an answer
 * remembered is the answer; the memory is cleared when full, so it never grows with the census.
 */
function memoised<Key extends string | null>(key: (text: string) => Key): (text: string) => Key {
  let known = new Map<string, Key>()
  return (text) => {
    const remembered = known.get(text)
    if (remembered !== undefined) return remembered
    const answer = key(text)
    if (known.size >= MEMO_ENTRIES) known = new Map()
    known.set(text, answer)
    return answer
  }
}

/**
 * Free text (city, region, address lines): accents, case, surrounding and repeated spaces are
 * ignored; `.` and apostrophes are dropped (St. = St, O'Brien = OBrien) while `,` and `-` split
 * words (Apt 4-B = Apt 4 B). Carriers' systems often keep only upper-case ASCII.
 */
export function textKey(raw: unknown): string | null {
  const text = textOf(raw)
  if (text === null) return null
  return rememberedTextKey(text)
}

const rememberedTextKey = memoised((text) => {
  // Most census text is ASCII: skipping the Unicode decomposition for it halves the cost of a census.
  const plain = /^[\x20-\x7e]*$/.test(text) ? text : text.normalize('NFKD').replace(/\p{M}/gu, '')
  return plain
    .toLowerCase()
    .replace(/[.'’`]/g, '')
    .replace(/[,-]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
})

export const normaliseText: Normaliser = (raw) => {
  if (isBlank(raw)) return EMPTY
  const key = textKey(raw)
  if (key === null) return INVALID
  return key === '' ? EMPTY : valueOf(key)
}

/** Names for matching: as free text, and spaces are ignored too (Mary-Jane = Mary Jane = MaryJane). */
export function nameKey(raw: unknown): string | null {
  const text = textOf(raw)
  return text === null ? null : rememberedNameKey(text)
}

const rememberedNameKey = memoised((text) => rememberedTextKey(text).replace(/ /g, '') || null)

// Timestamps keep the date as written: converting to UTC would move a midnight-local birth date to the day before.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/
const COMPACT_DATE = /^(\d{4})(\d{2})(\d{2})$/
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function calendarDate(year: number, month: number, day: number): string | null {
  if (year < 1800 || year > 2999 || month < 1 || month > 12 || day < 1) return null
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  if (day > (month === 2 ? (leap ? 29 : 28) : DAYS_IN_MONTH[month - 1]!)) return null
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`
}

/** Dates: YYYY-MM-DD, YYYYMMDD (X12), MM/DD/YYYY or M/D/YYYY, an ISO timestamp → YYYY-MM-DD. A day the calendar lacks is invalid. */
export function dateKey(raw: unknown): string | null {
  return typeof raw === 'string' ? rememberedDateKey(raw) : null
}

const rememberedDateKey = memoised((raw) => {
  const text = raw.trim()
  let parts = ISO_DATE.exec(text) ?? COMPACT_DATE.exec(text)
  if (parts) return calendarDate(Number(parts[1]), Number(parts[2]), Number(parts[3]))
  parts = US_DATE.exec(text)
  return parts ? calendarDate(Number(parts[3]), Number(parts[1]), Number(parts[2])) : null
})

export const normaliseDate: Normaliser = (raw) => {
  if (isBlank(raw)) return EMPTY
  const key = dateKey(raw)
  return key === null ? INVALID : valueOf(key)
}

/**
 * ZIP codes compare on the first five digits: 62701, 62701-1234 and 627011234 are one ZIP. A
 * JSON number lost its leading zeros (02134 → 2134), so numbers are padded back.
 */
export function zipKey(raw: unknown): string | null {
  let text = textOf(raw)?.trim()
  if (text === undefined) return null
  if (typeof raw === 'number') text = text.padStart(text.length > 5 ? 9 : 5, '0')
  return /^(\d{5})(?:-?\d{4})?$/.exec(text)?.[1] ?? null
}

/** States: the two-letter code in any case; anything else (a full name, a typo) is invalid. */
export function stateKey(raw: unknown): string | null {
  const code = typeof raw === 'string' ? raw.trim().toUpperCase() : ''
  return isStateCode(code) ? code : null
}

/**
 * Street words carriers commonly abbreviate, to one spelling each. Unit designators all become
 * "unit": carriers rewrite "Apt 4", "#4", "Suite 4" and "Unit 4" into their own one.
 */
// A Map, not an object: an address word such as "constructor" must not find Object.prototype.
const STREET_WORDS: ReadonlyMap<string, string> = new Map(Object.entries({
  street: 'st', avenue: 'ave', av: 'ave', road: 'rd', drive: 'dr', boulevard: 'blvd', lane: 'ln',
  court: 'ct', place: 'pl', circle: 'cir', highway: 'hwy', parkway: 'pkwy', terrace: 'ter',
  north: 'n', south: 's', east: 'e', west: 'w', northeast: 'ne', northwest: 'nw', southeast: 'se', southwest: 'sw',
  apartment: 'unit', apt: 'unit', suite: 'unit', ste: 'unit', '#': 'unit',
}))

function streetKey(line1: unknown, line2: unknown): string {
  // Line 1 and 2 are read as one: carriers move the unit from one line to the other.
  const text = [line1, line2].map((line) => (textOf(line) ?? '').replace(/#/g, ' # ')).join(' ')
  const words = (textKey(text) ?? '').split(' ').filter(Boolean).map((word) => STREET_WORDS.get(word) ?? word)
  return words.filter((word, i) => !(word === 'unit' && words[i - 1] === 'unit')).join(' ')
}

/** A residential address: street (line 1 + 2, abbreviations above), city as free text, state code and ZIP-5. */
export const normaliseAddress: Normaliser = (raw) => {
  if (raw === null || raw === undefined) return EMPTY
  if (typeof raw !== 'object' || Array.isArray(raw)) return INVALID
  const address = raw as Record<string, unknown>
  const fields = ['address_line_1', 'address_line_2', 'city', 'state', 'zip'].map((name) => address[name])
  if (fields.every(isBlank)) return EMPTY
  const [line1, line2, city, state, zip] = fields
  const stateCode = isBlank(state) ? '' : stateKey(state)
  const zip5 = isBlank(zip) ? '' : zipKey(zip)
  if (stateCode === null || zip5 === null) return INVALID
  return valueOf([streetKey(line1, line2), textKey(city) ?? '', stateCode, zip5].join('|'))
}

/** Lower case with spaces, hyphens and underscores dropped: "Full-Time" = "FULL TIME" = full_time, "Bi-Weekly" = biweekly. */
function bareWord(raw: unknown): string | null {
  return typeof raw === 'string' ? raw.trim().toLowerCase().replace(/[\s_-]+/g, '') : null
}

/**
 * A closed list of words (the API's enum), optionally with the carrier codes that stand for them
 * (null: the code means "no value"). Words compare without separators; none of the API's enums
 * has two words that differ only by them.
 */
function enumNormaliser(words: readonly string[], codes: Readonly<Record<string, string | null>> = {}): Normaliser {
  const lookup = new Map<string, string | null>(words.map((word) => [bareWord(word)!, word]))
  for (const [code, word] of Object.entries(codes)) lookup.set(code, word)
  return (raw) => {
    if (isBlank(raw)) return EMPTY
    const word = bareWord(raw)
    const known = word === null ? undefined : lookup.get(word)
    if (known === undefined) return INVALID
    return known === null ? EMPTY : valueOf(known)
  }
}

export const normaliseEmploymentStatus = enumNormaliser(EMPLOYMENT_STATUSES)
export const normaliseWageFrequency = enumNormaliser(WAGE_FREQUENCIES)

/** X12 DMG04 marital status codes; R (unreported) is no value. U (unmarried) is left invalid: it may mean single, divorced or widowed. */
export const normaliseMaritalStatus = enumNormaliser(MARITAL_STATUSES, {
  i: 'single', m: 'married', d: 'divorced', w: 'widowed', s: 'separated', x: 'separated', b: 'registered_domestic_partner', r: null,
})

export const DEFAULT_GENDER_MAPPING: GenderMapping = Object.freeze({
  f: 'female', female: 'female', m: 'male', male: 'male', u: 'unknown', unknown: 'unknown',
  n: 'non_binary', x: 'non_binary', non_binary: 'non_binary',
})

/**
 * Genders through a carrier's mapping (the default when it has none), keys case-insensitive.
 * The API's own words are always understood too: the census JSON uses the API's schema.
 */
export function genderNormaliser(mapping: GenderMapping = DEFAULT_GENDER_MAPPING): Normaliser {
  const lookup = new Map<string, string>(GENDERS.map((word) => [word, word]))
  for (const [spelling, gender] of Object.entries(mapping)) lookup.set(spelling.trim().toLowerCase(), gender)
  return (raw) => {
    if (isBlank(raw)) return EMPTY
    const gender = typeof raw === 'string' ? lookup.get(raw.trim().toLowerCase()) : undefined
    return gender === undefined ? INVALID : valueOf(gender)
  }
}

/** Tobacco use: booleans, true/false, Y/N, T(obacco)/F, yes/no; U or unknown is no value. */
export const normaliseTobacco: Normaliser = (raw) => {
  if (typeof raw === 'boolean') return valueOf(String(raw))
  if (isBlank(raw)) return EMPTY
  if (typeof raw !== 'string') return INVALID
  const word = raw.trim().toLowerCase()
  if (['true', 'y', 'yes', 't'].includes(word)) return valueOf('true')
  if (['false', 'n', 'no', 'f'].includes(word)) return valueOf('false')
  return word === 'u' || word === 'unknown' ? EMPTY : INVALID
}

/** X12 INS02 relationship codes; adopted (09) and step (17) children are the API's `child`. */
const RELATIONSHIP_CODES: ReadonlyMap<string, string> = new Map([
  ['18', 'self'], ['01', 'spouse'], ['19', 'child'], ['09', 'child'], ['17', 'child'], ['05', 'grandchild'],
  ['53', 'registered_domestic_partner'], ['15', 'court_ordered_dependent'],
])
const RELATIONSHIP_WORDS = new Map<string, string>([...RELATIONSHIPS, 'self'].map((word) => [bareWord(word)!, word]))

/** A member's relationship to the subscriber; a subscriber with none is `self`. Null when unreadable. */
export function relationshipKey(raw: unknown, kind: 'subscriber' | 'dependent'): string | null {
  if (isBlank(raw)) return kind === 'subscriber' ? 'self' : null
  const text = textOf(raw)?.trim()
  if (text === undefined) return null
  if (/^\d{1,2}$/.test(text)) return RELATIONSHIP_CODES.get(text.padStart(2, '0')) ?? null
  return RELATIONSHIP_WORDS.get(bareWord(text) ?? '') ?? null
}

/**
 * Money and coverage volume in the API's unit, integer cents: a non-negative integer or a string
 * of digits. "65000.00" is invalid rather than read as dollars or cents: guessing the unit would
 * hide a census that sent the wrong one.
 */
export const normaliseCents: Normaliser = (raw) => {
  if (isBlank(raw)) return EMPTY
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? valueOf(String(raw)) : INVALID
  if (typeof raw === 'string' && /^\d+$/.test(raw.trim())) return valueOf(String(BigInt(raw.trim())))
  return INVALID
}

/** Emails: a set, compared lower-case and ignoring order, duplicates and the type the API attaches. */
export const normaliseEmails: Normaliser = (raw) => setNormaliser(raw, (entry) => {
  const email = typeof entry === 'string' ? entry.trim().toLowerCase() : ''
  return /^[^@\s]+@[^@\s]+$/.test(email) ? email : null
})

/** Phone numbers: a set of US numbers, digits only, a leading country code 1 dropped. */
export const normalisePhones: Normaliser = (raw) => setNormaliser(raw, (entry) => {
  const digits = (textOf(entry) ?? '').replace(/\D/g, '')
  const national = digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits
  return national.length === 10 ? national : null
})

function setNormaliser(raw: unknown, entryKey: (entry: unknown) => string | null): Normalised {
  const entries = (Array.isArray(raw) ? raw : [raw]).filter((entry) => !isBlank(entry))
  if (entries.length === 0) return EMPTY
  const keys = new Set<string>()
  for (const entry of entries) {
    const key = entryKey(entry)
    if (key === null) return INVALID
    keys.add(key)
  }
  return valueOf([...keys].sort().join(','))
}

/** NPI: ten digits with a valid check digit; spaces and hyphens between digits are ignored. */
export const normaliseNpi: Normaliser = (raw) => {
  if (isBlank(raw)) return EMPTY
  const digits = textOf(raw)?.replace(/[\s-]/g, '') ?? ''
  return isNpi(digits) ? valueOf(digits) : INVALID
}
