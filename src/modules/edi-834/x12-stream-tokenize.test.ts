import { describe, expect, it } from 'vitest'
import { Edi834ParseError } from './edi-834.errors.js'
import type { Edi834Member } from './edi-834.model.js'
import { Edi834Reader, parse834 } from './edi-834.parse.js'
import { CHANGE_HEADER, CHANGE_MEMBERS, ENVELOPE, FULL_FAMILY, MINIMAL_FAMILY, REPLACE_HEADER } from './edi-834.test-fixtures.js'
import { write834ToString } from './edi-834.writer.js'
import { tokenizeX12, X12StreamTokenizer, type X12Token } from './x12-tokenize.js'

/**
 * A census streamed as an 834 (census-834-body.ts) is read by X12StreamTokenizer and Edi834Reader
 * a piece at a time: whatever the pieces, they must give what tokenizeX12 and parse834 give on
 * the whole text.
 */

const ALL_MEMBERS = [...FULL_FAMILY, ...MINIMAL_FAMILY]

/** Files with our separators, another terminator and no newlines (as carriers send them). */
async function files(): Promise<string[]> {
  const replace = await write834ToString(ENVELOPE, REPLACE_HEADER, ALL_MEMBERS)
  const change = await write834ToString(ENVELOPE, CHANGE_HEADER, CHANGE_MEMBERS)
  return [replace, change, replace.replace(/~\n/g, '!')]
}

function pieces(text: string, size: number): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

function streamTokens(parts: readonly string[]): { segments: X12Token[]; tokenizer: X12StreamTokenizer } {
  const tokenizer = new X12StreamTokenizer()
  const segments = parts.flatMap((part) => tokenizer.push(part))
  segments.push(...tokenizer.end())
  return { segments, tokenizer }
}

function streamMembers(parts: readonly string[]): { members: Edi834Member[]; reader: Edi834Reader } {
  const reader = new Edi834Reader()
  const members: Edi834Member[] = []
  for (const segment of streamTokens(parts).segments) {
    const member = reader.read(segment)
    if (member) members.push(member)
  }
  const last = reader.finish()
  if (last) members.push(last)
  return { members, reader }
}

describe('reading an 834 in pieces', () => {
  it.each([1, 2, 7, 105, 106, 107, 1023, 1024, 4096, 1_000_000])('when the text arrives %i characters at a time, then the segments, separators and members are the whole text\'s', async (size) => {
    for (const text of await files()) {
      const whole = tokenizeX12(text)
      const { segments, tokenizer } = streamTokens(pieces(text, size))
      expect(segments).toEqual(whole.segments)
      expect(tokenizer.separators).toEqual(whole.separators)
      expect(tokenizer.trailing).toBe(whole.trailing)
      const { members, reader } = streamMembers(pieces(text, size))
      const parsed = parse834(text)
      expect(members).toEqual(parsed.members)
      expect(reader.envelope).toEqual(parsed.envelope)
      expect(reader.header).toEqual(parsed.header)
      expect(reader.closed).toBe(true)
    }
  })

  it('when the file is cut before its SE, then the members read so far come out and the reader says it was not closed', async () => {
    const text = (await files())[0]!
    const cut = text.slice(0, text.lastIndexOf('INS*'))
    const { members, reader } = streamMembers(pieces(cut, 64))
    expect(members.length).toBeGreaterThan(0)
    expect(members.length).toBeLessThan(parse834(text).members.length)
    expect(reader.closed).toBe(false)
  })

  it('when the text is not X12 or has no ST*834, then the same errors as parse834', async () => {
    for (const bad of ['hello', `ISA*${'x'.repeat(200)}~`, (await files())[0]!.replace('*834*', '*835*')]) {
      const expected = (() => {
        try {
          parse834(bad)
        } catch (error) {
          return error
        }
        return null
      })()
      expect(expected).toBeInstanceOf(Edi834ParseError)
      expect(() => streamMembers(pieces(bad, 10))).toThrow((expected as Error).message)
    }
  })
})
