import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * The operations of the committed openapi.json, flattened for suites generated from it (tenancy,
 * fuzz): a route added to the service is in this list without anyone writing a test for it.
 */

/** A JSON Schema as openapi.json spells it; only the keywords the generators read are typed. */
export interface JsonSchema {
  $ref?: string
  type?: string | string[]
  format?: string
  pattern?: string
  enum?: unknown[]
  const?: unknown
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minItems?: number
  maxItems?: number
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  examples?: unknown[]
}

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required: boolean
  schema: JsonSchema
}

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** As documented: `/errors/{id}/comments`. */
  path: string
  operationId: string
  pathParameters: Parameter[]
  queryParameters: Parameter[]
  body?: { contentType: string; schema: JsonSchema; example: unknown }
  /** Documents 403 `forbidden`: only an operator (service account) may call it. */
  operatorOnly: boolean
  /** `security: []`: callable without credentials (health, sign-in, token redemption). */
  isPublic: boolean
}

type Document = {
  paths: Record<string, Record<string, Record<string, unknown>>>
  components: Record<string, Record<string, unknown>>
}

const OPENAPI_FILE = fileURLToPath(new URL('../../openapi.json', import.meta.url))
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

export const openapiDocument: Document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'))

/** Follows a local `#/components/...` reference (schemas, parameters, responses). */
export function resolveRef<T>(value: T | { $ref: string }): T {
  let current: unknown = value
  while (current && typeof current === 'object' && '$ref' in current && typeof current.$ref === 'string') {
    const ref: string = current.$ref
    current = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], openapiDocument)
    if (current === undefined) throw new Error(`openapi.json: dangling reference ${ref}`)
  }
  return current as T
}

function exampleOf(media: Record<string, unknown>): unknown {
  if ('example' in media) return media.example
  const examples = media.examples as Record<string, { value: unknown }> | undefined
  const first = examples && Object.values(examples)[0]
  return first?.value
}

/** Every operation of openapi.json, in document order. */
export function listOperations(): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(openapiDocument.paths)) {
    for (const method of METHODS) {
      const raw = item[method] as Record<string, unknown> | undefined
      if (!raw) continue
      const parameters = ((raw.parameters as unknown[] | undefined) ?? []).map((p) => resolveRef(p as Parameter))
      const responses = (raw.responses as Record<string, unknown> | undefined) ?? {}
      const forbidden = responses['403'] as { $ref?: string } | undefined
      const content = (raw.requestBody as { content?: Record<string, Record<string, unknown>> } | undefined)?.content
      const [contentType, media] = content ? Object.entries(content)[0]! : []
      operations.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        operationId: String(raw.operationId),
        pathParameters: parameters.filter((p) => p.in === 'path'),
        queryParameters: parameters.filter((p) => p.in === 'query'),
        ...(contentType && media ? { body: { contentType, schema: media.schema as JsonSchema, example: exampleOf(media) } } : {}),
        operatorOnly: forbidden?.$ref === '#/components/responses/Forbidden',
        isPublic: Array.isArray(raw.security) && raw.security.length === 0,
      })
    }
  }
  return operations
}

/** A path parameter names a resource by id (a UUID), as opposed to a catalog name like a carrier's. */
export const isIdParameter = (parameter: Parameter) => resolveRef(parameter.schema).format === 'uuid'

/**
 * The kind of resource a path parameter names: the collection segment before it
 * (`/errors/{id}/comments` → `errors`), which is how every route of the API names its ids.
 */
export function resourceKindOf(path: string, parameterName: string): string {
  const segments = path.split('/')
  const at = segments.indexOf(`{${parameterName}}`)
  if (at < 1) throw new Error(`${path}: no {${parameterName}} segment`)
  return segments[at - 1]!
}

/** The documented path with each `{name}` replaced by `values[name]`, URL-encoded. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`${path}: no value for {${name}}`)
    return encodeURIComponent(value)
  })
}

/**
 * Whether the operation answers an open-ended stream (GET /events/stream, server-sent events): a
 * call that succeeds never ends, so the generated suites, which wait for whole answers, leave it
 * to test/event-stream.test.ts (its tenancy, filters, malformed cursors and queries).
 */
export const isEndlessStream = (op: Operation): boolean => op.operationId === 'streamEvents'
