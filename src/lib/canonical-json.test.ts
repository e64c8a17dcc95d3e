import { describe, expect, it } from 'vitest'
import { canonicalJson } from './canonical-json.js'

describe('canonicalJson', () => {
  it('when two texts hold the same JSON with keys in another order and other whitespace, then both give one text', () => {
    const a = JSON.parse('{"user": {"email": "a@example.com", "role_names": ["x", "y"]}, "n": 1.0}')
    const b = JSON.parse('{\n  "n":1,"user":{ "role_names":["x","y"],\n"email":"a@example.com"}}')
    expect(canonicalJson(a)).toBe(canonicalJson(b))
    expect(canonicalJson(a)).toBe('{"n":1,"user":{"email":"a@example.com","role_names":["x","y"]}}')
  })

  it('when array order or a value differs, then the texts differ', () => {
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }))
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }))
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}))
  })

  it('when there is no value at all, then the text is empty', () => {
    expect(canonicalJson(undefined)).toBe('')
  })
})
