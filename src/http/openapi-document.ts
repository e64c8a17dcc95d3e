import { canonicalJson } from '../lib/canonical-json.js'

/**
 * The last step of generating the OpenAPI document (the swagger plugin's `transformObject`).
 *
 * Route schemas are plain TypeBox objects nested by value: one schema stays the source of
 * validation, serialisation (the response field allow-list) and the handler's static type. The
 * published document, though, should name what is shared, so generated clients get one type per
 * entity and the file stays small. This step only rewrites the description; nothing a request
 * meets changes.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

/** The parts of the document read here; everything else passes through unchanged. The steps
 * below change the operations of the document they are given: call them through
 * finishOpenApiDocument, which hands them a copy. */
export interface OpenApiDocumentParts {
  paths?: Record<string, Record<string, unknown>>
  components?: { schemas?: Record<string, unknown>; responses?: Record<string, unknown>; parameters?: Record<string, unknown> }
}

interface Operation {
  parameters?: JsonObject[]
  requestBody?: JsonObject
  responses?: Record<string, JsonObject>
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/** Keys whose values are data (examples, defaults), not schemas: never rewritten, however they look. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum'])

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function operationsOf(document: OpenApiDocumentParts): Operation[] {
  return Object.values(document.paths ?? {}).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([, operation]) => operation as Operation),
  )
}

/** `per_page` → `PerPage`, `missing_credentials` → `MissingCredentials`. */
export function pascalCase(name: string): string {
  return name.replace(/(?:^|[_\-\s]+)([a-zA-Z0-9])/g, (_, letter: string) => letter.toUpperCase())
}

// ---- Named schemas ----

/**
 * Replaces, top down, every subtree found in `nameOf` by a `$ref` to that component. The root
 * itself is replaced only when `replaceRoot` (a component's own body must stay its body).
 */
function referTo(node: Json, nameOf: ReadonlyMap<string, string>, replaceRoot: boolean, isPropertyMap = false): Json {
  if (Array.isArray(node)) return node.map((item) => referTo(item, nameOf, true))
  if (!isObject(node)) return node
  if (replaceRoot && !isPropertyMap) {
    const name = nameOf.get(canonicalJson(node))
    if (name !== undefined) return { $ref: `#/components/schemas/${name}` }
  }
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(node)) {
    // In `properties` the keys are field names: a field called `example` holds a schema.
    if (DATA_KEYS.has(key) && !isPropertyMap) out[key] = value
    else out[key] = referTo(value, nameOf, true, key === 'properties' && !isPropertyMap)
  }
  return out
}

/**
 * Every subtree of the paths (and of the other components) equal to a named schema of
 * src/http/components.ts becomes `{ "$ref": "#/components/schemas/<name>" }`. Two components
 * with the same body would make the choice ambiguous, so that is refused when generating.
 */
export function referToNamedSchemas<T extends OpenApiDocumentParts>(document: T): T {
  const schemas = document.components?.schemas
  if (!schemas) return document
  const nameOf = new Map<string, string>()
  for (const [name, schema] of Object.entries(schemas)) {
    const key = canonicalJson(schema)
    const other = nameOf.get(key)
    if (other !== undefined) throw new Error(`The OpenAPI components ${other} and ${name} have the same schema: keep one of them`)
    nameOf.set(key, name)
  }
  const components: Record<string, unknown> = {}
  for (const [name, schema] of Object.entries(schemas)) components[name] = referTo(schema as Json, nameOf, false)
  return {
    ...document,
    components: { ...document.components, schemas: sortByKey(components) },
    paths: document.paths && (referTo(document.paths as Json, nameOf, true) as T['paths']),
  }
}

// ---- Problem responses ----

/**
 * Each problem response (src/http/schemas.ts describes one per error code, with that code's
 * example) becomes `#/components/responses/<PascalCaseCode>`, referenced by every operation that
 * can answer it: a client sees the catalogue of problems once, and `missing_credentials` is not
 * spelled out on eighty operations. A response that differs from the first one of its code stays
 * inline rather than being silently merged.
 */
export function nameProblemResponses<T extends OpenApiDocumentParts>(document: T): T {
  const responses: Record<string, unknown> = { ...document.components?.responses }
  for (const operation of operationsOf(document)) {
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      const media = response.content
      const example = isObject(media) && isObject(media['application/problem+json']) ? media['application/problem+json'].example : undefined
      if (!isObject(example) || typeof example.code !== 'string') continue
      const name = pascalCase(example.code)
      responses[name] ??= response
      if (canonicalJson(responses[name]) === canonicalJson(response)) operation.responses![status] = { $ref: `#/components/responses/${name}` }
    }
  }
  return Object.keys(responses).length === 0 ? document : { ...document, components: { ...document.components, responses: sortByKey(responses) } }
}

// ---- Parameters ----

/** Parameters most operations take alike: the list parameters (PaginationQuery) and the `{id}` of a resource (IdParams). */
const SHARED_PARAMETERS = [
  { in: 'query', name: 'page' },
  { in: 'query', name: 'per_page' },
  { in: 'path', name: 'id' },
]

/**
 * `page`, `per_page` and the path's `id` become `#/components/parameters/Page`, `PerPage` and
 * `Id`, described once. Should one operation describe one of them differently, that operation
 * keeps its own inline, so the shared name never means two things.
 */
