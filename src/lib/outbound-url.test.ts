import { describe, expect, it } from 'vitest'
import { outboundUrlRefusal, type OutboundPolicy, type ResolveHost } from './outbound-url.js'

const resolve: ResolveHost = async (host) =>
  host === 'localhost' ? [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }] : [{ address: '10.1.2.3', family: 4 }]

/** The embedded development default: a receiver on the same machine, nothing else internal. */
const loopbackOnly: OutboundPolicy = { allowPrivate: false, allowLoopback: true, resolve }

describe('outboundUrlRefusal with loopback allowed', () => {
  it.each(['http://127.0.0.1:4000/hooks', 'http://localhost:4000/hooks', 'http://[::1]:4000/hooks', 'http://[::ffff:127.0.0.1]/hooks'])(
    'when the receiver is on the same machine (%s), then it may be called',
    async (url) => {
      expect(await outboundUrlRefusal(url, loopbackOnly)).toBeUndefined()
    },
  )

  it.each([
    ['http://10.0.0.7/hooks', 'a private network address'],
    ['http://169.254.169.254/latest/meta-data', 'a link-local address'],
    ['http://internal.example/hooks', 'a private network address'],
  ])('when the receiver is elsewhere on an internal network (%s), then it is still refused', async (url, kind) => {
    expect(await outboundUrlRefusal(url, loopbackOnly)).toMatchObject({ code: 'forbidden_address', detail: expect.stringContaining(kind) })
  })
})
