import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCarrierTestBed, type CarrierTestBed } from '../helpers/carrier-side.js'
import { fillPath, isEndlessStream, isIdParameter, listOperations, resourceKindOf, type Operation } from '../helpers/openapi-operations.js'
import { buildTenantWorld, registerOperatorUser, type TenantWorld } from '../helpers/tenant-world.js'

/**
 * Generated from openapi.json: every operation that names a resource by id in its path is called
 * by account B with account A's ids, by API key and by bearer token, and must answer 404 (another
 * account's resource does not exist for you), or 403 where only operators may call. A route added
 * later is called here without anyone writing a test; if its path names a collection the worlds
 * do not hold an id for, the suite fails until one line is added to tenant-world.ts.
 */

const operations = listOperations().filter((op) => !op.isPublic && !isEndlessStream(op))
const idOperations = operations.filter((op) => op.pathParameters.some(isIdParameter))

let bed: CarrierTestBed
let owner: TenantWorld
let intruder: TenantWorld
let intruderToken: string

beforeAll(async () => {
  bed = await startCarrierTestBed()
  const operator = await bed.t.newOperator()
  await registerOperatorUser(bed, operator)
  owner = await buildTenantWorld(bed, operator, 'Owner partner')
  intruder = await buildTenantWorld(bed, operator, 'Intruder partner')
  const token = await bed.t.app.inject({ method: 'POST', url: '/auth/token', headers: { 'service-api-key': intruder.partner.apiKey } })
  expect(token.statusCode, token.body).toBe(201)
  intruderToken = token.json().token
}, 180_000)
afterAll(async () => bed?.close())

type Channel = 'api key' | 'token'

function send(op: Operation, url: string, channel: Channel, caller: TenantWorld): Promise<LightMyRequestResponse> {
  const auth = channel === 'api key' ? { 'service-api-key': caller.partner.apiKey } : { authorization: `Bearer ${intruderToken}` }
  const body = op.body
  return bed.t.app.inject({
    method: op.method,
    url,
    headers: { ...auth, ...(body ? { 'content-type': body.contentType } : {}) },
    // The documented example: a valid body, so schema validation cannot answer before the lookup does.
    ...(body ? { payload: typeof body.example === 'string' ? body.example : JSON.stringify(body.example) } : {}),
  })
}

function idsFor(op: Operation, world: TenantWorld): Record<string, string> {
  return Object.fromEntries(
    op.pathParameters.filter(isIdParameter).map((p) => {
      const kind = resourceKindOf(op.path, p.name)
      return [p.name, world.ids[kind] ?? '']
    }),
  )
}

describe('generated from openapi.json: the id kinds of every path', () => {
  it('when an operation names a resource by id, then the tenancy worlds hold an id of that kind (add it to tenant-world.ts)', () => {
    expect(idOperations.length).toBeGreaterThan(50)
    const unknown = idOperations.flatMap((op) =>
      op.pathParameters
        .filter(isIdParameter)
        .map((p) => resourceKindOf(op.path, p.name))
        .filter((kind) => !(kind in owner.ids))
        .map((kind) => `${op.method} ${op.path}: no id of kind "${kind}"`),
    )
    expect(unknown).toEqual([])
  })
})

describe.each(['api key', 'token'] as const)("generated from openapi.json: another account's ids, by %s", (channel) => {
  it.each(idOperations.map((op) => [`${op.method} ${op.path}`, op] as const))(
    "when account B calls %s with account A's ids, then 404 (403 where only operators may call)",
    async (_, op) => {
      const res = await send(op, fillPath(op.path, idsFor(op, owner)), channel, intruder)
      const expected = op.operatorOnly ? 403 : 404
      expect(res.statusCode, `${op.method} ${op.path}: ${res.body}`).toBe(expected)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(res.json()).toMatchObject({ status: expected, code: op.operatorOnly ? 'forbidden' : expect.stringMatching(/not_found$/) })
    },
  )
})

