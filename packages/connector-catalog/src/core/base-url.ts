import type { ConnectorDefinition, InjectedCredential } from './types';

/**
 * The base URL a call goes to: a self-hosted URL from the credential (a Jira site, GitHub
 * Enterprise), else a deployment override (tests, proxies), else the catalog default.
 */
export function resolveBaseUrl(connector: ConnectorDefinition, credential: InjectedCredential, overrides: Record<string, string> = {}): string {
  const fromCredential = connector.base_url_field ? credential.values[connector.base_url_field] : undefined;
  if (fromCredential) return fromCredential.replace(/\/+$/, '');
  return (overrides[connector.slug] ?? connector.default_base_url).replace(/\/+$/, '');
}

/**
 * Deployment overrides from the environment: PATCHBAY_CONNECTOR_BASE_URL_<SLUG> (slug upper-cased,
 * dashes as underscores), e.g. PATCHBAY_CONNECTOR_BASE_URL_GITHUB=https://github.example.com/api/v3.
 */
export function baseUrlOverridesFromEnv(slugs: string[], env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const slug of slugs) {
    const value = env[`PATCHBAY_CONNECTOR_BASE_URL_${slug.toUpperCase().replace(/-/g, '_')}`];
    if (value) out[slug] = value;
  }
  return out;
}
