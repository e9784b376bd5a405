import { isIPv4, isIPv6 } from 'node:net';

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

/** IPv4 blocks the IANA special-purpose registry marks not globally reachable (or deprecated). */
const V4_NOT_PUBLIC: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, including cloud metadata endpoints
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the limited broadcast 255.255.255.255
];

const V4_RANGES = V4_NOT_PUBLIC.map(([base, bits]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { network: (v4ToInt(base) & mask) >>> 0, mask };
});

function isPublicV4(value: number): boolean {
  return !V4_RANGES.some(({ network, mask }) => ((value & mask) >>> 0) === network);
}

/** The 128-bit value of a valid IPv6 literal (already checked with isIPv6), dotted-quad tails included. */
function v6ToBigInt(ip: string): bigint {
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = v4ToInt(dotted[1]);
    text = `${text.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

const inV6 = (value: bigint, prefix: bigint, bits: number): boolean => value >> BigInt(128 - bits) === prefix >> BigInt(128 - bits);
const V6 = (ip: string) => v6ToBigInt(ip);

const V6_IPV4_MAPPED = V6('::ffff:0:0');
const V6_NAT64 = V6('64:ff9b::');
const V6_6TO4 = V6('2002::');
const V6_GLOBAL_UNICAST = V6('2000::');
/** Blocks inside 2000::/3 that the IANA special-purpose registry sets aside. */
const V6_NOT_PUBLIC_IN_GLOBAL: ReadonlyArray<readonly [bigint, number]> = [
  [V6('2001::'), 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking...)
  [V6('2001:db8::'), 32], // documentation
  [V6('3fff::'), 20], // documentation (RFC 9637)
];

function isPublicV6(value: bigint): boolean {
  // Addresses that carry an IPv4 address are judged by it: ::ffff:127.0.0.1 and 64:ff9b::a00:1
  // reach 127.0.0.1 and 10.0.0.1 just as well as the IPv4 literals do.
  if (inV6(value, V6_IPV4_MAPPED, 96) || inV6(value, V6_NAT64, 96)) return isPublicV4(Number(value & 0xffffffffn));
  if (inV6(value, V6_6TO4, 16)) return isPublicV4(Number((value >> 80n) & 0xffffffffn));
  // Everything outside 2000::/3 (loopback, unspecified, ULA fc00::/7, link-local fe80::/10,
  // multicast ff00::/8, discard 100::/64, local NAT64 64:ff9b:1::/48...) is not public.
  if (!inV6(value, V6_GLOBAL_UNICAST, 3)) return false;
  return !V6_NOT_PUBLIC_IN_GLOBAL.some(([prefix, bits]) => inV6(value, prefix, bits));
}

/**
 * Whether an IP address is publicly routable: false for loopback, private, link-local, CGNAT,
 * multicast, documentation, benchmarking and reserved blocks of either family (IANA
 * special-purpose registries), for IPv6 forms that embed such an IPv4 address, and for anything
 * that is not an IP address at all.
 */
export function isPublicAddress(ip: string): boolean {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone); // a zone id only exists on link-local addresses
  if (isIPv4(text)) return isPublicV4(v4ToInt(text));
  if (isIPv6(text)) return isPublicV6(v6ToBigInt(text.toLowerCase()));
  return false;
}
