import type { KeyPrincipal } from '@patchbay/auth';
import type { InjectedCredential, JsonSchema, ToolAnnotations } from '@patchbay/connector-catalog';
import { ServiceUnavailableError } from '@patchbay/errors';
import { SERVICE_TOKEN_HEADER } from '@patchbay/auth';

/** One tool as the registry says a (tool pack, registered user) pair sees it. */
export interface PackTool {
  fully_qualified_name: string;
  connector_slug: string;
  connector_name: string;
  connector_kind: 'builtin' | 'custom';
  name: string;
  description: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema | null;
  annotations: Partial<ToolAnnotations> | null;
  auth_scope: 'INDIVIDUAL' | 'SHARED' | 'ORGANIZATION';
}

export interface PackTools {
  tool_pack: { id: string; name: string };
  registered_user: { id: string; origin_user_id: string; origin_company_id: string };
  tools: PackTool[];
  custom_servers: Record<string, { connector_id: string; url: string; auth_type: 'none' | 'secret'; secret: string | null }>;
}

export type CredentialLookup =
  | { ok: true; credential: InjectedCredential; connectionId: string }
  | { ok: false; code: 'credential_missing' | 'credential_invalid' | 'unavailable'; detail: string };

interface CacheEntry {
  value: PackTools | null;
  until: number;
}

/**
 * Talks to connector-registry's internal routes. The tools of a pair are cached briefly (they change
 * only when someone edits the pack); credentials are never cached here, so a deleted credential
 * stops working at the next call.
 */
export class RegistryClient {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly options: { baseUrl: string; serviceToken: string; cacheTtlMs: number; timeoutMs?: number; now?: () => number },
  ) {}

  private async post(path: string, body: unknown): Promise<Response> {
    try {
      return await fetch(new URL(path, this.options.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SERVICE_TOKEN_HEADER]: this.options.serviceToken },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
      });
    } catch {
      throw new ServiceUnavailableError('Tool packs cannot be resolved right now; retry shortly.');
    }
  }

  /** The pair's tools, or null when the tool pack or the registered user does not exist. */
  async packTools(principal: KeyPrincipal, toolPackId: string, registeredUserId: string): Promise<PackTools | null> {
    const key = `${principal.organizationId}:${principal.environment}:${toolPackId}:${registeredUserId}`;
    const now = (this.options.now ?? Date.now)();
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return hit.value;
    const res = await this.post('/internal/v1/tool-packs/resolve', {
      organization_id: principal.organizationId,
      environment: principal.environment,
      tool_pack_id: toolPackId,
      registered_user_id: registeredUserId,
    });
    let value: PackTools | null;
    if (res.status === 404) value = null;
    else if (res.ok) value = (await res.json()) as PackTools;
    else throw new ServiceUnavailableError('Tool packs cannot be resolved right now; retry shortly.');
    this.cache.set(key, { value, until: now + this.options.cacheTtlMs });
    return value;
  }

  /** Drops cached tool lists of an organization (or all): called when packs or connectors change. */
  invalidate(organizationId?: string): void {
    if (!organizationId) return this.cache.clear();
    for (const key of this.cache.keys()) if (key.startsWith(`${organizationId}:`)) this.cache.delete(key);
  }

  /** Whether the tool pack exists in the key's organization and environment (security-rule overrides name one). */
  async toolPackExists(principal: KeyPrincipal, toolPackId: string): Promise<boolean> {
    const res = await this.post('/internal/v1/tool-packs/lookup', { organization_id: principal.organizationId, environment: principal.environment, tool_pack_id: toolPackId });
    if (res.status === 404) return false;
    if (res.ok) return true;
    throw new ServiceUnavailableError('Tool packs cannot be looked up right now; retry shortly.');
  }

  /** A fresh magic link the user opens to connect the connector; null when the registry cannot make one. */
  async magicLink(principal: KeyPrincipal, registeredUserId: string, connectorSlug: string, authScope: PackTool['auth_scope'], publicBaseUrl: string): Promise<{ magic_link_url: string; expires_at: string } | null> {
    const res = await this.post('/internal/v1/link-tokens', {
      organization_id: principal.organizationId,
      environment: principal.environment,
      registered_user_id: registeredUserId,
      connector_slug: connectorSlug,
      auth_scope: authScope,
      acting_key_id: principal.keyId,
      public_base_url: publicBaseUrl,
    }).catch(() => null);
    if (!res || res.status !== 201) return null;
    return (await res.json()) as { magic_link_url: string; expires_at: string };
  }

  async credential(principal: KeyPrincipal, toolPackId: string, registeredUserId: string, connectorSlug: string): Promise<CredentialLookup> {
    const res = await this.post('/internal/v1/credentials/resolve', {
      organization_id: principal.organizationId,
      environment: principal.environment,
      tool_pack_id: toolPackId,
      registered_user_id: registeredUserId,
      connector_slug: connectorSlug,
    });
    if (res.ok) {
      const body = (await res.json()) as { connection_id: string; auth_type: InjectedCredential['auth_type']; credential: { values: Record<string, string>; access_token?: string } };
      return { ok: true, connectionId: body.connection_id, credential: { auth_type: body.auth_type, values: body.credential.values ?? {}, access_token: body.credential.access_token } };
    }
    const body = (await res.json().catch(() => ({}))) as { code?: string; detail?: string };
    if (res.status === 404 && (body.code === 'credential_missing' || body.code === 'credential_invalid')) {
      return { ok: false, code: body.code, detail: body.detail ?? 'The user has not connected this connector.' };
    }
    return { ok: false, code: 'unavailable', detail: 'The credential for this connector cannot be loaded right now; retry shortly.' };
  }
}
