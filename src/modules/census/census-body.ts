import { createReadStream } from 'node:fs'
import { parseClientJson } from '../../http/json-body.js'
import { MAX_JSON_DEPTH } from '../../http/json-depth.js'
import { httpError } from '../../http/problem.js'
import type { SpooledBody } from '../../http/spooled-body.js'
import { MAX_UNSTORABLE_TEXT_PROBLEMS, unstorableTextError } from '../../http/unstorable-text.js'
import { compileBodyValidator } from '../../http/validation.js'
import type { FieldProblem } from '../../lib/domain-error.js'
import { JsonStreamError, JsonStreamScanner, type ShellValue } from '../../lib/json-stream.js'
import { isStorableText, unstorableTextProblems } from '../../lib/storable-text.js'
import { CensusRequestShell, CensusSubscriberInput, MAX_CENSUS_SUBSCRIBERS, type CensusSubscriberInputT, type CreateCensusRequestInput } from './census-input.schema.js'
import { censusFromInput, requireOneFormat, type CensusSource } from './census-source.js'

/**
 * A census body streamed to a file (src/http/spooled-body.ts), read back without holding it
 * whole: a first look gathers everything but the subscribers (as_of, or an 834 sent as text) and
 * counts them; each reading after that parses and checks the subscribers one at a time, so a
 * problem answers exactly as schema validation of the whole body would (422 at the subscriber's
 * pointer, 400 for JSON that does not parse).
 */

const SUBSCRIBERS_PATH = ['census_request', 'subscribers'] as const
const READ_CHUNK_BYTES = 1024 * 1024

const checkShell = compileBodyValidator(CensusRequestShell)
const checkSubscriber = compileBodyValidator(CensusSubscriberInput)

function validationFailed(problems: readonly FieldProblem[]) {
  return httpError('validation_failed', `The request body has ${problems.length} invalid field${problems.length === 1 ? '' : 's'}.`, problems)
}

function malformed(error: JsonStreamError) {
  if (error.tooDeep) return httpError('malformed_json', `The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`)
  return httpError('malformed_json', `The body is not valid JSON: ${error.message} (byte ${error.offset}).`)
}

/** Reads the file through a scanner, handing over the subscribers' texts found in each chunk. */
async function* scanFile(path: string, keepElements: boolean, scanner = new JsonStreamScanner({ arrayPath: SUBSCRIBERS_PATH, maxDepth: MAX_JSON_DEPTH, keepElements })) {
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: READ_CHUNK_BYTES })) {
      scanner.push(chunk as Buffer)
      if (scanner.elements.length > 0) {
        yield scanner.elements
        scanner.elements = []
      }
    }
    scanner.end()
  } catch (error) {
    throw error instanceof JsonStreamError ? malformed(error) : error
  }
  return scanner
}

/** Sets a value at a path of keys, whatever the keys are called (`__proto__` included, as data). */
function assemble(values: readonly ShellValue[]): unknown {
  let root: unknown = {}
  for (const { path, text } of values) {
    const value = text === null ? {} : parseClientJson(text)
    if (path.length === 0) {
      if (text !== null) root = value
      continue
    }
    let target = root as Record<string, unknown>
    for (const key of path.slice(0, -1)) {
      if (!Object.hasOwn(target, key)) Object.defineProperty(target, key, { value: {}, enumerable: true, writable: true, configurable: true })
      target = target[key] as Record<string, unknown>
    }
    const last = path[path.length - 1]!
    if (text !== null || !Object.hasOwn(target, last)) Object.defineProperty(target, last, { value, enumerable: true, writable: true, configurable: true })
  }
  return root
}

function refuseUnstorable(value: unknown, pointer: string): void {
  const problems = unstorableTextProblems(value, pointer, [], MAX_UNSTORABLE_TEXT_PROBLEMS)
  if (problems.length > 0) throw unstorableTextError(problems)
}

/** One subscriber's text, parsed and checked where it stands in the census. */
function readSubscriber(text: string, index: number): CensusSubscriberInputT {
  const pointer = `/${SUBSCRIBERS_PATH.join('/')}/${index}`
  const value = parseClientJson(text, `Subscriber ${index} of the census (${pointer})`)
  // JSON text without a \u escape cannot carry an unstorable string once parsed (see unstorable-text.ts).
  if (text.includes('\\u') || !isStorableText(text)) refuseUnstorable(value, pointer)
  const checked = checkSubscriber(value, pointer)
  if (checked.problems) throw validationFailed(checked.problems)
  return checked.value as CensusSubscriberInputT
}

/** The census in a spooled body: checked but for its subscribers, which each reading checks as it goes. */
export async function openSpooledCensus(body: SpooledBody): Promise<CensusSource> {
  if (body.bytes === 0) throw validationFailed([{ pointer: '/census_request', detail: 'is required', code: 'required' }])
  const first = scanFile(body.path, false)
  let step = await first.next()
  while (!step.done) step = await first.next()
  const scanner = step.value
  const shell = assemble(scanner.shellValues) as { census_request?: Record<string, unknown> }
  if (scanner.sawArray && shell.census_request) shell.census_request.subscribers = []
  refuseUnstorable(shell, '')
  const checked = checkShell(shell, '')
  if (checked.problems) throw validationFailed(checked.problems)
  if (scanner.elementCount > MAX_CENSUS_SUBSCRIBERS) {
    throw validationFailed([{ pointer: '/census_request/subscribers', detail: `must NOT have more than ${MAX_CENSUS_SUBSCRIBERS} items`, code: 'invalid_maxitems' }])
  }
  const input = (checked.value as { census_request: CreateCensusRequestInput }).census_request
  requireOneFormat(input)
  if (input.x12_834 !== undefined) return censusFromInput(input)
  return {
    format: 'json',
    asOf: input.as_of,
    async *batches(size: number) {
      let index = 0
      let batch: CensusSubscriberInputT[] = []
      for await (const texts of scanFile(body.path, true)) {
        for (const text of texts) {
          batch.push(readSubscriber(text, index++))
          if (batch.length === size) {
            yield batch
            batch = []
          }
        }
      }
      if (batch.length > 0) yield batch
    },
  }
}
