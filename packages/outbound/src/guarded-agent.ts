import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { blockedPrivate, blockedScheme, schemeAllowed, type HostLookup } from './check-url';
import { isPublicAddress } from './ip-address';
import type { OutboundPolicy } from './policy';

/**
 * The undici Agent under every guarded client: when it opens a connection its lookup resolves the
 * name itself and refuses a private address, so a DNS answer that changes between a URL's check and
 * the connection (DNS rebinding) reaches nothing. IP literals, which skip the lookup, are checked in
 * the connector. Connections are pooled and kept alive per origin: each was checked when it opened.
 */
export function createGuardedAgent(policy: OutboundPolicy, requireHttps: boolean, lookup: HostLookup): Agent {
  const connectionLookup = ((hostname: string, lookupOptions: LookupOptions, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    lookup(hostname).then(
      (resolved) => {
        const family = typeof lookupOptions.family === 'number' ? lookupOptions.family : 0;
        const usable = family === 4 || family === 6 ? resolved.filter((a) => a.family === family) : resolved;
        const first = usable[0];
        if (!first) {
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }), '');
          return;
        }
        if (!policy.allowPrivateNetwork && usable.some((a) => !isPublicAddress(a.address))) {
          callback(blockedPrivate(hostname), '');
          return;
        }
        if (lookupOptions.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (err: Error) => callback(err, ''),
    );
  }) as LookupFunction;

  const connectChecked = buildConnector({ lookup: connectionLookup });
  return new Agent({
    connect: (connectOptions, callback) => {
      if (!schemeAllowed(connectOptions.protocol, policy, requireHttps)) {
        callback(blockedScheme(connectOptions.protocol, policy, requireHttps), null);
        return;
      }
      const host = connectOptions.hostname.replace(/^\[(.*)\]$/, '$1');
      if (isIP(host) && !policy.allowPrivateNetwork && !isPublicAddress(host)) {
        callback(blockedPrivate(host), null);
        return;
      }
      connectChecked(connectOptions, callback);
    },
  });
}
