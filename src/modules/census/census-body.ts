import { closeSync, createReadStream, openSync, readFileSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseClientJson } from '../../http/json-body.js'
import { MAX_JSON_DEPTH } from '../../http/json-depth.js'
import { httpError } from '../../http/problem.js'
import type { SpooledBody } from '../../http/spooled-body.js'
import { MAX_UNSTORABLE_TEXT_PROBLEMS, unstorableTextError } from '../../http/unstorable-text.js'
import { compileBodyValidator } from '../../http/validation.js'
import type { FieldProblem } from '../../lib/domain-error.js'
import { turnOfEventLoop } from '../../lib/event-loop.js'
import { JsonStreamError, JsonStreamScanner, type ShellValue } from '../../lib/json-stream.js'
import { JsonStringDecoder, JsonStringSyntaxError } from '../../lib/json-string-decoder.js'
import { PRIVATE_FILE_MODE } from '../../lib/private-files.js'
import { isStorableText, UNSTORABLE_TEXT_DETAIL, unstorableTextProblems } from '../../lib/storable-text.js'
import { openSpooled834Census } from './census-834-body.js'
import { CensusRequestShell, CensusSubscriberInput, MAX_CENSUS_SUBSCRIBERS, X12_834_MIN_LENGTH, type CensusSubscriberInputT, type CreateCensusRequestInput } from './census-input.schema.js'
import { censusFromInput, requireOneFormat, type CensusSource } from './census-source.js'

/**
 * A census body streamed to a file (src/http/spooled-body.ts), read back without holding it
 * whole: a first look gathers everything but the subscribers (as_of, or an 834 sent as text) and
 * counts them; each reading after that parses and checks the subscribers one at a time, so a
 * problem answers exactly as schema validation of the whole body would (422 at the subscriber's
 * pointer, 400 for JSON that does not parse).
 */

const SUBSCRIBERS_PATH = ['census_request', 'subscribers'] as const
const X12_PATH = ['census_request', 'x12_834'] as const
const X12_POINTER = '/census_request/x12_834'
const READ_CHUNK_BYTES = 1024 * 1024
/** Subscribers parsed between two turns of the event loop (see lib/event-loop.ts). */
const YIELD_EVERY = 25

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

function refuseUnstorable(value: unknown, pointer: string, problems: FieldProblem[] = []): void {
  unstorableTextProblems(value, pointer, problems, MAX_UNSTORABLE_TEXT_PROBLEMS)
  if (problems.length > 0) throw unstorableTextError(problems)
}

/**
 * The census's `x12_834` string, decoded to a file beside the spooled body as the first look
 * scans past it: an 834 of 200,000 families is too large to hold as one string (and past about
 * 512 MB, more than V8 can). The census then reads it as it reads an 834 sent as the body.
 * Writes are synchronous: they go to the page cache, a megabyte per read of the body.
 */
class X12Spool {
  readonly path: string
  bytes = 0
  private readonly decoder = new JsonStringDecoder()
  /** Opened by the first write: a census of subscribers has no file. */
  private fd: number | null = null

  constructor(body: SpooledBody) {
    this.path = join(dirname(body.path), 'x12_834')
  }

  write(raw: Buffer): void {
    this.fd ??= openSync(this.path, 'w', PRIVATE_FILE_MODE)
    this.append(this.decoder.push(raw))
  }

  /** Closes the file; answers what the decoding found. */
  finish(): { characters: number; unstorable: boolean } {
    try {
      this.append(this.decoder.end())
    } finally {
      this.close()
    }
    return { characters: this.decoder.characters, unstorable: this.decoder.unstorable }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd)
    this.fd = null
  }

  private append(text: string): void {
    if (text === '') return
    const bytes = Buffer.from(text, 'utf8')
    let written = 0
    while (written < bytes.length) written += writeSync(this.fd!, bytes, written)
    this.bytes += bytes.length
  }
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
  const x12 = new X12Spool(body)
  let scanner: JsonStreamScanner
  let decoded: { characters: number; unstorable: boolean } | null = null
  try {
    const first = scanFile(body.path, false, new JsonStreamScanner({ arrayPath: SUBSCRIBERS_PATH, maxDepth: MAX_JSON_DEPTH, keepElements: false, stringAt: { path: X12_PATH, write: (raw) => x12.write(raw) } }))
    let step = await first.next()
    while (!step.done) step = await first.next()
    scanner = step.value
    if (scanner.streamedString) decoded = x12.finish()
  } catch (error) {
    if (error instanceof JsonStringSyntaxError) throw httpError('malformed_json', `The body is not valid JSON: census_request.x12_834: ${error.message}.`)
    throw error
  } finally {
    x12.close()
  }
  const shell = assemble(scanner.shellValues) as { census_request?: Record<string, unknown> }
  if (scanner.sawArray && shell.census_request) shell.census_request.subscribers = []
  // Too short to be an 834 (the schema's minLength): the schema says so, from the string itself, as for any other field.
  const x12Streamed = decoded !== null && decoded.characters >= X12_834_MIN_LENGTH
  if (decoded && !x12Streamed && shell.census_request) shell.census_request.x12_834 = readFileSync(x12.path, 'utf8')
  refuseUnstorable(shell, '', x12Streamed && decoded!.unstorable ? [{ pointer: X12_POINTER, detail: UNSTORABLE_TEXT_DETAIL, code: 'invalid_character' }] : [])
  const checked = checkShell(shell, '')
  if (checked.problems) throw validationFailed(checked.problems)
  if (scanner.elementCount > MAX_CENSUS_SUBSCRIBERS) {
    throw validationFailed([{ pointer: '/census_request/subscribers', detail: `must NOT have more than ${MAX_CENSUS_SUBSCRIBERS} items`, code: 'invalid_maxitems' }])
  }
  const input = (checked.value as { census_request: CreateCensusRequestInput }).census_request
  if (x12Streamed) {
    requireOneFormat({ subscribers: input.subscribers, x12_834: '' })
    return openSpooled834Census({ path: x12.path, bytes: x12.bytes }, input.as_of, X12_POINTER)
  }
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
          if (index % YIELD_EVERY === 0) await turnOfEventLoop()
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
