import type { IncomingHttpHeaders } from 'node:http';
import { INVALID_PARAMS, isLogLevel, isObject, kindOf, type JsonRpcId } from './json-rpc';

/**
 * MCP revision 2026-07-28 on the endpoint: which era a POST belongs to, and the checks the revision
 * asks of a server before it serves a modern request (in the order the reference SDK's validation
 * ladder answers them, so a request failing several gets the same error as from any SDK server).
 * Hand-made rather than the SDK's `classifyInboundRequest`: a few property reads per request on the
 * path every agent step takes, and the legacy path (the one `pnpm bench mcp` measures) pays one.
 */

/** The modern revisions the endpoint serves, newest first (2025-era versions are negotiated with initialize). */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];
/** Any version from this one on is of the stateless era (the SDK's rule: versions sort as strings). */
const FIRST_MODERN_VERSION = '2026-07-28';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** Error codes of 2026-07-28's reserved range. */
export const HEADER_MISMATCH = -32020;
export const MISSING_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export const isModernVersion = (version: string): boolean => version >= FIRST_MODERN_VERSION;

/** A request (or notification) of the modern era, its envelope checked. */
export interface ModernMessage {
  id: JsonRpcId | undefined;
  method: string;
  params: Record<string, unknown>;
  meta: Record<string, unknown>;
  version: string;
}

/** A refusal before dispatch: the HTTP status and the JSON-RPC error, keeping the request's id. */
export interface LadderError {
  status: number;
  id: JsonRpcId | null;
  code: number;
  message: string;
  data?: unknown;
}

/** The body's `_meta`, when the params carry one that claims a protocol version (the modern era's mark). */
function envelopeOf(params: unknown): Record<string, unknown> | undefined {
  if (!isObject(params)) return undefined;
  const meta = params._meta;
  return isObject(meta) && META_PROTOCOL_VERSION in meta ? meta : undefined;
}

