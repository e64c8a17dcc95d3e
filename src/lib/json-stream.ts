/**
 * Reads a JSON document from a stream of bytes without holding it whole: the elements of one
 * array (the census's subscribers) come out one at a time as their own JSON text, and every
 * other value of the document is gathered into a small "shell" object in which that array is
 * left empty. Parsing each piece stays with JSON.parse (the caller's); this only finds where the
 * pieces start and end, byte by byte, which is what lets a 500 MB census be read in bounded memory.
 *
 * The scanner checks the document's structure around the pieces (braces, commas, colons, what
 * follows the document); each piece's own syntax is checked when the caller parses it.
 */

/** The document is not JSON (or nests deeper than allowed); `offset` is the byte where it went wrong. */
export class JsonStreamError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly tooDeep = false,
  ) {
    super(message)
  }
}

const enum Byte {
  Tab = 0x09,
  LineFeed = 0x0a,
  CarriageReturn = 0x0d,
  Space = 0x20,
  Quote = 0x22,
  Comma = 0x2c,
  Colon = 0x3a,
  OpenBracket = 0x5b,
  Backslash = 0x5c,
  CloseBracket = 0x5d,
  OpenBrace = 0x7b,
  CloseBrace = 0x7d,
}

/** The UTF-8 byte order mark, which may open the document (secure-json-parse allows it). */
const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf])

const isWhitespace = (b: number) => b === Byte.Space || b === Byte.LineFeed || b === Byte.CarriageReturn || b === Byte.Tab
/** Where a number, true, false or null ends. */
const endsScalar = (b: number) => isWhitespace(b) || b === Byte.Comma || b === Byte.CloseBracket || b === Byte.CloseBrace

/**
 * How many backslashes stand right before `at`, counting back no further than `floor` (where the
 * string's scan resumed, not escaped). An odd count escapes the byte at `at`: in JSON a backslash
 * escapes the byte after it, so a run of them pairs up from its first, which no backslash precedes.
 */
function backslashesBefore(chunk: Buffer, at: number, floor: number): number {
  let count = 0
  while (at - count - 1 >= floor && chunk[at - count - 1] === Byte.Backslash) count++
  return count
}

/** What the scanner is waiting for in the container it is in. */
type Expect = 'value' | 'key_or_end' | 'key' | 'colon' | 'comma_or_end' | 'value_or_end'

interface Frame {
  kind: 'object' | 'array'
  /** The path of this container from the document's root (keys; array elements are not descended into but one). */
  path: readonly string[]
  key: string | null
  index: number
  expect: Expect
}

/** A value being copied out: its bytes so far, and how deep it is inside itself. */
interface Capture {
  pieces: Buffer[]
  start: number
  depth: number
  inString: boolean
  escaped: boolean
  /** A number or literal: ends at a delimiter rather than at a closing byte. */
  scalar: boolean
  /** A key rather than a value. */
  isKey: boolean
  /** Streamed array element (true) or part of the shell (false). */
  element: boolean
  /** An element only counted: its bytes are not kept. */
  discard: boolean
  /** The string at `stringAt`: its bytes go to that sink as they come, not into `pieces`. */
  streamed: boolean
  path: readonly string[]
}

export interface JsonStreamOptions {
  /** The keys leading to the array to stream, e.g. ['census_request', 'subscribers']. */
  arrayPath: readonly string[]
  /** Deepest nesting allowed anywhere (arrays and objects), counted from the document's root. */
  maxDepth: number
  /** False: elements are only counted, not copied out (a first look at the shell). */
  keepElements?: boolean
  /**
   * A string value of the shell too large to hold (the census's `x12_834`): its bytes between the
   * quotes, escapes as sent, are handed to `write` as they are scanned, and it is left out of
   * `shellValues`; `streamedString` says it was there. A value of another type there stays in
   * the shell, for the caller's validation to refuse.
   */
  stringAt?: { path: readonly string[]; write(raw: Buffer): void }
}

export interface ShellValue {
  path: readonly string[]
  /** The value's JSON text, to be parsed by the caller; null for an object the scanner walked through (it exists). */
  text: string | null
}

/**
 * The scanner itself: `push` each chunk, collect what it found, `end` at the end of the input.
 * Pieces found in a chunk are appended to `elements` and `shellValues`; the caller drains them.
 */
export class JsonStreamScanner {
  /** Element texts found since the caller last drained them. */
  elements: string[] = []
  shellValues: ShellValue[] = []
  /** Streamed elements seen so far. */
  elementCount = 0
  /** Whether the array was in the document (as an array). */
  sawArray = false
  /** Whether the string at `stringAt` was in the document (and went to its sink). */
  streamedString = false

  private stack: Frame[] = []
  private capture: Capture | null = null
  private done = false
  private offset = 0
  private started = false
  /**
   * The document's first bytes while they could still be the start of a byte order mark: a chunk
   * may end inside it (a client or a socket may split the first three bytes). Null once decided.
   */
  private head: Buffer | null = Buffer.alloc(0)
  /** The values seen on the way to the array (and the array), by path: each may appear once. */
  private readonly pathValuesSeen = new Set<string>()

