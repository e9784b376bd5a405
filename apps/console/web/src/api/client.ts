import { apiBasePath } from '../config';

/** An error answer of a Patchbay API, in the services' envelope: {detail, code, errors?}. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: Array<{ field: string; message: string }> = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Listener = () => void;
const sessionExpiredListeners = new Set<Listener>();

/**
 * The one place an expired or missing session is noticed: every 401 from any API call lands here, and
 * the app's root sends the member to the sign-in page with the page they were on (see app.tsx).
 */
export function onSessionExpired(listener: Listener): () => void {
  sessionExpiredListeners.add(listener);
  return () => sessionExpiredListeners.delete(listener);
}

/** Tells the app the session has ended (the typed client calls it on a 401, as apiRequest does). */
export function notifySessionExpired(): void {
  for (const listener of sessionExpiredListeners) listener();
}

let csrfToken: string | null = null;

/** The token to send in X-CSRF-Token on a state-changing call, once the session is loaded. */
export function currentCsrfToken(): string | null {
  return csrfToken;
}

/** The session's anti-forgery token, given by GET/POST /api/v1/session; sent on every state-changing call. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  /** A 401 on this call is an answer for the caller (the sign-in form), not an expired session. */
  expectUnauthenticated?: boolean;
}

/**
 * Calls a public API of this installation with the session cookie (HttpOnly: scripts never see it).
 * Paths are the APIs' own (`api/v1/session`), resolved against the API base path.
 */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const url = new URL(path.replace(/^\//, ''), new URL(apiBasePath, window.location.origin));
  for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(url, { method, headers, credentials: 'same-origin', body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  } catch {
    throw new ApiError(0, 'network_error', 'Patchbay could not be reached. Check your connection and try again.');
  }
  const text = await res.text();
  const body: unknown = text ? safeJson(text) : null;
  if (res.ok) return body as T;
  const error = apiErrorFrom(res.status, body);
  if (res.status === 401 && !options.expectUnauthenticated) notifySessionExpired();
  throw error;
}

/** An ApiError from an answer's status and parsed body (the services' {detail, code, errors} envelope). */
export function apiErrorFrom(status: number, body: unknown): ApiError {
  const envelope = (body ?? {}) as { detail?: unknown; code?: unknown; errors?: unknown };
  return new ApiError(
    status,
    typeof envelope.code === 'string' ? envelope.code : `http_${status}`,
    typeof envelope.detail === 'string' ? envelope.detail : `The request failed (HTTP ${status}).`,
    Array.isArray(envelope.errors) ? (envelope.errors as ApiError['fieldErrors']) : [],
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 300) };
  }
}
