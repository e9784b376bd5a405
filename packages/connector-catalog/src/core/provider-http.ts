import { BlockedDestinationError, OutboundError, readBody, type OutboundResponse, type ResponseHeaders } from '@patchbay/outbound';
import { ToolError } from './tool-error';
import type { InjectedCredential, ToolContext } from './types';

export type QueryValue = string | number | boolean | undefined | null | string[];

export interface ProviderRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under the base URL, already filled in and encoded (use `encodePath`). */
  path: string;
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface ProviderResponse<T> {
  status: number;
  headers: ResponseHeaders;
  data: T;
}

export interface ProviderClientOptions {
  /** The provider's name as people say it ("GitHub"), used in error messages. */
  provider: string;
  /** Headers that carry the credential (Authorization, X-Api-Key...). */
  authHeaders(credential: InjectedCredential): Record<string, string>;
  /** Headers every request sends (Accept, API version). */
  defaultHeaders?: Record<string, string>;
  /** Pulls the provider's own error message out of an error body. */
  errorMessage?(body: unknown): string | undefined;
  /**
   * Decides that a non-429 response is really a rate limit (GitHub answers 403 with x-ratelimit-remaining: 0;
   * Google answers 403 with reason rateLimitExceeded in the body, so the parsed body is passed too).
   */
  isRateLimited?(status: number, headers: ResponseHeaders, body: unknown): boolean;
  /**
   * Maps an error answer whose meaning is in its body or provider headers rather than its status
   * (Linear answers a bad API key with HTTP 400 and AUTHENTICATION_ERROR; HubSpot's 429 tells the
   * wait in its own headers); undefined falls back to the status mapping.
   */
  errorFromBody?(status: number, headers: ResponseHeaders, body: unknown): ToolError | undefined;
}

/** Encodes each `{name}` of a path template with the value given. */
export function encodePath(template: string, values: object): string {
  const named = values as Record<string, unknown>;
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = named[name];
    if (value === undefined || value === '') throw new ToolError('invalid_input', `input.${name} is required.`);
    return encodeURIComponent(String(value));
  });
}

/** Retry-After as seconds: either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function defaultErrorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.slice(0, 300) || undefined;
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  for (const key of ['message', 'error_description', 'error', 'detail', 'title']) {
    const v = b[key];
    if (typeof v === 'string' && v) return v.slice(0, 300);
  }
  return undefined;
}

/**
 * A failed request of @patchbay/outbound's client as the ToolError a model can act on: a refused
 * destination is blocked_destination (permanent, not a "retry later" network failure), no answer in
 * time or a cancelled call a timeout, an answer over the size limit or a network failure a
 * provider_error. Anything else is not an outbound failure and is rethrown as it is.
 */
export function outboundToolError(err: unknown, provider: string, ctx: Pick<ToolContext, 'signal' | 'limits'>): unknown {
  if (err instanceof BlockedDestinationError) return new ToolError('blocked_destination', err.message);
  if (!(err instanceof OutboundError)) return err;
  const timedOut = new ToolError('timeout', `${provider} did not answer within ${Math.round(ctx.limits.timeoutMs / 1000)} s; retry later.`);
  switch (err.kind) {
    case 'timeout':
      return timedOut;
    case 'aborted':
      return ctx.signal.aborted ? new ToolError('timeout', 'The call was cancelled before the provider answered.') : timedOut;
    case 'too_large':
      return new ToolError('provider_error', `${provider} returned more data than the ${ctx.limits.maxResponseBytes}-byte limit; ask for fewer results.`);
    default:
      return new ToolError('provider_error', `${provider} could not be reached (${err.code ?? 'network error'}); retry later.`);
  }
}

/**
 * Calls a provider's HTTP API with the injected credential and turns its failures into ToolErrors
 * a model can act on: 401 credential rejected, 403 forbidden, 404 not found, 429 (with Retry-After)
 * rate limited, 5xx provider error, no answer in time a timeout. Credentials never appear in messages.
 */
export function createProviderClient(options: ProviderClientOptions) {
  const { provider } = options;
  return async function request<T = unknown>(ctx: ToolContext, req: ProviderRequest): Promise<ProviderResponse<T>> {
    const url = new URL(req.path.replace(/^\//, ''), ctx.baseUrl.endsWith('/') ? ctx.baseUrl : `${ctx.baseUrl}/`);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, v);
      else url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json', ...options.defaultHeaders, ...req.headers, ...options.authHeaders(ctx.credential) };
    let body: string | undefined;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    } else if (req.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(req.form).toString();
    }
    let res: OutboundResponse;
    let text: string;
    try {
      res = await ctx.http(url, { method: req.method ?? 'GET', headers, body, signal: ctx.signal, timeoutMs: ctx.limits.timeoutMs, collectUpTo: ctx.limits.maxResponseBytes });
      text = (await readBody(res, ctx.limits.maxResponseBytes, 'error')).bytes.toString('utf8');
    } catch (err) {
      throw outboundToolError(err, provider, ctx);
    }
    let data: unknown = text;
    if (text && (res.headers.get('content-type') ?? '').includes('json')) {
      try {
        data = JSON.parse(text);
      } catch {
        throw new ToolError('provider_error', `${provider} answered with malformed JSON; retry later.`);
      }
    }
    const ok = res.status >= 200 && res.status < 300;
    if (ok) return { status: res.status, headers: res.headers, data: data as T };
    const fromBody = options.errorFromBody?.(res.status, res.headers, data);
    if (fromBody) throw fromBody;

    const said = (options.errorMessage ?? defaultErrorMessage)(data) ?? defaultErrorMessage(data);
    const detail = said ? `: ${said}` : '';
    const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
    if (res.status === 429 || options.isRateLimited?.(res.status, res.headers, data)) {
      const wait = retryAfter !== undefined ? `retry after ${retryAfter} s` : 'retry later';
      throw new ToolError('rate_limited', `${provider} rate limit reached (HTTP ${res.status}); ${wait}.`, { status: res.status, retryAfterSeconds: retryAfter });
    }
    switch (res.status) {
      case 401:
        throw new ToolError('credential_rejected', `${provider} rejected the stored credential (HTTP 401)${detail}. The user must reconnect ${provider}.`, { status: 401 });
      case 403:
        throw new ToolError('forbidden', `${provider} refused the request (HTTP 403)${detail}. The stored credential lacks access or a permission for this action.`, { status: 403 });
      case 404:
        throw new ToolError('not_found', `${provider} found nothing there (HTTP 404)${detail}. Check the identifiers in the input.`, { status: 404 });
      case 409:
        throw new ToolError('conflict', `${provider} reported a conflict (HTTP 409)${detail}.`, { status: 409 });
      case 400:
      case 422:
        throw new ToolError('invalid_input', `${provider} rejected the input (HTTP ${res.status})${detail}.`, { status: res.status });
      default:
        if (res.status >= 500) throw new ToolError('provider_error', `${provider} had a server error (HTTP ${res.status})${detail}; retry later.`, { status: res.status });
        throw new ToolError('provider_error', `${provider} answered HTTP ${res.status}${detail}.`, { status: res.status });
    }
  };
}
