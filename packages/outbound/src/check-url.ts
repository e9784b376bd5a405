import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { BlockedDestinationError } from './blocked-destination-error';
import { isPublicAddress } from './ip-address';
import type { OutboundPolicy } from './policy';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has. Replaceable so tests can play a rebinding DNS server. */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every address, in the resolver's order. */
export const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface CheckUrlOptions {
  /** Refuse http:// even when the policy allows private networks? Default true: only https://, unless the policy allows private networks. */
  requireHttps?: boolean;
  /** For tests; the system resolver by default. */
  lookup?: HostLookup;
}

const DEV_ONLY_HINT = 'PATCHBAY_ALLOW_PRIVATE_NETWORK=true lifts this for local development only.';

/** Whether a scheme may be called: https always, http when allowed by the options or the dev-only policy. */
export function schemeAllowed(protocol: string, policy: OutboundPolicy, requireHttps = true): boolean {
  if (protocol === 'https:') return true;
  return protocol === 'http:' && (!requireHttps || policy.allowPrivateNetwork);
}

export function blockedScheme(protocol: string, policy: OutboundPolicy, requireHttps = true): BlockedDestinationError {
  const allowed = requireHttps && !policy.allowPrivateNetwork ? 'https://' : 'https:// and http://';
  const hint = protocol === 'http:' ? ` ${DEV_ONLY_HINT}` : '';
  return new BlockedDestinationError('scheme', `Only ${allowed} URLs can be called (got ${protocol.replace(/:$/, '')}://).${hint}`);
}

export function blockedPrivate(host: string): BlockedDestinationError {
  return new BlockedDestinationError(
    'private_address',
    `${host} is a loopback, private, link-local, multicast or reserved address (or resolves to one); only public addresses can be called. ${DEV_ONLY_HINT}`,
    host,
  );
}

/**
 * Resolves a host (name or IP literal, IPv6 with or without brackets) and requires every address
 * it resolves to be public, unless the policy allows private networks. Every address, not just the
 * first: a name with one public and one private record must not get through.
 */
export async function resolveHost(host: string, policy: OutboundPolicy, lookup: HostLookup = systemLookup): Promise<string[]> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (!bare) throw new BlockedDestinationError('invalid_url', 'The destination has no host.');
  let addresses: string[];
  if (isIP(bare)) {
    addresses = [bare];
  } else {
    try {
      addresses = (await lookup(bare)).map((a) => a.address);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) throw new BlockedDestinationError('unresolvable', `${bare} could not be resolved; check the host name.`, bare);
  }
  if (!policy.allowPrivateNetwork && addresses.some((a) => !isPublicAddress(a))) throw blockedPrivate(bare);
  return addresses;
}

/**
 * Checks a user-supplied URL before anything is sent to it: a valid absolute URL, https:// (http://
 * only when allowed), no `user:password@`, and a host whose every address is public unless the
 * policy allows private networks. Returns the parsed URL and the addresses it resolved to.
 */
export async function checkUrl(url: string | URL, policy: OutboundPolicy, options: CheckUrlOptions = {}): Promise<{ url: URL; addresses: string[] }> {
  let parsed: URL;
  try {
    parsed = new URL(typeof url === 'string' ? url : url.href);
  } catch {
    throw new BlockedDestinationError('invalid_url', 'The URL is not a valid absolute URL.');
  }
  const requireHttps = options.requireHttps ?? true;
  if (!schemeAllowed(parsed.protocol, policy, requireHttps)) throw blockedScheme(parsed.protocol, policy, requireHttps);
  if (parsed.username || parsed.password) {
    throw new BlockedDestinationError('credentials_in_url', 'URLs must not carry a user name or password (user:password@host); put credentials in the credential fields instead.', parsed.hostname);
  }
  const addresses = await resolveHost(parsed.hostname, policy, options.lookup);
  return { url: parsed, addresses };
}

/**
 * The same check for a bare host, as found in a database connection string. Returns its addresses,
 * so the caller can connect to a checked address rather than resolve the name a second time.
 */
export async function resolvePublicHost(host: string, policy: OutboundPolicy, options: { lookup?: HostLookup } = {}): Promise<string[]> {
  return resolveHost(host.trim(), policy, options.lookup);
}