// The 404s above mean something only if the same call with the caller's own ids finds the
// resource: reads are repeated with B's ids (writes are not, they would change B's world).
describe('generated from openapi.json: the same reads with your own ids', () => {
  const reads = idOperations.filter((op) => op.method === 'GET' && !op.operatorOnly)
  it.each(reads.map((op) => [`${op.method} ${op.path}`, op] as const))('when account B calls %s with its own ids, then 200', async (_, op) => {
    const res = await send(op, fillPath(op.path, idsFor(op, intruder)), 'api key', intruder)
    expect(res.statusCode, `${op.method} ${op.path}: ${res.body}`).toBe(200)
  })
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The kind a field or query parameter named `<something>_id` refers to: the longest tail of
 * `<something>` that, made plural, is a collection of the worlds (`from_coverage_period_id` →
 * `coverage_periods`). Undefined when none is.
 */
function kindOfIdField(name: string, world: TenantWorld): string | undefined {
  const words = name.replace(/_id$/, '').split('_')
  for (let start = 0; start < words.length; start++) {
    const kind = `${words.slice(start).join('_')}s`
    if (kind in world.ids) return kind
  }
  return undefined
}

/** Every `*_id` field of a JSON value holding a UUID, as a JSON pointer and its field name. */
function idFields(value: unknown, pointer = ''): { pointer: string; name: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => idFields(item, `${pointer}/${i}`))
  if (!value || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, item]) =>
    typeof item === 'string' && key.endsWith('_id') && UUID.test(item) ? [{ pointer: `${pointer}/${key}`, name: key }] : idFields(item, `${pointer}/${key}`),
  )
}

function setAt(value: unknown, pointer: string, replacement: string): void {
  const keys = pointer.split('/').slice(1)
  const last = keys.pop()!
  const parent = keys.reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, value as Record<string, unknown>)
  parent[last] = replacement
}

/** Whether any id of `world` appears in an answer's body. */
const leaksFrom = (world: TenantWorld, body: string) => Object.values(world.ids).filter((id) => body.includes(id))

function expectRefusedOrClean(res: LightMyRequestResponse, what: string) {
  expect(res.statusCode, `${what}: ${res.body}`).toBeLessThan(500)
  if (res.statusCode >= 400) {
    expect(res.headers['content-type'], what).toMatch(/^application\/problem\+json/)
  } else {
    expect(leaksFrom(owner, res.body), `${what}: the answer shows the other account's resources`).toEqual([])
  }
}

// Ids in queries and bodies that name another resource: answered as absent (a 4xx, or a list
// without the other account's data), never used. Operator-only routes refuse partners anyway.
describe("generated from openapi.json: another account's ids in queries", () => {
  const cases = operations
    .filter((op) => !op.operatorOnly)
    .flatMap((op) => op.queryParameters.filter((p) => p.name.endsWith('_id')).map((p) => [`${op.method} ${op.path}?${p.name}`, op, p.name] as const))
  it('when a query parameter names a resource by id, then its kind is known (add it to tenant-world.ts)', () => {
    expect(cases.filter(([, , name]) => !kindOfIdField(name, owner)).map(([label]) => label)).toEqual([])
  })
  it.each(cases)("when account B calls %s with account A's id, then it is refused or shows nothing of A's", async (label, op, name) => {
    const url = `${fillPath(op.path, idsFor(op, intruder))}?${name}=${owner.ids[kindOfIdField(name, owner)!]}`
    expectRefusedOrClean(await send(op, url, 'api key', intruder), label)
  })
})

describe("generated from openapi.json: another account's ids in bodies", () => {
  /** The operation's example with every id made the caller's own, then one made the other account's. */
  const cases = operations
    .filter((op) => !op.operatorOnly && op.body && typeof op.body.example === 'object')
    .flatMap((op) => idFields(op.body!.example).map((field) => [`${op.method} ${op.path} ${field.pointer}`, op, field] as const))
  it('when a body field names a resource by id, then its kind is known (add it to tenant-world.ts)', () => {
    expect(cases.filter(([, , field]) => !kindOfIdField(field.name, owner)).map(([label]) => label)).toEqual([])
  })
  it.each(cases)("when account B sends %s as account A's id, then 404 or 422 at that field", async (label, op, field) => {
    const body = structuredClone(op.body!.example)
    for (const other of idFields(body)) setAt(body, other.pointer, intruder.ids[kindOfIdField(other.name, intruder)!]!)
    setAt(body, field.pointer, owner.ids[kindOfIdField(field.name, owner)!]!)
    const res = await bed.t.app.inject({
      method: op.method,
      url: fillPath(op.path, idsFor(op, intruder)),
      headers: { 'service-api-key': intruder.partner.apiKey, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    })
    expect([404, 422], `${label}: ${res.body}`).toContain(res.statusCode)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    if (res.statusCode === 422) expect(res.json().errors.map((e: { pointer: string }) => e.pointer), label).toContain(field.pointer)
  })
})
