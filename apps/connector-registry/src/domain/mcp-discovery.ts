import { Client, ProtocolError, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { BlockedDestinationError, checkUrl, createGuardedFetch, type OutboundPolicy } from '@patchbay/outbound';
import { definitionHash, type ToolDefinition } from './tool-definitions';

/**
 * What went wrong talking to a custom MCP server, as the API reports it in `failure`:
 * - `blocked_destination`: the URL is not a public https:// URL (or now resolves to a private address);
 * - `unreachable`: the host does not resolve or refuses / drops the connection;
 * - `tls`: the TLS handshake failed (certificate expired, self-signed, wrong host, not TLS at all);
 * - `auth_refused`: the server answered 401 or 403;
 * - `not_mcp`: something answered over HTTP, but not with MCP JSON-RPC (an HTML page, a 404, a 405...);
 * - `server_error`: the server answered HTTP 5xx;
 * - `mcp_error`: the server speaks MCP but answered with an error or an unusable tool list;
 * - `timeout`: the handshake did not finish within the time limit.
 */
export type DiscoveryFailure = 'blocked_destination' | 'unreachable' | 'tls' | 'auth_refused' | 'not_mcp' | 'server_error' | 'mcp_error' | 'timeout';

export class DiscoveryError extends Error {
  readonly failure: DiscoveryFailure;
  /** For blocked destinations: the guard's reason (scheme, credentials_in_url, private_address, invalid_url). */
  readonly reason: string | undefined;

  constructor(failure: DiscoveryFailure, message: string, reason?: string) {
    super(message);
    this.name = 'DiscoveryError';
    this.failure = failure;
    this.reason = reason;
  }
}

export interface DiscoveredServer {
  serverName: string | null;
  serverVersion: string | null;
  protocolVersion: string | null;
  tools: Array<ToolDefinition & { definitionHash: string }>;
}

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface DiscoverOptions {
  policy: OutboundPolicy;
  /** Sent as `Authorization: Bearer <secret>` to this server only. */
  secret: string | null;
  timeoutMs: number;
  /** The fetch used for every request to the server; a guarded fetch for the policy by default. */
  fetch?: FetchLike;
}

/** A server listing more than this is refused rather than stored: no agent can use that many tools of one connector. */
export const MAX_TOOLS = 1000;
const MAX_PAGES = 100;
const MAX_MESSAGE = 300;

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'EPROTO',
]);

const guardedFetches = new Map<boolean, FetchLike>();

/**
 * One guarded fetch (and so one connection pool) per policy for the whole process: every new
 * connection it opens re-resolves the host and refuses private addresses, which is what defeats
 * DNS rebinding between the check at registration and any later call.
 */
export function guardedFetchFor(policy: OutboundPolicy): FetchLike {
  let f = guardedFetches.get(policy.allowPrivateNetwork);
  if (!f) {
    f = createGuardedFetch({ allowPrivateNetwork: policy.allowPrivateNetwork }) as FetchLike;
    guardedFetches.set(policy.allowPrivateNetwork, f);
  }
  return f;
}

/** Refuses a URL Patchbay must not call, with the guard's message, before anything is sent. */
export async function checkServerUrl(url: string, policy: OutboundPolicy): Promise<URL> {
  try {
    return (await checkUrl(url, policy, { requireHttps: true })).url;
  } catch (err) {
    throw blockedToDiscoveryError(err) ?? err;
  }
}

function blockedToDiscoveryError(err: unknown): DiscoveryError | undefined {
  const blocked = findInCauses(err, (e): e is BlockedDestinationError => e instanceof BlockedDestinationError || (e as { code?: unknown }).code === 'ERR_BLOCKED_DESTINATION');
  if (!blocked) return undefined;
  if (blocked.reason === 'unresolvable') return new DiscoveryError('unreachable', `The server is unreachable: ${blocked.message}`);
  return new DiscoveryError('blocked_destination', blocked.message, blocked.reason);
}

