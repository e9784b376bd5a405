import { BlockedDestinationError, discard, OutboundError, readBody, type OutboundHttp, type OutboundRequest } from '@patchbay/outbound';
import { SearchEngineError, type EngineName, type SearchRequest } from './types';

/** Largest engine answer read (SearXNG pages with many results run to a few hundred kB). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface EngineHttp {
  http: OutboundHttp;
  timeoutMs: number;
}

/**
 * One JSON exchange with an engine, every failure as a SearchEngineError: 429 rate_limit (with the
 * engine's Retry-After), 401/403 auth, 402/432 billing (Tavily's plan and credit limits), other 4xx
 * invalid_request, 5xx server; timeouts and network errors as such. The message never carries the
 * key, and names the engine's own error text (cut) so the operator can act on it.
 */
export async function engineJson(engine: EngineName, deps: EngineHttp, url: URL, request: Omit<OutboundRequest, 'timeoutMs' | 'signal'>, search: SearchRequest): Promise<unknown> {
  let response;
  try {
    response = await deps.http(url, { ...request, timeoutMs: deps.timeoutMs, collectUpTo: MAX_ANSWER_BYTES, ...(search.signal ? { signal: search.signal } : {}) });
  } catch (err) {
    if (err instanceof BlockedDestinationError) throw new SearchEngineError(engine, 'network', `${engine}: the engine's address is refused (${err.message})`);
    if (err instanceof OutboundError) throw new SearchEngineError(engine, err.kind === 'timeout' ? 'timeout' : 'network', `${engine}: ${err.kind === 'timeout' ? 'no answer in time' : `unreachable (${err.code ?? err.message})`}`);
    throw new SearchEngineError(engine, 'network', `${engine}: unreachable`);
  }
  const status = response.status;
  if (status >= 300 && status < 400) {
    discard(response);
    throw new SearchEngineError(engine, 'invalid_request', `${engine}: answered a redirect (${status}); check its base URL`, status);
  }
  let text: string;
  try {
    text = (await readBody(response, MAX_ANSWER_BYTES, 'error')).bytes.toString('utf8');
  } catch (err) {
    throw new SearchEngineError(engine, err instanceof OutboundError && err.kind === 'timeout' ? 'timeout' : 'network', `${engine}: the answer could not be read`);
  }
  if (status >= 200 && status < 300) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new SearchEngineError(engine, 'format', `${engine}: the answer is not JSON${engine === 'searxng' ? ' (enable the json format under search.formats in settings.yml)' : ''}`, status);
    }
  }
  const detail = errorText(text);
  const message = `${engine} answered ${status}${detail ? `: ${detail}` : ''}`;
  if (status === 429) {
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new SearchEngineError(engine, 'rate_limit', message, status, Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null);
  }
  if (status === 401) throw new SearchEngineError(engine, 'auth', message, status);
  if (status === 403) throw new SearchEngineError(engine, engine === 'searxng' ? 'format' : 'auth', engine === 'searxng' ? `${message} (the instance does not serve format=json: enable it under search.formats in settings.yml)` : message, status);
  if (status === 402 || status === 432 || status === 433) throw new SearchEngineError(engine, 'billing', message, status);
  if (status >= 500) throw new SearchEngineError(engine, 'server', message, status);
  throw new SearchEngineError(engine, 'invalid_request', message, status);
}

/** The engine's error message from its JSON body (each names it differently), at most 200 characters. */
function errorText(text: string): string {
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    // plain text
  }
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    const nested = typeof o.error === 'object' && o.error !== null ? (o.error as Record<string, unknown>) : null;
    const detail = typeof o.detail === 'object' && o.detail !== null ? (o.detail as Record<string, unknown>).error : o.detail;
    value = o.message ?? nested?.message ?? nested?.detail ?? detail ?? o.error ?? '';
  }
  return typeof value === 'string' ? value.slice(0, 200) : '';
}
