import fc from 'fast-check'
import { resolveRef, type JsonSchema } from './openapi-operations.js'

/**
 * fast-check arbitraries for the fuzz suite: values that follow a JSON Schema of openapi.json (so
 * requests get past validation and into the services), and mutations that break them the ways
 * clients and attackers do.
 */

const MAX_DEPTH = 12

function boundedInteger(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.exclusiveMinimum !== undefined ? Math.floor(schema.exclusiveMinimum) + 1 : (schema.minimum ?? -1_000_000)
  const max = schema.exclusiveMaximum !== undefined ? Math.ceil(schema.exclusiveMaximum) - 1 : (schema.maximum ?? 1_000_000)
  return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(Math.max(min, max), Number.MAX_SAFE_INTEGER) })
}

function boundedNumber(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? schema.exclusiveMinimum ?? -1_000_000
  const max = schema.maximum ?? schema.exclusiveMaximum ?? 1_000_000
  return fc.double({ min, max: Math.max(min, max), noNaN: true, noDefaultInfinity: true })
}

const isoDate = fc.date({ min: new Date('1900-01-01'), max: new Date('2100-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0
  const maxLength = schema.maxLength ?? Math.max(minLength, 40)
  if (schema.format === 'uuid') return fc.uuid()
  if (schema.format === 'date') return isoDate
  if (schema.format === 'date-time') return fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString())
  if (schema.format === 'email') return fc.emailAddress().filter((e) => e.length <= (schema.maxLength ?? Infinity))
  if (schema.format === 'uri') return fc.webUrl()
  if (schema.pattern) {
    try {
      // Only the schema's own bounds filter (a default bound could reject every match: {43}).
      const max = schema.maxLength ?? Infinity
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= max)
    } catch {
      // A pattern JavaScript cannot compile (none today): plain strings, rejected by validation.
    }
  }
  return fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 40) })
}

function objectFor(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {}
  const model = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, arbitraryFor(value, depth + 1)]))
  return fc.record(model, { requiredKeys: (schema.required ?? []).filter((key) => key in properties) })
}

/** Values that follow `schema` (mostly: patterns are approximated, formats are honoured). */
export function arbitraryFor(raw: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolveRef(raw)
  if (depth > MAX_DEPTH) return fc.constant(null)
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  const alternatives = schema.anyOf ?? schema.oneOf
  if (alternatives) return fc.oneof(...alternatives.map((s) => arbitraryFor(s, depth + 1)))
  if (schema.allOf) {
    const parts = schema.allOf.map((s) => resolveRef(s))
    const merged: JsonSchema = { type: 'object', properties: Object.assign({}, ...parts.map((p) => p.properties)), required: parts.flatMap((p) => p.required ?? []) }
    return objectFor(merged, depth)
  }
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => arbitraryFor({ ...schema, type }, depth)))
  switch (schema.type) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer':
      return boundedInteger(schema)
    case 'number':
      return boundedNumber(schema)
    case 'string':
      return stringFor(schema)
    case 'array': {
      const minLength = schema.minItems ?? 0
      return fc.array(arbitraryFor(schema.items ?? {}, depth + 1), { minLength, maxLength: Math.min(schema.maxItems ?? minLength + 3, minLength + 3) })
    }
    case 'object':
      return objectFor(schema, depth)
    default:
      return schema.properties ? objectFor(schema, depth) : fc.jsonValue({ maxDepth: 2 })
  }
}

// ---------------------------------------------------------------------------------------------
// Mutations

export const SSN_SHAPED = fc.oneof(
  fc.integer({ min: 0, max: 999_999_999 }).map((n) => String(n).padStart(9, '0')),
  fc.integer({ min: 0, max: 999_999_999 }).map((n) => String(n).padStart(9, '0').replace(/^(\d{3})(\d{2})(\d{4})$/, '$1-$2-$3')),
)

/** Strings a validator or a database trips on: NUL, lone surrogates, any code point, huge ones. */
export const NASTY_STRING = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 20 }).map((s) => `${s}\u0000${s}`),
  fc.constantFrom('\ud800', 'a\udfffb', '\udc00\ud800', '\u202e\u200b\ufeff', 'ǅ̶͓̈́', '😀'.repeat(3), ' ', ''),
  SSN_SHAPED,
  fc.integer({ min: 1_000, max: 100_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 100, max: 5_000 }).map((n) => 'é😀'.repeat(n)),
)

const LIMIT_NUMBERS = [0, -0, -1, 0.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER + 2, 1e308, -1e308, 5e-324, 1e21]
const WRONG_TYPES: unknown[] = [123, -1, true, false, null, 'text', '', [], {}, [null], { nested: {} }, 1e308]

// Deep nesting is spliced into the JSON text, not built as a value: JSON.stringify of thousands of
// levels overflows the test's own stack before the request is sent.
const DEEP = /"\\u0001deep:(\d+):(array|object)"/g
const deeplyNested = (depth: number, asArray: boolean) => `\u0001deep:${depth}:${asArray ? 'array' : 'object'}`

