import { createHash, randomBytes } from 'node:crypto';
import type { OAuth2Config } from '@patchbay/connector-catalog';

/** Where a connector's OAuth endpoints live when not at the catalog's provider URLs (tests, self-hosted providers). */
export interface OAuthEndpointOverride {
  authorize_url: string;
  token_url: string;
}

/** The catalog's OAuth config with the deployment's endpoint override for this connector applied. */
export function effectiveOAuthConfig(slug: string, config: OAuth2Config, overrides: Record<string, OAuthEndpointOverride> | undefined): OAuth2Config {
  const override = overrides?.[slug];
  return override ? { ...config, authorize_url: override.authorize_url, token_url: override.token_url } : config;
}

/** A PKCE pair (RFC 7636, S256): 32 random bytes give a 43-character verifier. */
export function createPkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: pkceChallenge(verifier) };
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export function randomOAuthState(): string {
  return randomBytes(32).toString('base64url');
}

export function authorizeUrl(
  config: OAuth2Config,
  params: { clientId: string; redirectUri: string; scopes: string[]; state: string; codeChallenge: string },
): string {
  const url = new URL(config.authorize_url);
  // The connector's extra parameters first, so ours (the security-relevant ones) always win.
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

/** Tokens the provider issued for an authorization code. */
export interface OAuthTokens {
  access_token: string;
  refresh_token?: string;
  token_type?: string;
  scope?: string;
  expires_in?: number;
}

/** Why a code could not be exchanged; `description` is safe to show the user (never a secret). */
export class TokenExchangeError extends Error {
  constructor(
    readonly code: string,
    readonly description: string,
  ) {
    super(description);
    this.name = 'TokenExchangeError';
  }
}

const TOKEN_TIMEOUT_MS = 15_000;

/**
 * Exchanges an authorization code at the provider's token URL (RFC 6749 4.1.3 with the PKCE
 * verifier). Asks for JSON explicitly: GitHub answers form-encoded otherwise, and reports errors
 * with status 200 and an `error` member, which is handled the same as an error status.
 */
export async function exchangeAuthorizationCode(
  fetchImpl: typeof fetch,
  config: OAuth2Config,
  params: { code: string; redirectUri: string; codeVerifier: string; clientId: string; clientSecret: string | null },
): Promise<OAuthTokens> {
  const body = new URLSearchParams({ grant_type: 'authorization_code', code: params.code, redirect_uri: params.redirectUri, code_verifier: params.codeVerifier, client_id: params.clientId });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (params.clientSecret !== null) {
    if (config.token_auth_method === 'client_secret_post') {
      body.set('client_secret', params.clientSecret);
    } else {
      // RFC 6749 2.3.1: both parts are form-urlencoded before the Basic encoding.
      const user = encodeURIComponent(params.clientId).replace(/%20/g, '+');
      const pass = encodeURIComponent(params.clientSecret).replace(/%20/g, '+');
      headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    }
  }
  let res: Response;
  try {
    res = await fetchImpl(config.token_url, { method: 'POST', headers, body: body.toString(), redirect: 'error', signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) });
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    throw new TokenExchangeError('token_exchange_failed', timedOut ? 'The provider did not answer the token request in time.' : 'The provider\'s token endpoint could not be reached.');
  }
  const text = await res.text();
  const payload = parseTokenResponse(text, res.headers.get('content-type'));
  const providerError = typeof payload?.error === 'string' ? payload.error : undefined;
  if (!res.ok || providerError !== undefined) {
    const described = typeof payload?.error_description === 'string' ? `: ${payload.error_description.slice(0, 300)}` : '';
    const what = providerError ?? `HTTP ${res.status}`;
    throw new TokenExchangeError('token_exchange_failed', `The provider refused to issue tokens (${what}${described}).`);
  }
  if (!payload || typeof payload.access_token !== 'string' || payload.access_token === '') {
    throw new TokenExchangeError('token_exchange_failed', 'The provider\'s token response had no access_token.');
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
