import { describe, expect, it } from 'vitest'
import { destinationOf } from './destination.js'

describe('destinationOf', () => {
  it('when two URLs reach the same server, then they have one destination, whatever their paths, queries or case', () => {
    expect(destinationOf('https://Hooks.Example.com/a?token=1')).toBe('https://hooks.example.com')
    expect(destinationOf('https://hooks.example.com:443/b')).toBe('https://hooks.example.com')
    expect(destinationOf('http://127.0.0.1:8080/x')).toBe(destinationOf('http://127.0.0.1:8080/y'))
  })

  it('when the port or the scheme differs, then the destinations differ: two services on one host fail apart', () => {
    expect(destinationOf('http://127.0.0.1:8080/x')).not.toBe(destinationOf('http://127.0.0.1:8081/x'))
    expect(destinationOf('http://hooks.example.com/x')).not.toBe(destinationOf('https://hooks.example.com/x'))
  })

  it('when the URL cannot be parsed, then there is no destination', () => {
    expect(destinationOf('not a url')).toBeNull()
  })
})