/** JSON text of a (mutated) value, deep nesting included. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(DEEP, (_, depth: string, kind: string) => {
    const n = Number(depth)
    return kind === 'array' ? `${'['.repeat(n)}"bottom"${']'.repeat(n)}` : `${'{"a":'.repeat(n)}"bottom"${'}'.repeat(n)}`
  })
}

export const MUTATION_KINDS = [
  'none',
  'wrong_type',
  'drop_key',
  'extra_key',
  'nasty_string',
  'number_limit',
  'deep_nesting',
  'long_array',
  'replace_root',
] as const

export interface Mutation {
  kind: (typeof MUTATION_KINDS)[number]
  /** Which node of the value, modulo their count. */
  at: number
  text: string
  pick: number
}

export const MUTATION: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom(...MUTATION_KINDS),
  at: fc.nat(),
  text: NASTY_STRING,
  pick: fc.nat(),
})

type Path = (string | number)[]

function nodes(value: unknown, path: Path = [], out: { path: Path; value: unknown }[] = []) {
  out.push({ path, value })
  if (Array.isArray(value)) value.forEach((item, i) => nodes(item, [...path, i], out))
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) nodes(item, [...path, key], out)
  return out
}

function replaceAt(root: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement
  const [head, ...rest] = path
  const copy = (Array.isArray(root) ? [...root] : { ...(root as object) }) as Record<string | number, unknown>
  copy[head!] = replaceAt(copy[head!], rest, replacement)
  return copy
}

/** `value` with one mutation applied (a new value; `value` is not changed). */
export function mutate(value: unknown, mutation: Mutation): unknown {
  const all = nodes(value)
  const of = (filter: (v: unknown) => boolean) => {
    const matching = all.filter((n) => filter(n.value))
    return matching.length ? matching[mutation.at % matching.length]! : all[mutation.at % all.length]!
  }
  const choose = <T>(list: readonly T[]) => list[mutation.pick % list.length]!
  const isObject = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v)
  switch (mutation.kind) {
    case 'none':
      return value
    case 'wrong_type':
      return replaceAt(value, of(() => true).path, choose(WRONG_TYPES))
    case 'drop_key': {
      const node = of((v) => isObject(v) && Object.keys(v as object).length > 0)
      if (!isObject(node.value)) return value
      const keys = Object.keys(node.value as object)
      const { [choose(keys)]: _dropped, ...rest } = node.value as Record<string, unknown>
      return replaceAt(value, node.path, rest)
    }
    case 'extra_key': {
      const node = of(isObject)
      return isObject(node.value) ? replaceAt(value, node.path, { ...(node.value as object), [`unexpected_${mutation.pick % 7}`]: mutation.text }) : value
    }
    case 'nasty_string':
      return replaceAt(value, of((v) => typeof v === 'string').path, mutation.text)
    case 'number_limit':
      return replaceAt(value, of((v) => typeof v === 'number').path, choose(LIMIT_NUMBERS))
    case 'deep_nesting':
      return replaceAt(value, of(() => true).path, deeplyNested(choose([50, 500, 5_000]), mutation.pick % 2 === 0))
    case 'long_array': {
      const node = of(Array.isArray)
      const item = Array.isArray(node.value) && node.value.length ? node.value[0] : mutation.text.slice(0, 8)
      return replaceAt(value, node.path, Array.from({ length: choose([101, 1_001, 10_001]) }, () => item))
    }
    case 'replace_root':
      return choose([null, [], 'text', 42, true, {}, [value]])
  }
}

/**
 * A path or query value: mostly hostile (random text, SSN-shaped, %-encodings that decode to
 * nothing valid, very long), sometimes the given real values so the lookup itself runs.
 * `raw` values are sent as they are; the others are percent-encoded first.
 */
export function urlValue(real: readonly string[], fromSchema?: fc.Arbitrary<unknown>): fc.Arbitrary<{ value: string; raw: boolean }> {
  const encoded = (a: fc.Arbitrary<string>) => a.map((value) => ({ value, raw: false }))
  return fc.oneof(
    ...(real.length ? [encoded(fc.constantFrom(...real))] : []),
    ...(fromSchema ? [encoded(fromSchema.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))))] : []),
    encoded(fc.uuid()),
    encoded(NASTY_STRING),
    fc.constantFrom('%00', '%ZZ', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', '%', '%25', '%u0000', '%F4%90%80%80').map((value) => ({ value, raw: true })),
  )
}

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) becomes the bytes a careless
 * client would send for it: its CESU-8 form, invalid UTF-8.
 */
export function encodeForUrl(value: string): string {
  let out = ''
  for (const char of value) {
    const code = char.codePointAt(0)!
    if (code >= 0xd800 && code <= 0xdfff) {
      out += `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase()
    } else out += encodeURIComponent(char)
  }
  return out
}
