import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { setTraceHeaders } from './trace-context';

/**
 * Hop-by-hop headers (RFC 9110 7.6.1) describe one connection, not the message, so a proxy never
 * passes them on. `expect` is answered by the edge's own server already.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

/**
 * Set (to "1") on the upstream request only when X-Forwarded-Host came from a trusted load balancer
 * (EDGE_TRUST_FORWARDED and the balancer sent it), never from the client's own Host header: links
 * sent to end users (magic links) may be built from X-Forwarded-Host only then.
 */
export const TRUSTED_HOST_HEADER = 'x-patchbay-trusted-host';

/** Request headers the edge always sets itself, whatever the client sent. */
const EDGE_SET = new Set(['host', 'x-request-id', 'traceparent', 'tracestate', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', TRUSTED_HOST_HEADER]);

/** The internal service credential: only services send it to each other, never a client through the edge. */
const SERVICE_TOKEN = 'x-service-token';

/** Headers that say who the client is; believed only when a trusted load balancer sets them. */
function isClientClaim(name: string): boolean {
  return name.startsWith('x-forwarded-') || name === 'forwarded' || name === 'x-real-ip';
}

function isHopByHop(name: string, listedInConnection: Set<string> | undefined): boolean {
  return HOP_BY_HOP.has(name) || name.startsWith('proxy-') || (listedInConnection?.has(name) ?? false);
}

function connectionTokens(headers: IncomingHttpHeaders): Set<string> | undefined {
  const value = headers.connection;
  // Nearly every request says one of these, which name no header to remove (Keep-Alive is removed anyway).
  if (value === undefined || value === '' || value === 'keep-alive' || value === 'close' || value === 'Keep-Alive') return undefined;
  const tokens = new Set<string>();
  for (const token of value.split(',')) {
    const name = token.trim().toLowerCase();
    if (name !== '') tokens.add(name);
  }
  return tokens;
}

/** How the client reached Patchbay: what the services use to build absolute links. */
export interface PublicOrigin {
  proto: 'http' | 'https';
  /** Host and port as the client wrote them, or undefined when the request carried no usable Host. */
  host: string | undefined;
  port: string;
}

const HOST_PATTERN = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;
const PORT_PATTERN = /^\d{1,5}$/;

function firstValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const first = text.split(',')[0]!.trim();
  return first === '' ? undefined : first;
}

export function publicOrigin(req: IncomingMessage, trustForwarded: boolean): PublicOrigin {
  const ownProto = (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';
  let proto: 'http' | 'https' = ownProto;
  let host = req.headers.host;
  let port: string | undefined;
  if (trustForwarded) {
    const forwardedProto = firstValue(req.headers['x-forwarded-proto'])?.toLowerCase();
    if (forwardedProto === 'http' || forwardedProto === 'https') proto = forwardedProto;
    host = firstValue(req.headers['x-forwarded-host']) ?? host;
    const forwardedPort = firstValue(req.headers['x-forwarded-port']);
    if (forwardedPort !== undefined && PORT_PATTERN.test(forwardedPort)) port = forwardedPort;
  }
  const hostMatch = host === undefined ? null : HOST_PATTERN.exec(host);
  if (!hostMatch) host = undefined;
  port ??= hostMatch?.[1] ?? (proto === 'https' ? '443' : '80');
  return { proto, host, port };
}

/** `https://patchbay.example.com`, or undefined when the client sent no usable Host. */
export function publicBaseUrl(origin: PublicOrigin): string | undefined {
  return origin.host === undefined ? undefined : `${origin.proto}://${origin.host}`;
}

function clientAddress(req: IncomingMessage): string | undefined {
  const address = req.socket.remoteAddress;
  if (address === undefined) return undefined;
  // IPv4 clients of a dual-stack socket appear as ::ffff:a.b.c.d; log and forward the plain address.
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** The headers of the request sent to a service. */
export function upstreamRequestHeaders(req: IncomingMessage, requestId: string, origin: PublicOrigin, trustForwarded: boolean): OutgoingHttpHeaders {
  const incoming = req.headers;
  const listed = connectionTokens(incoming);
  const outgoing: OutgoingHttpHeaders = {};
  for (const name in incoming) {
    if (EDGE_SET.has(name) || name === SERVICE_TOKEN || isHopByHop(name, listed)) continue;
    if (!trustForwarded && isClientClaim(name)) continue;
    outgoing[name] = incoming[name];
  }
  outgoing['x-request-id'] = requestId;
  setTraceHeaders(incoming, outgoing);

  const client = clientAddress(req);
  const priorFor = trustForwarded ? incoming['x-forwarded-for'] : undefined;
  if (client !== undefined) outgoing['x-forwarded-for'] = priorFor ? `${priorFor}, ${client}` : client;
  else if (priorFor) outgoing['x-forwarded-for'] = priorFor;
  outgoing['x-forwarded-proto'] = origin.proto;
  if (origin.host !== undefined) outgoing['x-forwarded-host'] = origin.host;
  if (trustForwarded && firstValue(incoming['x-forwarded-host']) !== undefined && origin.host !== undefined) outgoing[TRUSTED_HOST_HEADER] = '1';
  outgoing['x-forwarded-port'] = origin.port;
  return outgoing;
}

/** The headers of the response sent back to the client: the service's own, less hop-by-hop ones. */
export function clientResponseHeaders(upstream: IncomingHttpHeaders, requestId: string): OutgoingHttpHeaders {
  const listed = connectionTokens(upstream);
  const outgoing: OutgoingHttpHeaders = {};
  for (const name in upstream) {
    if (name === 'x-request-id' || isHopByHop(name, listed)) continue;
    outgoing[name] = upstream[name];
  }
  // One id per request, the one the edge logged, even if a service answered with another.
  outgoing['x-request-id'] = requestId;
  return outgoing;
}