  constructor(private readonly options: JsonStreamOptions) {}

  push(chunk: Buffer): void {
    if (chunk.length > 0) this.started = true
    let i = 0
    if (this.head) {
      const head = this.head.length === 0 ? chunk : Buffer.concat([this.head, chunk])
      if (head.length < BYTE_ORDER_MARK.length && head.equals(BYTE_ORDER_MARK.subarray(0, head.length))) {
        this.head = head
        return
      }
      this.head = null
      // The bytes held so far are scanned now, with this chunk: offsets still count from the document's start.
      chunk = head
      if (chunk.subarray(0, BYTE_ORDER_MARK.length).equals(BYTE_ORDER_MARK)) i = BYTE_ORDER_MARK.length
    }
    while (i < chunk.length) {
      if (this.capture) {
        i = this.continueCapture(chunk, i)
        continue
      }
      const b = chunk[i]!
      if (isWhitespace(b)) {
        i++
        continue
      }
      if (this.done) throw this.error('text follows the end of the JSON document', i)
      this.structural(chunk, i, b)
      i++
    }
    // A value or key that began on this chunk's last byte has that byte already (newCapture);
    // its bytes in the next chunk start at that chunk's first. Without this, a census element
    // whose '{' fell on the last byte of a read lost the start of the next read: a valid census
    // answered 400 malformed_json.
    if (this.capture) this.capture.start = 0
    this.offset += chunk.length
  }

  end(): void {
    if (this.head && this.head.length > 0) throw this.error('the JSON document ends before it is complete', 0)
    if (this.capture?.scalar) this.finishCapture(Buffer.alloc(0), 0)
    if (this.capture || !this.done) throw this.error(this.started ? 'the JSON document ends before it is complete' : 'the body is empty', 0)
  }

  private error(message: string, at: number): JsonStreamError {
    return new JsonStreamError(message, this.offset + at)
  }

  private get top(): Frame | undefined {
    return this.stack[this.stack.length - 1]
  }

  /** The path of the value that starts next in the current container. */
  private pathOfNext(): readonly string[] {
    const top = this.top
    if (!top) return []
    return top.kind === 'object' ? [...top.path, top.key!] : [...top.path, String(top.index)]
  }

  private structural(chunk: Buffer, i: number, b: number): void {
    const top = this.top
    const expect: Expect = top ? top.expect : 'value'
    switch (expect) {
      case 'value':
      case 'value_or_end':
        if (expect === 'value_or_end' && b === Byte.CloseBracket) return this.close('array', i)
        return this.startValue(chunk, i, b)
      case 'key_or_end':
      case 'key':
        if (expect === 'key_or_end' && b === Byte.CloseBrace) return this.close('object', i)
        if (b !== Byte.Quote) throw this.error('a field name was expected', i)
        this.capture = this.newCapture(chunk, i, false, true, false, [])
        this.capture.inString = true
        return
      case 'colon':
        if (b !== Byte.Colon) throw this.error("':' was expected after a field name", i)
        top!.expect = 'value'
        return
      case 'comma_or_end':
        if (b === Byte.Comma) {
          top!.expect = top!.kind === 'object' ? 'key' : 'value'
          if (top!.kind === 'array') top!.index++
          return
        }
        if (b === Byte.CloseBrace && top!.kind === 'object') return this.close('object', i)
        if (b === Byte.CloseBracket && top!.kind === 'array') return this.close('array', i)
        throw this.error("',' or the end of the container was expected", i)
    }
  }

  private startValue(chunk: Buffer, i: number, b: number): void {
    const path = this.pathOfNext()
    const { arrayPath } = this.options
    const isArrayItself = path.length === arrayPath.length && path.every((p, k) => p === arrayPath[k])
    const leadsToArray = path.length < arrayPath.length && path.every((p, k) => p === arrayPath[k])
    const top = this.top
    const isElement = top?.kind === 'array' && top.path.length === arrayPath.length && top.path.every((p, k) => p === arrayPath[k])
    const stringAt = this.options.stringAt?.path
    const isStreamedString = b === Byte.Quote && stringAt !== undefined && path.length === stringAt.length && path.every((p, k) => p === stringAt[k])
    if (isArrayItself || (leadsToArray && path.length > 0) || isStreamedString) {
      // JSON.parse would keep the last of two; the scanner cannot (the first is streamed or merged
      // into the shell before the second is seen), and a census_request twice, or an object then
      // a number, would otherwise be merged into a document the client did not send.
      const key = JSON.stringify(path)
      if (this.pathValuesSeen.has(key)) throw this.error(`the field ${path[path.length - 1]} appears twice`, i)
      this.pathValuesSeen.add(key)
    }
    if (this.stack.length + 1 > this.options.maxDepth && (b === Byte.OpenBrace || b === Byte.OpenBracket)) {
      throw new JsonStreamError(`the document nests deeper than ${this.options.maxDepth} levels`, this.offset + i, true)
    }
    if (isArrayItself && b === Byte.OpenBracket) {
      this.sawArray = true
      this.stack.push({ kind: 'array', path, key: null, index: 0, expect: 'value_or_end' })
      return
    }
    if (leadsToArray && b === Byte.OpenBrace) {
      this.stack.push({ kind: 'object', path, key: null, index: 0, expect: 'key_or_end' })
      return
    }
    const scalar = b !== Byte.Quote && b !== Byte.OpenBrace && b !== Byte.OpenBracket
    if (scalar && !/[-0-9tfn]/.test(String.fromCharCode(b))) throw this.error('a value was expected', i)
    this.capture = this.newCapture(chunk, i, scalar, false, isElement, path, isStreamedString)
    if (b === Byte.Quote) this.capture.inString = true
    else if (!scalar) this.capture.depth = 1
  }

