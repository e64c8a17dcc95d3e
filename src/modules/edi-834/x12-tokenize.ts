import { Edi834ParseError } from './edi-834.errors.js'

/** The separators a file declares in its ISA. */
export interface X12Separators {
  element: string
  component: string
  repetition: string
  segment: string
}

export interface X12Token {
  id: string
  /** elements[0] is element 01. */
  elements: readonly string[]
  /** 1-based ordinal in the file; ISA is 1. */
  position: number
}

export interface X12Tokens {
  separators: X12Separators
  segments: X12Token[]
  /** Characters of the ISA from its first letter through its terminator (106 in a valid file). */
  isaLength: number
  /** Non-whitespace text after the last terminator (a truncated or unterminated segment). */
  trailing: string
}

/** Element `n` (1-based) of a token, or '' when absent: callers never index out of range. */
export function el(token: X12Token, n: number): string {
  return token.elements[n - 1] ?? ''
}

/**
 * Splits a file into segments using the separators its ISA declares: the element separator is
 * the character after `ISA`, ISA16 is the component separator and the character after it the
 * segment terminator. The separators are found by counting element separators rather than by
 * fixed offsets, so a file whose ISA is not padded still reads (the rule checker reports the
 * width). Whitespace between segments (`\n`, `\r\n`) is skipped.
 */
export function tokenizeX12(text: string): X12Tokens {
  const { separators, start, isaLength } = readSeparators(text)
  const pieces = text.slice(start).split(separators.segment)
  const trailing = (pieces.pop() ?? '').trim()
  const segments: X12Token[] = []
  for (const piece of pieces) {
    const segment = segmentOf(piece, separators, segments.length + 1)
    if (segment) segments.push(segment)
  }
  const isa = segments[0]
  separators.repetition = isa ? el(isa, 11) : ''
  return { separators, segments, isaLength, trailing }
}

/** The separators the ISA at the start of `text` declares (repetition left empty: it is ISA11). */
function readSeparators(text: string): { separators: X12Separators; start: number; isaLength: number } {
  let start = 0
  while (start < text.length && /[\s\uFEFF]/.test(text[start] as string)) start++
  if (text.slice(start, start + 3) !== 'ISA') {
    throw new Edi834ParseError('not_x12', 'the file does not start with an ISA segment', 0)
  }
  const element = text[start + 3] ?? ''
  let index = start + 3
  let found = 0
  // ISA has 16 elements; the 16th separator precedes ISA16 (one character).
  while (found < 16 && index < text.length && index - start < 200) {
    if (text[index] === element) found++
    if (found < 16) index++
  }
  const component = text[index + 1] ?? ''
  const terminator = text[index + 2] ?? ''
  if (found < 16 || element === '' || component === '' || terminator === '') {
    throw new Edi834ParseError('bad_separators', 'the ISA segment does not have 16 elements', 1)
  }
  const separators = { element, component, repetition: '', segment: terminator }
  const distinct = new Set([element, component, terminator])
  if (distinct.size !== 3 || [...distinct].some((c) => /[A-Za-z0-9 ]/.test(c))) {
    throw new Edi834ParseError('bad_separators', 'the ISA declares separators that are not distinct special characters', 1)
  }
  return { separators, start, isaLength: index + 3 - start }
}

/** A character that cannot start the whitespace the tokenizer skips: printable ASCII. */
const isPlainAscii = (code: number) => code > 0x20 && code < 0x7f

/** One segment's text (without its terminator) as a token; null for whitespace between segments. */
function segmentOf(piece: string, separators: X12Separators, position: number): X12Token | null {
  // Most segments start with their id: the regular expression (a new string each time) only for
  // the others (a line break after the terminator, a byte order mark).
  let raw = isPlainAscii(piece.charCodeAt(0)) ? piece : piece.replace(/^[\s\uFEFF]+/, '')
  if (separators.segment === '\n' && raw.charCodeAt(raw.length - 1) === 0x0d) raw = raw.slice(0, -1)
  if (raw === '') return null
  const elements = raw.split(separators.element)
  const id = elements.shift() as string
  return { id, elements, position }
}

/** Enough text to hold any ISA with its separators (106 characters, padding aside). */
const ISA_WINDOW = 1024

/**
 * tokenizeX12 for a file read in pieces (a census of 200,000 families): `push` each piece of text
 * and take the segments it completed; `end` takes the rest. The same segments, positions and
 * separators as tokenizeX12 on the whole text; `trailing` is known after `end`.
 */
export class X12StreamTokenizer {
  separators: X12Separators | null = null
  trailing = ''
  private pending = ''
  private count = 0

  push(text: string): X12Token[] {
    this.pending += text
    if (!this.separators && this.pending.length < ISA_WINDOW) return []
    return this.drain()
  }

  end(): X12Token[] {
    const segments = this.drain()
    this.trailing = this.pending.trim()
    this.pending = ''
    return segments
  }

  private drain(): X12Token[] {
    if (!this.separators) {
      const { separators, start } = readSeparators(this.pending)
      this.separators = separators
      this.pending = this.pending.slice(start)
    }
    const separators = this.separators
    const pieces = this.pending.split(separators.segment)
    this.pending = pieces.pop() ?? ''
    const segments: X12Token[] = []
    for (const piece of pieces) {
      const segment = segmentOf(piece, separators, this.count + 1)
      if (!segment) continue
      this.count++
      if (this.count === 1) separators.repetition = el(segment, 11)
      segments.push(segment)
    }
    return segments
  }
}
