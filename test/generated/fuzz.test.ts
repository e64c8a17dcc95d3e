import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCarrierTestBed, type CarrierTestBed } from '../helpers/carrier-side.js'
import { isEndlessStream, isIdParameter, listOperations, resourceKindOf, type Operation, type Parameter } from '../helpers/openapi-operations.js'
import { arbitraryFor, encodeForUrl, MUTATION, mutate, toJsonText, urlValue, type Mutation } from '../helpers/schema-arbitraries.js'
import type { Credential } from '../helpers/test-app.js'
import { buildTenantWorld, registerOperatorUser, type TenantWorld } from '../helpers/tenant-world.js'

/**
 * Generated from openapi.json: every operation is sent bodies generated from its request schema
 * (or its example) with one mutation (wrong types, missing and extra fields, NUL, lone
 * surrogates, huge strings, numbers at limits, deep nesting, long arrays), and hostile path and
 * query values, as the account allowed to call it. No answer may be a 5xx, and every 4xx is
 * problem+json whose `status` is the HTTP status.
 *
 * FUZZ_RUNS sets the cases per operation (the default, 300, takes about 30 s per database on
 * two cores; raise it for a deeper run); FUZZ_SEED the seed, so a failure printed with its seed replays exactly; FUZZ_ONLY picks
 * operations by "METHOD /path" substring.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300)
const SEED = Number(process.env.FUZZ_SEED ?? 20261126)
const SHRINK_TRIES = 300

// FUZZ_ONLY narrows the run to the operations whose "METHOD /path" contains it (a replay, a deep run).
// Each operation's seed is FUZZ_SEED plus its place in openapi.json, whatever FUZZ_ONLY keeps.
const operations = listOperations()
  .map((op, index) => ({ op, seed: SEED + index }))
  .filter(({ op }) => !isEndlessStream(op) && `${op.method} ${op.path}`.includes(process.env.FUZZ_ONLY ?? ''))

let bed: CarrierTestBed
let operator: Credential
let world: TenantWorld

beforeAll(async () => {
  bed = await startCarrierTestBed()
  operator = await bed.t.newOperator()
  await registerOperatorUser(bed, operator)
  world = await buildTenantWorld(bed, operator, 'Fuzzed partner')
}, 180_000)
afterAll(async () => bed?.close())

interface FuzzInput {
  path: Record<string, { value: string; raw: boolean }>
  query: Partial<Record<string, { value: string; raw: boolean }>>
  body: unknown
  mutation: Mutation
}

/** Real values a path parameter may take, so some cases reach the resource and its rules. */
function realValues(op: Operation, parameter: Parameter): string[] {
  if (!isIdParameter(parameter)) return ['sandbox_edi', 'aetna']
  const id = world.ids[resourceKindOf(op.path, parameter.name)]
  return id ? [id] : []
}

function inputFor(op: Operation): fc.Arbitrary<FuzzInput> {
  const path = Object.fromEntries(op.pathParameters.map((p) => [p.name, urlValue(realValues(op, p), arbitraryFor(p.schema))]))
  const query = Object.fromEntries(op.queryParameters.map((p) => [p.name, urlValue([], arbitraryFor(p.schema))]))
  const body = op.body ? fc.oneof(fc.constant(op.body.example), arbitraryFor(op.body.schema)) : fc.constant(undefined)
  return fc.record({ path: fc.record(path), query: fc.record(query, { requiredKeys: [] }), body, mutation: MUTATION })
}

const asUrlPart = ({ value, raw }: { value: string; raw: boolean }) => (raw ? value : encodeForUrl(value))

function requestOf(op: Operation, input: FuzzInput) {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => asUrlPart(input.path[name]!))
  const query = Object.entries(input.query)
    .map(([name, value]) => `${encodeURIComponent(name)}=${asUrlPart(value!)}`)
    .join('&')
  const mutated = op.body ? mutate(input.body, input.mutation) : undefined
  const payload = mutated === undefined ? undefined : op.body!.contentType === 'application/json' ? toJsonText(mutated) : String(mutated)
  return { method: op.method, url: query ? `${path}?${query}` : path, payload }
}