  /** A capture starting with the byte at `at`, which is copied now; the rest follows from at + 1. */
  private newCapture(chunk: Buffer, at: number, scalar: boolean, isKey: boolean, element: boolean, path: readonly string[], streamed = false): Capture {
    const discard = element && this.options.keepElements === false
    // A streamed string's opening quote is not part of what its sink is given.
    const pieces = discard || streamed ? [] : [chunk.subarray(at, at + 1)]
    return { pieces, start: at + 1, depth: 0, inString: false, escaped: false, scalar, isKey, element, discard, streamed, path }
  }

  /**
   * Copies bytes into the capture until it ends; answers where scanning resumes. Inside a string
   * the next quote is found natively (Buffer.indexOf) rather than byte by byte: a census is mostly
   * strings, and its body is scanned three times (a first look, then each reading of census-body.ts).
   */
  private continueCapture(chunk: Buffer, from: number): number {
    const capture = this.capture!
    const baseDepth = this.stack.length
    let i = from
    while (i < chunk.length) {
      if (capture.inString) {
        if (capture.escaped) {
          capture.escaped = false
          i++
          continue
        }
        const quote = chunk.indexOf(Byte.Quote, i)
        if (quote === -1) {
          // The string goes on in the next chunk: an odd run of backslashes at this one's end escapes its first byte.
          capture.escaped = backslashesBefore(chunk, chunk.length, i) % 2 === 1
          i = chunk.length
          break
        }
        const escapedQuote = backslashesBefore(chunk, quote, i) % 2 === 1
        i = quote + 1
        if (escapedQuote) continue
        capture.inString = false
        if (capture.depth === 0) return this.finishCapture(chunk, i)
        continue
      }
      const b = chunk[i]!
      if (capture.scalar) {
        if (endsScalar(b)) return this.finishCapture(chunk, i)
        i++
        continue
      }
      if (b === Byte.Quote) capture.inString = true
      else if (b === Byte.OpenBrace || b === Byte.OpenBracket) {
        capture.depth++
        if (baseDepth + capture.depth > this.options.maxDepth) {
          throw new JsonStreamError(`the document nests deeper than ${this.options.maxDepth} levels`, this.offset + i, true)
        }
      } else if (b === Byte.CloseBrace || b === Byte.CloseBracket) {
        capture.depth--
        if (capture.depth === 0) return this.finishCapture(chunk, i + 1)
      }
      i++
    }
    if (capture.streamed) this.options.stringAt!.write(chunk.subarray(capture.start, chunk.length))
    else if (!capture.discard) capture.pieces.push(chunk.subarray(capture.start, chunk.length))
    capture.start = 0
    return chunk.length
  }

  /** Ends the capture at `end` (exclusive) in `chunk`; answers where scanning resumes. */
  private finishCapture(chunk: Buffer, end: number): number {
    const capture = this.capture!
    this.capture = null
    if (capture.discard) {
      this.elementCount++
      this.afterValue()
      return end
    }
    if (capture.streamed) {
      // Up to the closing quote, which is left out as the opening one was.
      this.options.stringAt!.write(chunk.subarray(capture.start, end - 1))
      this.streamedString = true
      this.afterValue()
      return end
    }
    capture.pieces.push(chunk.subarray(capture.start, end))
    const text = (capture.pieces.length === 1 ? capture.pieces[0]! : Buffer.concat(capture.pieces)).toString('utf8')
    const top = this.top
    if (capture.isKey) {
      let key: unknown
      try {
        key = JSON.parse(text)
      } catch {
        throw this.error('a field name is not a valid JSON string', end)
      }
      top!.key = key as string
      top!.expect = 'colon'
      return end
    }
    if (capture.element) {
      this.elements.push(text)
      this.elementCount++
    } else {
      this.shellValues.push({ path: capture.path, text })
    }
    this.afterValue()
    return end
  }

  private afterValue(): void {
    const top = this.top
    if (top) top.expect = 'comma_or_end'
    else this.done = true
  }

  private close(kind: 'object' | 'array', i: number): void {
    const frame = this.stack.pop()!
    if (frame.kind !== kind) throw this.error('a container closes with the wrong bracket', i)
    // An empty container on the way to the array (or the array itself) still belongs in the shell.
    if (kind === 'object') this.shellValues.push({ path: frame.path, text: null })
    this.afterValue()
  }
}