export function nameSharedParameters<T extends OpenApiDocumentParts>(document: T): T {
  const parameters: Record<string, unknown> = { ...document.components?.parameters }
  for (const operation of operationsOf(document)) {
    operation.parameters = operation.parameters?.map((parameter) => {
      if (!SHARED_PARAMETERS.some((shared) => shared.in === parameter.in && shared.name === parameter.name)) return parameter
      const name = pascalCase(String(parameter.name))
      parameters[name] ??= parameter
      return canonicalJson(parameters[name]) === canonicalJson(parameter) ? { $ref: `#/components/parameters/${name}` } : parameter
    })
  }
  return Object.keys(parameters).length === 0 ? document : { ...document, components: { ...document.components, parameters: sortByKey(parameters) } }
}

// ---- Success responses ----

/**
 * The name of a `{ "group": ... }` answer: the component it carries (`Group`), `GroupList` for
 * an array of one, else its key in PascalCase. Undefined for any other shape.
 */
function successResponseName(response: JsonObject): string | undefined {
  const media = isObject(response.content) ? response.content['application/json'] : undefined
  const schema = isObject(media) ? media.schema : undefined
  const properties = isObject(schema) && isObject(schema.properties) ? Object.entries(schema.properties) : []
  if (properties.length !== 1) return undefined
  const [key, property] = properties[0]!
  const componentOf = (node: Json | undefined) =>
    isObject(node) && typeof node.$ref === 'string' ? node.$ref.replace('#/components/schemas/', '') : undefined
  if (!isObject(property)) return pascalCase(key)
  const carried = componentOf(property)
  if (carried !== undefined) return carried
  const listed = property.type === 'array' ? componentOf(property.items) : undefined
  return listed !== undefined ? `${listed}List` : pascalCase(key)
}

/**
 * An answer several operations give identically, example included (`{ "group": ... }` from
 * creating, reading and replacing a group), becomes `#/components/responses/<Name>`. When two
 * different answers repeated would get the same name, neither is named: a name means one answer.
 */
export function nameSharedSuccessResponses<T extends OpenApiDocumentParts>(document: T): T {
  const successes = operationsOf(document).flatMap((operation) =>
    Object.entries(operation.responses ?? {})
      .filter(([status]) => status.startsWith('2'))
      .flatMap(([status, response]) => {
        const name = successResponseName(response)
        return name === undefined ? [] : [{ operation, status, response, name, form: canonicalJson(response) }]
      }),
  )
  const count = new Map<string, number>()
  for (const { form } of successes) count.set(form, (count.get(form) ?? 0) + 1)
  const formsByName = new Map<string, Set<string>>()
  for (const { name, form } of successes) {
    if ((count.get(form) ?? 0) < 2) continue
    formsByName.set(name, (formsByName.get(name) ?? new Set()).add(form))
  }
  const responses: Record<string, unknown> = { ...document.components?.responses }
  let named = false
  for (const { operation, status, response, name, form } of successes) {
    const forms = formsByName.get(name)
    if (forms?.size !== 1 || !forms.has(form) || (responses[name] !== undefined && canonicalJson(responses[name]) !== form)) continue
    responses[name] = response
    operation.responses![status] = { $ref: `#/components/responses/${name}` }
    named = true
  }
  return named ? { ...document, components: { ...document.components, responses: sortByKey(responses) } } : document
}

// ---- Defaults ----

/**
 * A request field or parameter with a default need not be sent: validation fills the default in
 * before it checks (src/http/validation.ts), which is why the handler's type may still call it
 * required. So the document drops it from `required`: generated clients must not force `page`
 * and `per_page` on every list call. Answers are untouched (there `required` means "always present").
 */
export function optionalWhenDefaulted<T extends OpenApiDocumentParts>(document: T): T {
  for (const operation of operationsOf(document)) {
    for (const parameter of operation.parameters ?? []) {
      if (parameter.required === true && isObject(parameter.schema) && parameter.schema.default !== undefined) delete parameter.required
    }
    const content = operation.requestBody?.content
    if (isObject(content)) for (const media of Object.values(content)) if (isObject(media)) dropDefaultedFromRequired(media.schema)
  }
  return document
}

function dropDefaultedFromRequired(schema: Json | undefined): void {
  if (Array.isArray(schema)) return schema.forEach(dropDefaultedFromRequired)
  if (!isObject(schema)) return
  const properties = schema.properties
  if (isObject(properties) && Array.isArray(schema.required)) {
    const required = schema.required.filter((name) => !(isObject(properties[String(name)]) && (properties[String(name)] as JsonObject).default !== undefined))
    if (required.length > 0) schema.required = required
    else delete schema.required
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isObject(value)) Object.values(value).forEach(dropDefaultedFromRequired)
    else if (!DATA_KEYS.has(key)) dropDefaultedFromRequired(value)
  }
}

/** Sorted by code unit, not by locale: the committed file must be the same on every machine. */
function sortByKey(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/**
 * All of the above, on a copy: the steps after the first rewrite operations in place, and the
 * plugin's document may share objects with the route schemas that validate requests.
 * Schemas are named first, so the later comparisons see `$ref`s; defaults are relaxed before
 * parameters are shared, so `Page` is described as optional.
 */
export function finishOpenApiDocument<T extends OpenApiDocumentParts>(document: T): T {
  const named = referToNamedSchemas(structuredClone(document))
  return nameSharedSuccessResponses(nameProblemResponses(nameSharedParameters(optionalWhenDefaulted(named))))
}
