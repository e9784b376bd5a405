import type { OAuth2Config } from '@patchbay/connector-catalog';
import { authenticateClient } from '@patchbay/oauth';
import { BlockedDestinationError } from '@patchbay/outbound';

/** New tokens from a refresh. `refresh_token` is absent when the provider keeps the old one valid. */
export interface RefreshedTokens {
  access_token: string;
  refresh_token?: string;
  token_type?: string;
  scope?: string;
  expires_in?: number;
}

/**
 * What a refresh attempt came to:
 * - `refreshed`: new tokens;
 * - `revoked`: the grant is gone for good (`invalid_grant`, revoked or unknown refresh token); the
 *   user must authenticate again;
 * - `rejected`: the token endpoint refused the request for a reason the user cannot fix
 *   (`invalid_client`, `invalid_scope`...): the organization's OAuth app needs attention;
 * - `unavailable`: a failure that may pass (5xx, 429, timeout, network, an unreadable answer).
 * `reason` is for logs, the audit log and status_reason: never a token.
 */
export type RefreshOutcome =
  | { kind: 'refreshed'; tokens: RefreshedTokens }
  | { kind: 'revoked' | 'rejected' | 'unavailable'; reason: string };

/**
 * Error codes that mean the refresh token (the user's grant) will never work again. RFC 6749 5.2 has
 * `invalid_grant` (expired, revoked, or issued to another client); providers add their own spellings
 * (GitHub `bad_refresh_token`, Slack `invalid_refresh_token` and `token_revoked`).
 */
const REVOKED_ERRORS = new Set(['invalid_grant', 'bad_refresh_token', 'invalid_refresh_token', 'token_revoked', 'token_expired', 'invalid_token', 'unauthorized_client']);

export const REFRESH_TIMEOUT_MS = 10_000;

export interface RefreshParams {
  refreshToken: string;
  clientId: string;
  clientSecret: string | null;
}

/**
 * The refresh-token grant (RFC 6749 section 6) at the connector's token URL, with the client
 * authenticated as the connector says (`client_secret_basic` by default, or `client_secret_post`).
 */
export async function refreshAccessToken(
  fetchImpl: typeof fetch,
  config: Pick<OAuth2Config, 'token_url' | 'token_auth_method'>,
  params: RefreshParams,
  timeoutMs = REFRESH_TIMEOUT_MS,
): Promise<RefreshOutcome> {
  const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: params.refreshToken });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  // A public client, or one that posts its secret, names itself in the form; Basic carries the id otherwise.
  if (params.clientSecret === null || config.token_auth_method === 'client_secret_post') body.set('client_id', params.clientId);
  authenticateClient(config, params, body, headers);

  let res: Response;
  let text: string;
  try {
    res = await fetchImpl(config.token_url, { method: 'POST', headers, body: body.toString(), redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    text = await res.text();
  } catch (err) {
    // The outbound guard refused the token URL (a private address without PATCHBAY_ALLOW_PRIVATE_NETWORK): configuration, not an outage.
    if (err instanceof Error && err.cause instanceof BlockedDestinationError) return { kind: 'rejected', reason: 'the token URL is not an allowed destination' };
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    return { kind: 'unavailable', reason: timedOut ? 'the token endpoint did not answer in time' : 'the token endpoint could not be reached' };
  }

  const payload = parseTokenResponse(text, res.headers.get('content-type'));
  // Some providers (GitHub, Slack) report errors with status 200 and an `error` member.
  const error = typeof payload?.error === 'string' ? payload.error : undefined;
  if (res.status >= 500 || res.status === 429) return { kind: 'unavailable', reason: `the token endpoint answered HTTP ${res.status}` };
  if (error !== undefined || !res.ok) {
    const what = error ?? `HTTP ${res.status}`;
    if (error !== undefined && REVOKED_ERRORS.has(error)) return { kind: 'revoked', reason: `the provider refused the refresh token (${what})` };
    return { kind: 'rejected', reason: `the token endpoint refused the refresh request (${what})` };
  }
  if (!payload || typeof payload.access_token !== 'string' || payload.access_token === '') {
    return { kind: 'unavailable', reason: 'the token endpoint answered without an access_token' };
  }
  const tokens: RefreshedTokens = { access_token: payload.access_token };
  if (typeof payload.refresh_token === 'string' && payload.refresh_token !== '') tokens.refresh_token = payload.refresh_token;
  if (typeof payload.token_type === 'string') tokens.token_type = payload.token_type;
  if (typeof payload.scope === 'string') tokens.scope = payload.scope;
  const expiresIn = typeof payload.expires_in === 'string' ? Number(payload.expires_in) : payload.expires_in;
  if (typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0) tokens.expires_in = Math.floor(expiresIn);
  return { kind: 'refreshed', tokens };
}

function parseTokenResponse(text: string, contentType: string | null): Record<string, unknown> | null {
  if (contentType?.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
