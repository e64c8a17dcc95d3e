import { createHash, type Hash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import type { SpooledBody } from '../../http/spooled-body.js'
import { unstorableTextError } from '../../http/unstorable-text.js'
import { turnOfEventLoop } from '../../lib/event-loop.js'
import { UNSTORABLE_TEXT_DETAIL } from '../../lib/storable-text.js'
import { Edi834ParseError } from '../edi-834/edi-834.errors.js'
import type { Edi834Member } from '../edi-834/edi-834.model.js'
import { Edi834Reader } from '../edi-834/edi-834.parse.js'
import { X12StreamTokenizer } from '../edi-834/x12-tokenize.js'
import { CensusFamiliesFrom834 } from './census-from-834.js'
import { MAX_CENSUS_SUBSCRIBERS, type CensusSubscriberInputT } from './census-input.schema.js'
import type { CensusSource } from './census-source.js'
import { censusInputInvalid } from './census.errors.js'

/**
 * A census sent as the 834 itself (`Content-Type: application/edi-x12` or `text/plain`), streamed
 * to a file (src/http/spooled-body.ts) and read back a segment at a time (X12StreamTokenizer,
 * Edi834Reader): a first reading checks the whole file reads and is not cut short, each later one
 * turns it into census subscribers, a family at a time. The file is never held whole. A JSON
 * census's `x12_834` is read the same way, from the file its text was decoded to (census-body.ts).
 */

const READ_CHUNK_BYTES = 1024 * 1024
/** The body is the document: problems point at its root. */
const BODY = ''

const unreadable = (detail: string, pointer: string) => censusInputInvalid(`The 834 file cannot be read: ${detail}`, pointer)

/** The file's members in order; answers the reader at the end (whether its SE closed it). */
async function* membersOf(path: string, pointer: string, digest?: Hash): AsyncGenerator<Edi834Member, Edi834Reader> {
  const tokenizer = new X12StreamTokenizer()
  const reader = new Edi834Reader()
  try {
    for await (const text of createReadStream(path, { encoding: 'utf8', highWaterMark: READ_CHUNK_BYTES }) as AsyncIterable<string>) {
      // UTF-8 decoding leaves no unpaired surrogate; a NUL would reach the census's stored copy.
      if (text.includes('\u0000')) throw unstorableTextError([{ pointer, detail: pointer === BODY ? `the body ${UNSTORABLE_TEXT_DETAIL}` : UNSTORABLE_TEXT_DETAIL, code: 'invalid_character' }])
      digest?.update(text)
      for (const segment of tokenizer.push(text)) {
        const member = reader.read(segment)
        if (member) yield member
      }
    }
    for (const segment of tokenizer.end()) {
      const member = reader.read(segment)
      if (member) yield member
    }
    const last = reader.finish()
    if (last) yield last
  } catch (error) {
    throw error instanceof Edi834ParseError ? unreadable(error.message, pointer) : error
  }
  return reader
}

/**
 * `pointer`: where problems point, the body's root for a body that is the file, or
 * `/census_request/x12_834` for a JSON census's 834 (whose file holds the decoded string).
 */
export async function openSpooled834Census(body: Pick<SpooledBody, 'path' | 'bytes'>, asOf: string | undefined, pointer = BODY): Promise<CensusSource> {
  if (body.bytes === 0) throw unreadable('the body is empty', pointer)
  // As a census sent as x12_834 text is identified: its format and its text.
  const digest = createHash('sha256').update('x12_834').update('\n')
  const members = membersOf(body.path, pointer, digest)
  let subscribers = 0
  let step = await members.next()
  for (; !step.done; step = await members.next()) if (step.value.subscriber) subscribers++
  if (!step.value.closed) throw unreadable('its transaction set has no SE trailer (the file is cut short).', pointer)
  if (subscribers > MAX_CENSUS_SUBSCRIBERS) throw censusInputInvalid(`The 834 file has ${subscribers} subscribers: a census may have ${MAX_CENSUS_SUBSCRIBERS} at most.`, pointer)
  return {
    format: 'x12_834',
    asOf,
    contentSha256: digest.digest('hex'),
    async *batches(size: number) {
      const families = new CensusFamiliesFrom834()
      let batch: CensusSubscriberInputT[] = []
      const add = (family: CensusSubscriberInputT | undefined) => {
        if (family) batch.push(family)
      }
      let read = 0
      for await (const member of membersOf(body.path, pointer)) {
        add(families.add(member))
        // Members parsed between two turns of the event loop (see lib/event-loop.ts).
        if (++read % 100 === 0) await turnOfEventLoop()
        if (batch.length === size) {
          yield batch
          batch = []
        }
      }
      add(families.finish())
      if (batch.length > 0) yield batch
    },
  }
}
