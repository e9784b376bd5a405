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
