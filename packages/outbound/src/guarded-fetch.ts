import { fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { BlockedDestinationError } from './blocked-destination-error';
import { checkUrl, systemLookup, type HostLookup } from './check-url';
import { createGuardedAgent } from './guarded-agent';
import type { OutboundPolicy } from './policy';

export interface GuardedFetchOptions {
  /** Default true: only https://, unless the policy allows private networks. */
  requireHttps?: boolean;
  /** For tests (a rebinding DNS server); the system resolver by default. Used for the check and at connection time. */
  lookup?: HostLookup;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** The fetch standard's limit. */
const MAX_REDIRECTS = 20;
/** Request headers that describe a body, dropped when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];
/** Credentials that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/** How fetch reports a failed request: a TypeError whose cause says why. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

function isStreamBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  return typeof (body as { getReader?: unknown }).getReader === 'function' || Symbol.asyncIterator in body;
}

/** The URL and init of a fetch call, whether it was given a URL or a Request. */
function splitInput(input: string | URL | Request, init: RequestInit | undefined): { url: string; init: RequestInit } {
  if (typeof input === 'string') return { url: input, init: { ...init } };
  if (input instanceof URL) return { url: input.href, init: { ...init } };
  const fromRequest: RequestInit & { duplex?: 'half' } = {
    method: input.method,
    headers: input.headers,
    body: input.body,
    signal: input.signal,
    redirect: input.redirect,
    duplex: 'half',
  };
  return { url: input.url, init: { ...fromRequest, ...init } };
}

/**
 * A fetch for user-supplied URLs. Every request and every redirect hop is checked with checkUrl
 * first (clear errors for a bad scheme, credentials in the URL, a private or unresolvable host),
 * and the undici Agent under it checks again when it opens a connection: its lookup resolves the
 * name itself and refuses a private address, so a DNS answer that changes between the check and
 * the connection (DNS rebinding) reaches nothing. IP literals, which skip the lookup, are checked
 * in the connector. Refusals reject the fetch with a TypeError whose `cause` is a
 * BlockedDestinationError. Connections are pooled and kept alive per origin as usual: each was
 * checked when it was opened.
 */
export function createGuardedFetch(policy: OutboundPolicy, options: GuardedFetchOptions = {}): typeof fetch {
  const requireHttps = options.requireHttps ?? true;
  const lookup = options.lookup ?? systemLookup;

  const agent = createGuardedAgent(policy, requireHttps, lookup);

  async function guardedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const { url: firstUrl, init: base } = splitInput(input, init);
    const mode = base.redirect ?? 'follow';
    let url = firstUrl;
    let method = (base.method ?? 'GET').toUpperCase();
    let body = base.body;
    const headers = new Headers(base.headers);
    for (let redirects = 0; ; redirects++) {
      let target: URL;
      try {
        target = (await checkUrl(url, policy, { requireHttps, lookup })).url;
      } catch (err) {
        throw fetchFailed(err);
      }
      // Redirects are followed here, not by undici, so that every hop gets the full check.
      const res = await undiciFetch(target, {
        ...(base as UndiciRequestInit),
        method,
        headers: headers as UndiciRequestInit['headers'],
        body: body as UndiciRequestInit['body'],
        redirect: mode === 'follow' ? 'manual' : mode,
        dispatcher: agent,
      });
      const location = res.headers.get('location');
      if (mode !== 'follow' || !REDIRECT_STATUSES.has(res.status) || location === null) return res as unknown as Response;
      await res.body?.cancel();
      if (redirects >= MAX_REDIRECTS) throw fetchFailed(new Error('redirect count exceeded'));
      let next: URL;
      try {
        next = new URL(location, target);
      } catch {
        throw fetchFailed(new BlockedDestinationError('invalid_url', 'The server redirected to an invalid URL.', target.hostname));
      }
      if ((res.status === 303 && method !== 'GET' && method !== 'HEAD') || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        for (const name of BODY_HEADERS) headers.delete(name);
      } else if (body != null && isStreamBody(body)) {
        throw fetchFailed(new Error('cannot follow a redirect that would resend a streamed body'));
      }
      if (next.origin !== target.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
      url = next.href;
    }
  }

  return guardedFetch as typeof fetch;
}
