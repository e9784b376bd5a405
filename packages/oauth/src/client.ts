/**
 * The client side of the OAuth 2.0 authorization-code flow with PKCE (RFC 6749 4.1, RFC 7636) and the
 * refresh grant (RFC 6749 6): the authorize URL, the code exchange and the refresh at a provider's
 * token URL. Shared by every magic-link page that signs a user in with a provider.
 */

/** Where a provider's OAuth endpoints are and how it wants to be called. */
export interface OAuthProviderConfig {
  authorize_url: string;
  token_url: string;
  /** How scopes are joined in the authorize URL (space by default; Slack and a few others use a comma). */
  scope_separator?: ' ' | ',';
  /** Extra query parameters on the authorize URL (access_type=offline for Google). */
  authorize_params?: Record<string, string>;
  /** Providers that take the client credentials in the body instead of HTTP Basic (the default). */
  token_auth_method?: 'client_secret_basic' | 'client_secret_post';
}

export function authorizeUrl(
  config: OAuthProviderConfig,
  params: { clientId: string; redirectUri: string; scopes: string[]; state: string; codeChallenge: string },
): string {
  const url = new URL(config.authorize_url);
  // The provider's extra parameters first, so ours (the security-relevant ones) always win.
  for (const [name, value] of Object.entries(config.authorize_params ?? {})) url.searchParams.set(name, value);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', params.clientId);
  url.searchParams.set('redirect_uri', params.redirectUri);
  if (params.scopes.length > 0) url.searchParams.set('scope', params.scopes.join(config.scope_separator ?? ' '));
  url.searchParams.set('state', params.state);
  url.searchParams.set('code_challenge', params.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

/** Tokens the provider issued for an authorization code or a refresh token. */
export interface OAuthTokens {
  access_token: string;
  refresh_token?: string;
  token_type?: string;
  scope?: string;
  expires_in?: number;
}

/**
 * Why tokens could not be obtained; `description` is safe to show the user (never a secret).
 * `refused`: the provider answered with an error (`providerError` is its `error`, e.g. `invalid_grant`:
 * the code or refresh token is dead and asking again will not help). `unavailable`: no usable answer
 * (network, timeout, 5xx, 429): asking again later may work.
 */
export class TokenExchangeError extends Error {
  readonly code = 'token_exchange_failed';
  constructor(
    readonly description: string,
    readonly kind: 'refused' | 'unavailable',
    readonly providerError: string | null = null,
    readonly status: number | null = null,
  ) {
    super(description);
    this.name = 'TokenExchangeError';
  }
}

const TOKEN_TIMEOUT_MS = 15_000;

interface ClientCredentials {
  clientId: string;
  clientSecret: string | null;
}

/**
 * Exchanges an authorization code at the provider's token URL (RFC 6749 4.1.3 with the PKCE
 * verifier). Asks for JSON explicitly: GitHub answers form-encoded otherwise, and reports errors
 * with status 200 and an `error` member, which is handled the same as an error status.
 */
export function exchangeAuthorizationCode(
  fetchImpl: typeof fetch,
  config: OAuthProviderConfig,
  params: ClientCredentials & { code: string; redirectUri: string; codeVerifier: string },
): Promise<OAuthTokens> {
  const body = new URLSearchParams({ grant_type: 'authorization_code', code: params.code, redirect_uri: params.redirectUri, code_verifier: params.codeVerifier, client_id: params.clientId });
  return requestTokens(fetchImpl, config, body, params);
}

/**
 * A new access token for a refresh token (RFC 6749 6). Providers that rotate refresh tokens (Zoom)
 * return a new `refresh_token` and invalidate the old one: the caller must store it before use.
 */
export function refreshAccessToken(fetchImpl: typeof fetch, config: OAuthProviderConfig, params: ClientCredentials & { refreshToken: string }): Promise<OAuthTokens> {
  const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: params.refreshToken, client_id: params.clientId });
  return requestTokens(fetchImpl, config, body, params);
}

/**
 * A confidential client's authentication at the token endpoint (RFC 6749 2.3.1): the secret in the
 * form (client_secret_post) or HTTP Basic (the default). A public client (no secret) adds nothing.
 */
export function authenticateClient(config: Pick<OAuthProviderConfig, 'token_auth_method'>, client: { clientId: string; clientSecret: string | null }, body: URLSearchParams, headers: Record<string, string>): void {
  if (client.clientSecret === null) return;
  if (config.token_auth_method === 'client_secret_post') {
    body.set('client_secret', client.clientSecret);
    return;
  }
  // Both parts are form-urlencoded before the Basic encoding.
  const user = encodeURIComponent(client.clientId).replace(/%20/g, '+');
  const pass = encodeURIComponent(client.clientSecret).replace(/%20/g, '+');
  headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

async function requestTokens(fetchImpl: typeof fetch, config: OAuthProviderConfig, body: URLSearchParams, client: ClientCredentials): Promise<OAuthTokens> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  authenticateClient(config, client, body, headers);
  let res: Response;
  try {
    res = await fetchImpl(config.token_url, { method: 'POST', headers, body: body.toString(), redirect: 'error', signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) });
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    throw new TokenExchangeError(timedOut ? 'The provider did not answer the token request in time.' : "The provider's token endpoint could not be reached.", 'unavailable');
  }
  const text = await res.text();
  const payload = parseTokenResponse(text, res.headers.get('content-type'));
  // RFC 6749 5.2 `error`; HubSpot's token endpoint names the problem in `status` (BAD_REFRESH_TOKEN, ...).
  const providerError = typeof payload?.error === 'string' ? payload.error : undefined;
  if (!res.ok || providerError !== undefined) {
    const reason = payload?.error_description ?? payload?.reason ?? payload?.message;
    const described = typeof reason === 'string' ? `: ${reason.slice(0, 300)}` : '';
    const what = providerError ?? (typeof payload?.status === 'string' ? payload.status : `HTTP ${res.status}`);
    const unavailable = providerError === undefined && (res.status >= 500 || res.status === 429 || res.status === 408);
    throw new TokenExchangeError(`The provider refused to issue tokens (${what}${described}).`, unavailable ? 'unavailable' : 'refused', providerError ?? null, res.status);
  }
  if (!payload || typeof payload.access_token !== 'string' || payload.access_token === '') {
    throw new TokenExchangeError("The provider's token response had no access_token.", 'refused', null, res.status);
  }
  const tokens: OAuthTokens = { access_token: payload.access_token };
  if (typeof payload.refresh_token === 'string' && payload.refresh_token !== '') tokens.refresh_token = payload.refresh_token;
  if (typeof payload.token_type === 'string') tokens.token_type = payload.token_type;
  if (typeof payload.scope === 'string') tokens.scope = payload.scope;
  const expiresIn = typeof payload.expires_in === 'string' ? Number(payload.expires_in) : payload.expires_in;
  if (typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0) tokens.expires_in = Math.floor(expiresIn);
  return tokens;
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