function credentialHeaders(op: Operation): Record<string, string> {
  if (op.isPublic) return {}
  return { 'service-api-key': (op.operatorOnly ? operator : world.partner).apiKey }
}

/** What is wrong with the answer, or undefined when it keeps the contract. */
function contractBreach(res: LightMyRequestResponse): string | undefined {
  if (res.statusCode >= 500) return `answered ${res.statusCode}`
  if (res.statusCode < 400) return undefined
  const contentType = String(res.headers['content-type'] ?? '')
  if (!contentType.startsWith('application/problem+json')) return `answered ${res.statusCode} as ${contentType || 'no content type'}`
  let status: unknown
  try {
    status = JSON.parse(res.body).status
  } catch {
    return `answered ${res.statusCode} with a body that is not JSON`
  }
  return status === res.statusCode ? undefined : `answered ${res.statusCode} with a problem whose status is ${String(status)}`
}

const excerpt = (text: string | undefined, max = 600) => (text === undefined ? '(none)' : text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text)

let casesRun = 0
const statusCounts = new Map<number, number>()

describe.each(operations.map(({ op, seed }) => [`${op.method} ${op.path}`, op, seed] as const))('generated from openapi.json: fuzzing %s', (label, op, seed) => {
  it(
    'when sent generated and mutated input, then no 5xx, and every 4xx is problem+json with its status',
    async () => {
      let breach: { request: ReturnType<typeof requestOf>; problem: string; body: string } | undefined
      let triesAfterBreach = 0
      const details = await fc.check(
        fc.asyncProperty(inputFor(op), async (input) => {
          // Shrinking inputs of 100,000 characters can take thousands of tries: after a few
          // hundred, the smallest breach found so far is the one reported.
          if (breach && ++triesAfterBreach > SHRINK_TRIES) return true
          const request = requestOf(op, input)
          const res = await bed.t.app.inject({
            method: request.method,
            url: request.url,
            headers: { ...credentialHeaders(op), ...(op.body ? { 'content-type': op.body.contentType } : {}) },
            ...(request.payload === undefined ? {} : { payload: request.payload }),
          })
          casesRun++
          statusCounts.set(res.statusCode, (statusCounts.get(res.statusCode) ?? 0) + 1)
          const problem = contractBreach(res)
          // The last breach seen is the shrunk one: fast-check replays ever smaller inputs.
          if (problem) breach = { request, problem, body: res.body }
          return problem === undefined
        }),
        { seed, numRuns: RUNS },
      )
      if (details.failed) {
        expect.fail(
          [
            `${label} ${breach?.problem ?? 'threw'} (FUZZ_SEED=${SEED}, this operation's seed ${seed}, path ${details.counterexamplePath}).`,
            `Shrunk request: ${breach?.request.method} ${excerpt(breach?.request.url, 300)}`,
            `Body sent: ${excerpt(breach?.request.payload)}`,
            `Answer: ${excerpt(breach?.body)}`,
            !breach && details.errorInstance instanceof Error ? `The test itself threw: ${details.errorInstance.stack}` : '',
          ].join('\n'),
        )
      }
    },
    // Bounded by FUZZ_RUNS, not by time: a large FUZZ_RUNS on demand must not time out.
    Math.max(60_000, RUNS * 2_000),
  )
})

afterAll(() => {
  // The figure CI records: how many requests the suite sent (every one checked).
  const byStatus = [...statusCounts].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`)
  console.info(`fuzz: ${casesRun} cases over ${operations.length} operations, FUZZ_SEED=${SEED}, FUZZ_RUNS=${RUNS} (${byStatus.join(', ')})`)
})
