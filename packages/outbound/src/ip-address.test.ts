import { isPublicAddress } from './ip-address';

describe('isPublicAddress', () => {
  it.each([
    // IPv4 public
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '100.63.255.255', // just below CGNAT
    '100.128.0.0', // just above CGNAT
    '172.15.255.255', // just below 172.16/12
    '172.32.0.0', // just above 172.16/12
    '192.169.0.1',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255', // last unicast before multicast
    '192.0.1.1',
    // IPv6 public
    '2606:4700:4700::1111',
    '2a00:1450:4001:82b::200e',
    '2001:4860:4860::8888',
    '2001:200::1', // first allocation after the IETF block 2001::/23
    '[2606:4700:4700::1111]',
    '::ffff:8.8.8.8', // IPv4-mapped public
    '::ffff:808:808',
    '64:ff9b::808:808', // NAT64 of a public address
    '2002:808:808::1', // 6to4 of a public address
  ])('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    // IPv4 special-purpose
    ['0.0.0.0', 'this network'],
    ['0.1.2.3', 'this network'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6 special-purpose
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback in brackets'],
    ['0:0:0:0:0:0:0:1', 'loopback, long form'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:10.1.2.3', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::10.0.0.1', 'NAT64 of private'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of link-local'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2002:c0a8:101::1', '6to4 of private'],
    ['100::1', 'discard-only'],
    ['2001::1', 'Teredo'],
    ['2001:2::1', 'benchmarking'],
    ['2001:db8::1', 'documentation'],
    ['2001:db8:ffff::1', 'documentation'],
    ['3fff::1', 'documentation (RFC 9637)'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with zone'],
    ['febf:ffff::1', 'link-local, top of the block'],
    ['fec0::1', 'site-local (deprecated)'],
    ['ff02::1', 'multicast'],
    ['ff05::2', 'multicast'],
    ['5f00::1', 'SRv6 SIDs'],
    // Not addresses at all
    ['localhost', 'a name'],
    ['', 'empty'],
    ['256.1.1.1', 'not an address'],
    ['1.2.3', 'short form is not accepted as an address'],
  ])('%s is not public (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });
});
