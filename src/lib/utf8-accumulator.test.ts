import { describe, expect, it } from 'vitest'
import { Utf8Accumulator } from './utf8-accumulator.js'

describe('Utf8Accumulator', () => {
  it('when text of any script is appended past its first size, then its bytes are the UTF-8 of the whole text', () => {
    const gathered = new Utf8Accumulator(4)
    const pieces = ['ISA*00', '~\n', 'José Müller', '', ' 東京 ', '🙂', 'x'.repeat(1000)]
    for (const piece of pieces) gathered.append(piece)
    expect(gathered.bytes().equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true)
    expect(gathered.length).toBe(Buffer.byteLength(pieces.join(''), 'utf8'))
    expect(gathered.text()).toBe(pieces.join(''))
  })

  it('when cleared, then it starts again from nothing and reuses its room', () => {
    const gathered = new Utf8Accumulator(16)
    gathered.append('first chunk')
    gathered.clear()
    expect(gathered.length).toBe(0)
    expect(gathered.text()).toBe('')
    gathered.append('second')
    expect(gathered.text()).toBe('second')
  })
})
