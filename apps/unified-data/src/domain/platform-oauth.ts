import { PlatformError, type Platform } from '@patchbay/marketing-platforms';
import { TokenExchangeError, refreshAccessToken, type OAuthProviderConfig, type OAuthTokens } from '@patchbay/oauth';
import type { PlatformConfig } from '../services';

/** A platform's OAuth app as the operator configured it (PATCHBAY_MKTG_<PLATFORM>_CLIENT_ID and friends). */
export interface PlatformOAuthClient {
  provider: OAuthProviderConfig;
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

const scopesOf = (value: string) => value.split(/[\s,]+/).filter((s) => s !== '');

/**
 * The OAuth app of a platform, or null when the operator configured none (the magic-link page then
 * asks for an API token only). How each platform takes the client credentials at its token URL:
 * HubSpot and Eventbrite in the form body, Zoom with HTTP Basic.
 */
export function oauthClientFor(platform: Platform, config: PlatformConfig): PlatformOAuthClient | null {
  switch (platform) {
    case 'hubspot':
      if (!config.PATCHBAY_MKTG_HUBSPOT_CLIENT_ID || !config.PATCHBAY_MKTG_HUBSPOT_CLIENT_SECRET) return null;
      return {
        provider: { authorize_url: config.PATCHBAY_MKTG_HUBSPOT_AUTHORIZE_URL, token_url: config.PATCHBAY_MKTG_HUBSPOT_TOKEN_URL, token_auth_method: 'client_secret_post' },
        clientId: config.PATCHBAY_MKTG_HUBSPOT_CLIENT_ID,
        clientSecret: config.PATCHBAY_MKTG_HUBSPOT_CLIENT_SECRET,
        scopes: scopesOf(config.PATCHBAY_MKTG_HUBSPOT_SCOPES),
      };
    case 'zoom':
      if (!config.PATCHBAY_MKTG_ZOOM_CLIENT_ID || !config.PATCHBAY_MKTG_ZOOM_CLIENT_SECRET) return null;
      return {
        provider: { authorize_url: config.PATCHBAY_MKTG_ZOOM_AUTHORIZE_URL, token_url: config.PATCHBAY_MKTG_ZOOM_TOKEN_URL, token_auth_method: 'client_secret_basic' },
        clientId: config.PATCHBAY_MKTG_ZOOM_CLIENT_ID,
        clientSecret: config.PATCHBAY_MKTG_ZOOM_CLIENT_SECRET,
        scopes: scopesOf(config.PATCHBAY_MKTG_ZOOM_SCOPES),
      };
    case 'eventbrite':
      if (!config.PATCHBAY_MKTG_EVENTBRITE_CLIENT_ID || !config.PATCHBAY_MKTG_EVENTBRITE_CLIENT_SECRET) return null;
      return {
        provider: { authorize_url: config.PATCHBAY_MKTG_EVENTBRITE_AUTHORIZE_URL, token_url: config.PATCHBAY_MKTG_EVENTBRITE_TOKEN_URL, token_auth_method: 'client_secret_post' },
        clientId: config.PATCHBAY_MKTG_EVENTBRITE_CLIENT_ID,
        clientSecret: config.PATCHBAY_MKTG_EVENTBRITE_CLIENT_SECRET,
        scopes: [],
      };
  }
}

/**
 * The platform credentials kept for OAuth tokens: `access_token`, and where the platform gives them
 * `refresh_token` and `expires_at` (epoch ms). Sealed like any other credentials.
 */
export function credentialsFromTokens(tokens: OAuthTokens, now: number, previous: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = { ...previous, access_token: tokens.access_token };
  // A platform that does not rotate refresh tokens may leave it out of a refresh answer: keep the one we have.
  if (tokens.refresh_token) out.refresh_token = tokens.refresh_token;
  if (tokens.expires_in !== undefined) out.expires_at = String(now + tokens.expires_in * 1000);
  else delete out.expires_at;
  return out;
}

/**
 * Runs the refresh grant for a linked account's tokens. A refused refresh token (invalid_grant, the
 * user uninstalled the app) is `credentials_invalid`; a token endpoint that could not answer is
 * `transient` (the sync resumes later); an OAuth app the operator removed is `failed`.
 */
export async function refreshPlatformTokens(
  fetchImpl: typeof fetch,
  platform: Platform,
  config: PlatformConfig,
  credentials: Record<string, string>,
  now: () => number,
): Promise<Record<string, string>> {
  const client = oauthClientFor(platform, config);
  if (!client) throw new PlatformError('failed', `The account was linked with OAuth but no ${platform} OAuth app is configured (PATCHBAY_MKTG_${platform.toUpperCase()}_CLIENT_ID and _CLIENT_SECRET).`);
  try {
    const tokens = await refreshAccessToken(fetchImpl, client.provider, { clientId: client.clientId, clientSecret: client.clientSecret, refreshToken: credentials.refresh_token ?? '' });
    return credentialsFromTokens(tokens, now(), credentials);
  } catch (err) {
    if (!(err instanceof TokenExchangeError)) throw err;
    throw new PlatformError(err.kind === 'refused' ? 'credentials_invalid' : 'transient', `Refreshing the ${platform} access token failed: ${err.description}`, err.status);
  }
}