/** The first problem of an envelope, or null: protocolVersion and clientCapabilities are required (clientInfo is a SHOULD). */
function envelopeProblem(meta: Record<string, unknown>): { key: string; problem: string } | null {
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string' || version === '') return { key: META_PROTOCOL_VERSION, problem: `must be the protocol version, a string such as "2026-07-28" (got ${kindOf(version)})` };
  const capabilities = meta['io.modelcontextprotocol/clientCapabilities'];
  if (!isObject(capabilities)) return { key: 'io.modelcontextprotocol/clientCapabilities', problem: `must be the client's capabilities, an object ({} when it declares none) (got ${kindOf(capabilities)})` };
  const info = meta[META_CLIENT_INFO];
  if (info !== undefined && (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string')) return { key: META_CLIENT_INFO, problem: "must be an object with the client's name and version, both strings" };
  const level = meta['io.modelcontextprotocol/logLevel'];
  if (level !== undefined && !isLogLevel(level)) return { key: 'io.modelcontextprotocol/logLevel', problem: `must be a log level such as "info" (got ${typeof level === 'string' ? JSON.stringify(level.slice(0, 40)) : kindOf(level)})` };
  const token = meta.progressToken;
  if (token !== undefined && typeof token !== 'string' && typeof token !== 'number') return { key: 'progressToken', problem: `must be a string or a number (got ${kindOf(token)})` };
  return null;
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' ? value.trim() : undefined;
};

const mismatch = (id: JsonRpcId | null, headerValue: string, body: string): LadderError => ({
  status: 400,
  id,
  code: HEADER_MISMATCH,
  message: `Header mismatch: ${body}.`,
  data: { mismatch: { header: headerValue.slice(0, 200), body } },
});

/** The value of an `Mcp-Name` header: plain, or `=?base64?...?=` for values that are not plain ASCII; undefined when the encoding is broken. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  const b64 = value.slice(9, -2);
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) return undefined;
  const decoded = Buffer.from(b64, 'base64').toString('utf8');
  return decoded.includes('\uFFFD') ? undefined : decoded;
}

/** What `Mcp-Name` mirrors for the methods that need it. */
const NAME_SOURCE: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/**
 * Sorts one single-message POST into an era. `legacy` (initialize, session traffic, envelope-less
 * requests with a 2025-era or no version header) goes to the 2025-11-25 path unchanged; `modern` is a
 * request or notification whose envelope, version and headers passed the revision's checks; `error`
 * is the refusal to answer with (its HTTP status included).
 */
export function classifyModern(
  headers: IncomingHttpHeaders,
  message: { kind: 'request' | 'notification'; id?: JsonRpcId; method: string; params: unknown },
): { era: 'legacy' } | { era: 'modern'; message: ModernMessage } | { era: 'error'; error: LadderError } {
  const id = message.kind === 'request' ? (message.id ?? null) : null;
  const headerVersion = header(headers, 'mcp-protocol-version');
  const headerModern = headerVersion !== undefined && isModernVersion(headerVersion);
  const meta = envelopeOf(message.params);
  const methodHeader = header(headers, 'mcp-method');
  if (!meta) {
    if (!headerModern) return { era: 'legacy' };
    if (message.method === 'initialize' && message.kind === 'request') {
      return { era: 'error', error: mismatch(id, headerVersion, `an initialize request (the 2025 handshake) was sent with MCP-Protocol-Version ${headerVersion}; send initialize without that header, or send the request itself with _meta["${META_PROTOCOL_VERSION}"] and no initialize`) };
    }
    if (message.kind === 'notification') return { era: 'legacy' };
    return {
      era: 'error',
      error: {
        status: 400,
        id,
        code: INVALID_PARAMS,
        message: `Invalid params: the MCP-Protocol-Version header names ${headerVersion.slice(0, 40)}, but params._meta lacks "${META_PROTOCOL_VERSION}" and "io.modelcontextprotocol/clientCapabilities", which that revision requires on every request.`,
        data: { envelope: { missing: [META_PROTOCOL_VERSION] } },
      },
    };
  }
  const problem = envelopeProblem(meta);
  if (problem) return { era: 'error', error: { status: 400, id, code: INVALID_PARAMS, message: `Invalid params: params._meta["${problem.key}"] ${problem.problem}.`, data: { envelope: problem } } };
  const version = meta[META_PROTOCOL_VERSION] as string;
  if (headerVersion !== undefined && headerVersion !== version) return { era: 'error', error: mismatch(id, headerVersion, `params._meta names protocol version ${version.slice(0, 40)} but the MCP-Protocol-Version header names ${headerVersion.slice(0, 40)}`) };
  if (methodHeader !== undefined && methodHeader !== message.method) return { era: 'error', error: mismatch(id, methodHeader, `the body's method is ${message.method.slice(0, 60)} but the Mcp-Method header names ${methodHeader.slice(0, 60)}`) };
  if (!MODERN_PROTOCOL_VERSIONS.includes(version)) {
    return {
      era: 'error',
      error: {
        status: 400,
        id,
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message: `Unsupported protocol version: ${version.slice(0, 40)}; this server serves ${MODERN_PROTOCOL_VERSIONS.join(', ')} per request, and 2025-11-25, 2025-06-18 and 2025-03-26 through initialize.`,
        data: { supported: [...MODERN_PROTOCOL_VERSIONS], requested: version.slice(0, 100) },
      },
    };
  }
  const params = message.params as Record<string, unknown>;
  if (message.kind === 'request') {
    // The standard headers: required on every request, Mcp-Name mirroring params.name / params.uri.
    if (headerVersion === undefined) return { era: 'error', error: mismatch(id, '(missing)', `the required MCP-Protocol-Version header is absent (params._meta names ${version})`) };
    if (methodHeader === undefined) return { era: 'error', error: mismatch(id, '(missing)', `the required Mcp-Method header is absent (the body's method is ${message.method.slice(0, 60)})`) };
    const field = NAME_SOURCE[message.method];
    const bodyName = field !== undefined ? params[field] : undefined;
    if (typeof bodyName === 'string') {
      const nameHeader = header(headers, 'mcp-name');
      if (nameHeader === undefined) return { era: 'error', error: mismatch(id, '(missing)', `the required Mcp-Name header is absent (params.${field} is ${JSON.stringify(bodyName.slice(0, 100))})`) };
      const decoded = decodeHeaderValue(nameHeader);
      if (decoded === undefined) return { era: 'error', error: mismatch(id, nameHeader, 'the Mcp-Name header carries an invalid =?base64?...?= value') };
      if (decoded !== bodyName) return { era: 'error', error: mismatch(id, nameHeader, `params.${field} is ${JSON.stringify(bodyName.slice(0, 100))} but the Mcp-Name header names ${JSON.stringify(decoded.slice(0, 100))}`) };
    }
  }
  return { era: 'modern', message: { id: message.id, method: message.method, params, meta, version } };
}
