import { Edi834ParseError } from '../edi-834/edi-834.errors.js'
import { parse834 } from '../edi-834/edi-834.parse.js'
import { tokenizeX12 } from '../edi-834/x12-tokenize.js'
import { censusSubscribersFrom834 } from './census-from-834.js'
import type { CensusSubscriberInputT, CreateCensusRequestInput } from './census-input.schema.js'
import { censusInputInvalid } from './census.errors.js'

/**
 * A census as the reconciliation reads it: its subscribers in census order, a batch at a time,
 * twice over (first to match them, then to compare them), so a census read from a file never has
 * to be held whole. census-body.ts makes one from a body streamed to a file; `censusFromInput`
 * from a census already in memory (the sandbox carriers', an 834 sent as text).
 */
export interface CensusSource {
  readonly format: 'json' | 'x12_834'
  readonly asOf: string | undefined
  /** The 834's text, which is what "the same census again" compares; for JSON, the subscribers are. */
  readonly text?: string
  /** Or that comparison's digest already taken (an 834 read from a file: SHA-256 of the format, a newline and the text). */
  readonly contentSha256?: string
  batches(size: number): AsyncIterable<readonly CensusSubscriberInputT[]>
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Whether an 834's transaction set is closed by its SE. parse834 reads members up to SE or the
 * end of the text, so a file cut short in transit would otherwise read as a carrier lacking every
 * member after the cut: errors raised for each of them, their open errors resolved. Only the ISA
 * is tokenized here (for the separators); the rest is one search, not a second parse.
 */
function transactionSetClosed(text: string): boolean {
  const { separators } = tokenizeX12(text.slice(0, text.indexOf('ISA') + 1024))
  return new RegExp(`${escapeRegExp(separators.segment)}\\s*SE${escapeRegExp(separators.element)}`).test(text)
}

function fromArray(subscribers: readonly CensusSubscriberInputT[]) {
  return async function* batches(size: number): AsyncIterable<readonly CensusSubscriberInputT[]> {
    for (let start = 0; start < subscribers.length; start += size) yield subscribers.slice(start, start + size)
  }
}

/** Exactly one of the two formats: the census request's own rule, whichever way the body arrived. */
export function requireOneFormat(input: { subscribers?: unknown; x12_834?: unknown }): void {
  if ((input.subscribers === undefined) === (input.x12_834 === undefined)) {
    throw censusInputInvalid('Send exactly one of census_request.subscribers (JSON) or census_request.x12_834 (an 834 audit file).', '/census_request')
  }
}

/** A census held in memory; an unreadable 834 is a 422 naming the segment. */
export function censusFromInput(input: CreateCensusRequestInput): CensusSource {
  requireOneFormat(input)
  if (input.subscribers) return { format: 'json', asOf: input.as_of, batches: fromArray(input.subscribers) }
  const text = input.x12_834!
  try {
    const parsed = parse834(text)
    if (!transactionSetClosed(text)) {
      throw censusInputInvalid('The 834 file cannot be read: its transaction set has no SE trailer (the file is cut short).', '/census_request/x12_834')
    }
    return { format: 'x12_834', asOf: input.as_of, text, batches: fromArray(censusSubscribersFrom834(parsed.members)) }
  } catch (error) {
    if (error instanceof Edi834ParseError) throw censusInputInvalid(`The 834 file cannot be read: ${error.message}`, '/census_request/x12_834')
    throw error
  }
}
