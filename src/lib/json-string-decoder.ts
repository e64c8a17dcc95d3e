import { StringDecoder } from 'node:string_decoder'

/**
 * Decodes the inside of one JSON string (the bytes between its quotes, escapes as sent) piece by
 * piece, as JSON.parse would decode it whole: a census's 834 sent as `x12_834` may be hundreds of
 * megabytes, more than one JavaScript string can hold, so it is decoded as it streams past
 * (json-stream.ts, `stringAt`) and written to a file. A piece may end anywhere, inside a UTF-8
 * character or an escape. Invalid UTF-8 becomes U+FFFD, as Buffer#toString does before JSON.parse.
 */

/** The string is not valid JSON: a control character, or an escape JSON does not have. */
export class JsonStringSyntaxError extends Error {}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }
const HEX4 = /^[0-9a-fA-F]{4}$/

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

export class JsonStringDecoder {
  private readonly utf8 = new StringDecoder('utf8')
  /** An escape cut by the end of a piece (`\`, `\u`, `\u00`...), completed by the next. */
  private pendingEscape = ''
  /** A high surrogate from an escape, waiting to see whether a low one follows. */
  private pendingHigh = false
  /** Characters (code points) decoded so far: what a schema's minLength counts. */
  characters = 0
  /** Whether the text holds a NUL or an unpaired surrogate, which the database cannot store (storable-text.ts). */
  unstorable = false

  /** The text of the next piece of raw bytes, as far as it can be decoded yet. */
  push(bytes: Buffer): string {
    return this.decode(this.utf8.write(bytes))
  }

  /** The rest; throws JsonStringSyntaxError if the string ends inside an escape. */
  end(): string {
    const text = this.decode(this.utf8.end())
    if (this.pendingEscape !== '') throw new JsonStringSyntaxError('the string ends inside an escape sequence')
    if (this.pendingHigh) this.unstorable = true
    return text
  }

  private decode(raw: string): string {
    const text = this.pendingEscape + raw
    this.pendingEscape = ''
    let out = ''
    let from = 0
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      if (code < 0x20) throw new JsonStringSyntaxError('a string holds a control character that is not escaped')
      if (code !== 0x5c) {
        this.count(code)
        continue
      }
      out += text.slice(from, i)
      const letter = text[i + 1]
      if (letter === undefined) {
        this.pendingEscape = text.slice(i)
        return out
      }
      if (letter === 'u') {
        const hex = text.slice(i + 2, i + 6)
        if (hex.length < 4 && /^[0-9a-fA-F]*$/.test(hex)) {
          this.pendingEscape = text.slice(i)
          return out
        }
        if (!HEX4.test(hex)) throw new JsonStringSyntaxError('a \\u escape is not followed by four hexadecimal digits')
        const unit = Number.parseInt(hex, 16)
        this.count(unit)
        out += String.fromCharCode(unit)
        i += 5
      } else {
        const simple = SIMPLE_ESCAPES[letter]
        if (simple === undefined) throw new JsonStringSyntaxError(`a string holds an escape JSON does not have (\\${letter})`)
        this.count(simple.charCodeAt(0))
        out += simple
        i += 1
      }
      from = i + 1
    }
    return out + text.slice(from)
  }

  /** Counts one UTF-16 code unit as decoded, and notes a NUL or an unpaired surrogate. */
  private count(code: number): void {
    if (this.pendingHigh) {
      this.pendingHigh = false
      if (isLowSurrogate(code)) return // the second half of a pair: counted with its first
      this.unstorable = true
    }
    if (code === 0) this.unstorable = true
    else if (isHighSurrogate(code)) this.pendingHigh = true
    else if (isLowSurrogate(code)) this.unstorable = true
    this.characters++
  }
}
