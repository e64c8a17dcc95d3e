import { describe, expect, it } from 'vitest'
import { forbiddenAddressClass } from './address-policy.js'

describe('forbiddenAddressClass', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['100.64.0.1', 'carrier_grade_nat'],
    ['100.127.255.255', 'carrier_grade_nat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf:ffff::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456:789a::1', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['fec0::1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link_local'],
    ['2002:c0a8:0101::1', 'private'],
    ['not-an-address', 'reserved'],
  ])('when the address is %s, then it is refused as %s', (address, kind) => {
    expect(forbiddenAddressClass(address)).toBe(kind)
  })

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '172.15.255.255', '100.128.0.1', '100.63.255.255', '169.255.0.1', '192.169.0.1', '203.0.113.10', '2606:4700:4700::1111', '2001:db8::1', '::ffff:8.8.8.8', '64:ff9b::808:808', 'fe7f::1'])(
    'when the address is %s, then it is public',
    (address) => {
      expect(forbiddenAddressClass(address)).toBeUndefined()
    },
  )
})
