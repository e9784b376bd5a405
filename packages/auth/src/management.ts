import { ServiceUnavailableError } from '@patchbay/errors';
import { SERVICE_TOKEN_HEADER } from './service-token';
import type { OrganizationSettings } from './principal';
import type { KeyLoader } from './verifier';

/**
 * Model gateway management keys (`mgmt_` prefix): made by the admin CLI, stored by
 * access-keys-and-audit, verified by the gateway through the routes below and cached like access keys.
 */
export const MANAGEMENT_KEY_PREFIX = 'mgmt_';

/** Permission names a management key may hold (spec, Authentication 3). */
export const MANAGEMENT_SCOPES = [
  'manage_api_keys',
  'view_billing',
  'manage_projects',
  'manage_customers',
  'manage_vendor_keys',
  'manage_policies',
  'manage_routing',
  'view_routing',
  'manage_guardrails',
  'view_guardrails',
] as const;
export type ManagementScope = (typeof MANAGEMENT_SCOPES)[number];

/** Keys minted before the current names hold these; they work as the names they map to. */
export const LEGACY_MANAGEMENT_SCOPES: Readonly<Record<string, ManagementScope>> = { manage_keys: 'manage_api_keys', read_usage: 'view_billing' };

/** Current names for a list of scope names (legacy names mapped), or the names that are unknown. */
export function normalizeManagementScopes(names: readonly string[]): { scopes: ManagementScope[]; unknown: string[] } {
  const scopes = new Set<ManagementScope>();
  const unknown: string[] = [];
  for (const name of names) {
    const mapped = LEGACY_MANAGEMENT_SCOPES[name] ?? ((MANAGEMENT_SCOPES as readonly string[]).includes(name) ? (name as ManagementScope) : undefined);
    if (mapped) scopes.add(mapped);
    else unknown.push(name);
  }
  return { scopes: [...scopes], unknown };
}

export interface ManagementPrincipal {
  keyId: string;
  organizationId: string;
  expiresAt: string | null;
  /** Current scope names (legacy names already mapped). */
  scopes: ManagementScope[];
  organization: OrganizationSettings;
}

export const MANAGEMENT_VERIFY_PATH = '/internal/v1/management-keys/verify';
export const ORGANIZATION_SETTINGS_PATH = '/internal/v1/organizations';

async function internalFetch(url: string, init: RequestInit, options: { serviceToken: string; timeoutMs?: number; fetchImpl?: typeof fetch }): Promise<Response> {
  try {
    return await (options.fetchImpl ?? fetch)(url, {
      ...init,
      headers: { 'content-type': 'application/json', [SERVICE_TOKEN_HEADER]: options.serviceToken },
      signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
    });
  } catch {
    throw new ServiceUnavailableError('Keys cannot be verified right now; retry shortly.');
  }
}

/** Asks access-keys-and-audit about a management key hash (only the hash crosses the wire). */
export function httpManagementKeyLoader(options: { baseUrl: string; serviceToken: string; timeoutMs?: number; fetchImpl?: typeof fetch }): KeyLoader<ManagementPrincipal> {
  const url = new URL(MANAGEMENT_VERIFY_PATH, options.baseUrl).toString();
  return async (keyHash) => {
    const res = await internalFetch(url, { method: 'POST', body: JSON.stringify({ key_hash: keyHash }) }, options);
    if (res.status === 404) return null;
    if (!res.ok) throw new ServiceUnavailableError('Keys cannot be verified right now; retry shortly.');
    return (await res.json()) as ManagementPrincipal;
  };
}

/** An organization's settings, for services that hold keys of their own (the model gateway). */
export function httpOrganizationLoader(options: { baseUrl: string; serviceToken: string; timeoutMs?: number; fetchImpl?: typeof fetch }): (organizationId: string) => Promise<OrganizationSettings | null> {
  return async (organizationId) => {
    const url = new URL(`${ORGANIZATION_SETTINGS_PATH}/${encodeURIComponent(organizationId)}`, options.baseUrl).toString();
    const res = await internalFetch(url, { method: 'GET' }, options);
    if (res.status === 404) return null;
    if (!res.ok) throw new ServiceUnavailableError('Organization settings cannot be read right now; retry shortly.');
    return (await res.json()) as OrganizationSettings;
  };
}
