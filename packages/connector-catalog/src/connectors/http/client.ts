import { BlockedDestinationError, checkUrl, outboundPolicyFromEnv, readBody, type OutboundResponse } from '@patchbay/outbound';
import { outboundToolError, parseRetryAfter, type QueryValue } from '../../core/provider-http';
import { ToolError } from '../../core/tool-error';
import type { ToolContext } from '../../core/types';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpCall {
  method: HttpMethod;
  path: string;
  query?: Record<string, QueryValue | number | boolean>;
  json?: unknown;
  headers?: Record<string, string>;
}

export interface HttpResult {
  ok: boolean;
  status: number;
  headers: Record<string, string>;
  body: unknown;
  body_truncated: boolean;
}

/** Response headers worth showing a model; cookies and the rest stay out. */
const SHOWN_RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'location',
  'link',
  'etag',
  'last-modified',
  'cache-control',
  'retry-after',
  'x-request-id',
  'x-total-count',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit',
  'ratelimit-policy',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
];

/** Headers a tool call may not set: they belong to the connection or to the HTTP client itself. */
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-authorization', 'proxy-connection']);

const TEXTUAL = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded|graphql|yaml|x-yaml|csv))/i;

function authHeader(ctx: ToolContext): [string, string] | undefined {
  const name = ctx.credential.values.auth_header_name?.trim();
  const value = ctx.credential.values.auth_header_value;
  if (!value) return undefined;
  return [name || 'Authorization', value];
}

/** Who we are talking to, for messages: the host of the user's base URL. */
function apiName(ctx: ToolContext): string {
  try {
    return `The API at ${new URL(ctx.baseUrl).host}`;
  } catch {
    return 'The API';
  }
}

/**
 * The URL of a call: the path is appended to the base URL (never replacing its host) and must stay
 * under the base URL's path, so a credential for https://api.example.com/v2 is not sent to
 * https://api.example.com/admin by a `../admin` path.
 */
export function buildUrl(baseUrl: string, path: string, query: HttpCall['query'] = {}): URL {
  if (path.includes('#')) throw new ToolError('invalid_input', 'input.path must not contain a fragment (#).');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ToolError('invalid_input', 'The base URL of this connection is not a valid URL; the user must reconnect it with a correct one.');
  }
  const basePath = url.pathname.replace(/\/+$/, '');
  const [rawPath = '', rawQuery] = path.split(/\?(.*)/s, 2);
  url.pathname = `${basePath}/${rawPath.replace(/^\/+/, '')}`;
  const resolved = new URL(url.href); // normalizes `.` and `..` segments, encoded ones included
  if (resolved.pathname !== basePath && !resolved.pathname.startsWith(`${basePath}/`)) {
    throw new ToolError('invalid_input', `input.path must stay under the base URL's path (${basePath || '/'}).`);
  }
  if (rawQuery) for (const [k, v] of new URLSearchParams(rawQuery)) resolved.searchParams.append(k, v);
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) resolved.searchParams.append(key, String(v));
    else resolved.searchParams.append(key, String(value));
  }
  return resolved;
}

function providerMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim().slice(0, 300) || undefined;
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  for (const key of ['message', 'error_description', 'detail', 'title', 'error']) {
    const v = b[key];
    if (typeof v === 'string' && v) return v.slice(0, 300);
    if (typeof v === 'object' && v !== null && typeof (v as { message?: unknown }).message === 'string') return String((v as { message: string }).message).slice(0, 300);
  }
  return undefined;
}

/**
 * Calls the user's own HTTP API. The URL is checked with @patchbay/outbound here as well as by the
 * runtime's guarded client (private addresses and http:// are refused unless
 * PATCHBAY_ALLOW_PRIVATE_NETWORK=true), redirects are returned rather than followed, and answers
 * other than 401, 403, 429 and 5xx are results (ok: false) for the model to read, not errors.
 */
export async function callHttpApi(ctx: ToolContext, call: HttpCall): Promise<HttpResult> {
  const api = apiName(ctx);
  const auth = authHeader(ctx);
  const headers: Record<string, string> = { accept: 'application/json, text/*;q=0.9, */*;q=0.8', 'user-agent': 'patchbay' };
  for (const [name, value] of Object.entries(call.headers ?? {})) {
    const lower = name.toLowerCase();
    if (FORBIDDEN_HEADERS.has(lower)) throw new ToolError('invalid_input', `input.headers may not set ${name}.`);
    if (auth && lower === auth[0].toLowerCase()) throw new ToolError('invalid_input', `input.headers may not set ${name}: the connection's stored credential provides it.`);
    if (/[\r\n]/.test(value)) throw new ToolError('invalid_input', `input.headers.${name} must not contain line breaks.`);
    headers[lower] = value;
  }
  if (auth) headers[auth[0].toLowerCase()] = auth[1];
  let body: string | undefined;
  if (call.json !== undefined) {
    if (call.method === 'GET') throw new ToolError('invalid_input', 'A GET request cannot have a body; use http_request with POST, PUT, PATCH or DELETE.');
    body = JSON.stringify(call.json);
    headers['content-type'] ??= 'application/json';
  }

  const url = buildUrl(ctx.baseUrl, call.path, call.query);
  try {
    await checkUrl(url, outboundPolicyFromEnv());
  } catch (err) {
    if (err instanceof BlockedDestinationError) throw new ToolError('blocked_destination', err.message);
    throw err;
  }

  let res: OutboundResponse;
  let read: { bytes: Buffer; truncated: boolean };
  try {
    res = await ctx.http(url, { method: call.method, headers, body, signal: ctx.signal, timeoutMs: ctx.limits.timeoutMs, collectUpTo: ctx.limits.maxResponseBytes });
    read = await readBody(res, ctx.limits.maxResponseBytes, 'truncate');
  } catch (err) {
    throw outboundToolError(err, api, ctx);
  }
  const type = res.headers.get('content-type') ?? '';
  let parsed: unknown;
  if (read.bytes.length === 0) parsed = null;
  else if (type && !TEXTUAL.test(type)) parsed = null;
  else {
    const text = read.bytes.toString('utf8');
    parsed = text;
    if (!read.truncated && /json/i.test(type)) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
  }

  const said = providerMessage(parsed);
  const detail = said ? `: ${said}` : '';
  if (res.status === 401) throw new ToolError('credential_rejected', `${api} rejected the stored credential (HTTP 401)${detail}. The user must reconnect it with a valid one.`, { status: 401 });
  if (res.status === 403) throw new ToolError('forbidden', `${api} refused the request (HTTP 403)${detail}. The stored credential lacks access to this.`, { status: 403 });
  if (res.status === 429) {
    const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
    const wait = retryAfter !== undefined ? `retry after ${retryAfter} s` : 'retry later';
    throw new ToolError('rate_limited', `${api} rate limit reached (HTTP 429); ${wait}.`, { status: 429, retryAfterSeconds: retryAfter });
  }
  if (res.status >= 500) throw new ToolError('provider_error', `${api} had a server error (HTTP ${res.status})${detail}; retry later.`, { status: res.status });

  const shown: Record<string, string> = {};
  for (const name of SHOWN_RESPONSE_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) shown[name] = value;
  }
  const result: HttpResult = { ok: res.status >= 200 && res.status < 300, status: res.status, headers: shown, body: parsed, body_truncated: read.truncated };
  if (parsed === null && read.bytes.length > 0) result.body = `(${read.bytes.length}${read.truncated ? '+' : ''} bytes of ${type.split(';')[0]} not shown)`;
  return result;
}