function findInCauses<T>(err: unknown, test: (e: object) => e is T & object): T | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    if (test(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function truncate(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE)}…` : flat;
}

interface Observed {
  /** The network error of the last POST, if it failed before an answer. */
  networkError?: unknown;
  /** The last answer to a POST (the requests that carry the handshake's messages). */
  lastPost?: { status: number; contentType: string | null };
}

/**
 * Runs the MCP handshake against a remote server with the official SDK client (2.x), then tools/list
 * following nextCursor until the last page, all within `timeoutMs`. The client negotiates the
 * revision: it probes with a 2026-07-28 `server/discover` (retrying with a version from a -32022's
 * `supported` list) and keeps that revision when the server speaks it, statelessly; a server that
 * answers the probe otherwise (any error but 401/403) gets the 2025-11-25 `initialize` handshake.
 * Throws a DiscoveryError that names what failed; never returns a partial tool list.
 */
export async function discoverTools(url: string, options: DiscoverOptions): Promise<DiscoveredServer> {
  const target = await checkServerUrl(url, options.policy);
  const baseFetch = options.fetch ?? guardedFetchFor(options.policy);
  const deadline = new AbortController();
  const observed: Observed = {};

  const observingFetch: FetchLike = async (input, init) => {
    const isPost = (init?.method ?? 'GET').toUpperCase() === 'POST';
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    try {
      const res = await baseFetch(input, { ...init, signal });
      if (isPost) observed.lastPost = { status: res.status, contentType: res.headers.get('content-type') };
      // A server that accepts the 2026-07-28 probe like a notification (202, no answer) does not speak that
      // revision; the client would wait for an answer until the deadline. An empty 400 is the revision's
      // "legacy server" signal, on which the client falls back to initialize.
      if (isPost && res.status === 202 && typeof init?.body === 'string' && init.body.includes('"server/discover"')) {
        await res.body?.cancel().catch(() => undefined);
        return new Response(null, { status: 400 });
      }
      return res;
    } catch (err) {
      if (isPost) observed.networkError = err;
      throw err;
    }
  };

  const transport = new StreamableHTTPClientTransport(target, {
    fetch: observingFetch,
    requestInit: options.secret === null ? {} : { headers: { Authorization: `Bearer ${options.secret}` } },
    // Never follow a redirect to another origin: the secret belongs to this server only.
    redirectPolicy: 'same-origin',
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
  });
  const client = new Client({ name: 'patchbay-connector-registry', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
  // Errors of the optional server-to-client stream arrive here; the handshake's own errors are thrown.
  client.onerror = () => undefined;

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    deadline.abort(new Error('MCP handshake timed out'));
  }, options.timeoutMs);
  const requestOptions = { signal: deadline.signal, timeout: options.timeoutMs };
  try {
    await client.connect(transport, requestOptions);
    const tools = await listAllTools(client, requestOptions);
    const info = client.getServerVersion();
    const result: DiscoveredServer = {
      serverName: info?.name ?? null,
      serverVersion: info?.version ?? null,
      protocolVersion: client.getNegotiatedProtocolVersion() ?? transport.protocolVersion ?? null,
      tools,
    };
    if (transport.sessionId !== undefined) await transport.terminateSession().catch(() => undefined);
    return result;
  } catch (err) {
    throw timedOut
      ? new DiscoveryError('timeout', `The server did not complete the MCP handshake (server/discover or initialize, then tools/list) within ${options.timeoutMs} ms.`)
      : classify(err, observed, target, options.secret !== null);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => undefined);
  }
}

async function listAllTools(client: Client, requestOptions: { signal: AbortSignal; timeout: number }): Promise<DiscoveredServer['tools']> {
  // A server without the tools capability offers no tools; asking would only earn "method not found".
  if (!client.getServerCapabilities()?.tools) return [];
  const tools = new Map<string, ToolDefinition & { definitionHash: string }>();
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_PAGES) throw new DiscoveryError('mcp_error', `tools/list did not reach its last page after ${MAX_PAGES} pages.`);
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, requestOptions);
    for (const tool of result.tools) {
      if (tools.has(tool.name)) throw new DiscoveryError('mcp_error', `tools/list returned the tool "${truncate(tool.name)}" more than once; tool names must be unique.`);
      const definition = toDefinition(tool);
      tools.set(tool.name, { ...definition, definitionHash: definitionHash(definition) });
      if (tools.size > MAX_TOOLS) throw new DiscoveryError('mcp_error', `The server lists more than ${MAX_TOOLS} tools; Patchbay registers at most ${MAX_TOOLS} per connector.`);
    }
    cursor = result.nextCursor;
    if (cursor === undefined || cursor === '') break;
    if (seenCursors.has(cursor)) throw new DiscoveryError('mcp_error', 'tools/list returned a cursor it had already returned; its pagination never ends.');
    seenCursors.add(cursor);
  }
  return [...tools.values()];
}

function toDefinition(tool: Tool): ToolDefinition {
  if (tool.name.length === 0) throw new DiscoveryError('mcp_error', 'tools/list returned a tool without a name.');
  return {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema as Record<string, unknown>,
    outputSchema: (tool.outputSchema as Record<string, unknown> | undefined) ?? null,
    annotations: (tool.annotations as Record<string, unknown> | undefined) ?? null,
  };
}

function classify(err: unknown, observed: Observed, target: URL, sentSecret: boolean): DiscoveryError {
  if (err instanceof DiscoveryError) return err;
  const blocked = blockedToDiscoveryError(err) ?? blockedToDiscoveryError(observed.networkError);
  if (blocked) return blocked;
  const where = target.host;
  if (observed.networkError !== undefined) {
    const code = findInCauses(observed.networkError, (e): e is { code: string } => typeof (e as { code?: unknown }).code === 'string')?.code;
    if (code !== undefined && (TLS_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))) {
      return new DiscoveryError('tls', `The TLS connection to ${where} failed (${code}); the server needs a valid certificate for its host name from a trusted authority.`);
    }
    return new DiscoveryError('unreachable', `The server is unreachable: could not connect to ${where}${code ? ` (${code})` : ''}.`);
  }
  const post = observed.lastPost;
  if (post && (post.status === 401 || post.status === 403)) {
    return new DiscoveryError(
      'auth_refused',
      sentSecret
        ? `The server refused the secret (HTTP ${post.status}); check it: it is sent as "Authorization: Bearer <secret>".`
        : `The server requires authentication (HTTP ${post.status}); register it with auth {"type": "secret", "secret": "<token>"}, sent as "Authorization: Bearer <token>".`,
    );
  }
  if (post && post.status >= 500) {
    return new DiscoveryError('server_error', `The server answered the MCP initialize request with HTTP ${post.status}.`);
  }
  if (post && post.status >= 300 && post.status < 400) {
    return new DiscoveryError(
      'not_mcp',
      `The URL answered HTTP ${post.status}, a redirect; redirects to another origin are not followed (the secret must reach only the registered server). Register the MCP endpoint's final URL.`,
    );
  }
  if (post && (post.status < 200 || post.status >= 300)) {
    return new DiscoveryError('not_mcp', `The URL answered HTTP ${post.status} to an MCP request; it does not look like an MCP endpoint (Streamable HTTP; the path is often /mcp).`);
  }
  if (post && post.status !== 202 && post.status !== 204 && !isMcpMediaType(post.contentType)) {
    return new DiscoveryError('not_mcp', `The URL answered with ${post.contentType ?? 'no content type'} instead of MCP JSON-RPC (application/json or text/event-stream); it does not look like an MCP endpoint.`);
  }
  if (err instanceof SyntaxError || (err as { name?: unknown } | null)?.name === 'ZodError') {
    return new DiscoveryError('not_mcp', 'The URL answered with something that is not MCP JSON-RPC; it does not look like an MCP endpoint.');
  }
  if (err instanceof ProtocolError) {
    return new DiscoveryError('mcp_error', `The MCP server answered with an error: ${truncate(err.message)}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new DiscoveryError('mcp_error', `The MCP handshake failed: ${truncate(message)}`);
}

function isMcpMediaType(contentType: string | null): boolean {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase();
  return essence === 'application/json' || essence === 'text/event-stream';
}
