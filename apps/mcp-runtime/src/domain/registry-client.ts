import { withSpan } from '@patchbay/telemetry';
import type { KeyPrincipal } from '@patchbay/auth';
import type { InjectedCredential, JsonSchema, ToolAnnotations } from '@patchbay/connector-catalog';
import { ServiceUnavailableError } from '@patchbay/errors';
import { SERVICE_TOKEN_HEADER } from '@patchbay/auth';
import { subscribeRegistryChanges, type CloseRegistryChangeSubscription, type QueueLogger, type RegistryChange } from '@patchbay/queues';
import type Redis from 'ioredis';

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

/** A credential is never reused closer than this to its own expiry (the registry refreshes it from there on). */
export const CREDENTIAL_EXPIRY_MARGIN_MS = 60_000;

export interface RegistryClientOptions {
  baseUrl: string;
  serviceToken: string;
  /** How long the tools of a (tool pack, registered user) pair are reused (PACK_CACHE_TTL_MS). */
  cacheTtlMs: number;
  /**
   * How long a resolved credential is reused (CREDENTIAL_CACHE_TTL_MS); never past its expiry minus
   * CREDENTIAL_EXPIRY_MARGIN_MS. 0, the default, asks the registry on every call.
   */
  credentialTtlMs?: number;
  /** Most entries each cache holds; the oldest goes first. Default 10 000. */
  maxEntries?: number;
  timeoutMs?: number;
  now?: () => number;
  fetch?: typeof fetch;
  /** Where malformed change messages are reported. */
  logger?: Pick<QueueLogger, 'warn'>;
}

/** What an entry was resolved for, to match it against a registry change. */
interface EntryScope {
  organizationId: string;
  environment: string;
  toolPackId: string;
  registeredUserId: string;
}

interface PackEntry extends EntryScope {
  value: PackTools | null;
  until: number;
}

interface CredentialEntry extends EntryScope {
  connectorSlug: string;
  lookup: Extract<CredentialLookup, { ok: true }>;
  until: number;
}

function sameScope(change: RegistryChange, entry: EntryScope): boolean {
  return change.organization_id === entry.organizationId && change.environment === entry.environment;
}

/** Whether a change may have made a cached tool list stale. Credentials are not part of a tool list. */
function staleTools(change: RegistryChange, entry: PackEntry): boolean {
  if (!sameScope(change, entry)) return false;
  switch (change.kind) {
    case 'tool_packs':
      return change.tool_pack_id === undefined || change.tool_pack_id === entry.toolPackId;
    case 'registered_users':
      return change.registered_user_id === undefined || change.registered_user_id === entry.registeredUserId;
    case 'connectors':
      // A custom connector is in custom_servers of every pack that includes it.
      return change.connector_slug === undefined || (entry.value !== null && change.connector_slug in entry.value.custom_servers);
    case 'credentials':
      return false;
  }
}

/** Whether a change may have made a cached credential stale. */
function staleCredential(change: RegistryChange, entry: CredentialEntry): boolean {
  if (!sameScope(change, entry)) return false;
  switch (change.kind) {
    case 'tool_packs':
      // The pack decides the auth scope, hence which credential a connector uses.
      return change.tool_pack_id === undefined || change.tool_pack_id === entry.toolPackId;
    case 'registered_users':
      // A user's company decides which SHARED credential it uses.
      return change.registered_user_id === undefined || change.registered_user_id === entry.registeredUserId;
    case 'connectors':
    case 'credentials':
      return (change.connector_slug === undefined || change.connector_slug === entry.connectorSlug) && (change.registered_user_id === undefined || change.registered_user_id === entry.registeredUserId);
  }
}

const scopeKey = (organizationId: string, environment: string): string => `${organizationId}:${environment}`;
const packKey = (principal: KeyPrincipal, toolPackId: string, registeredUserId: string): string => `${scopeKey(principal.organizationId, principal.environment)}:${toolPackId}:${registeredUserId}`;
const credentialKey = (principal: KeyPrincipal, toolPackId: string, registeredUserId: string, connectorSlug: string): string => `${packKey(principal, toolPackId, registeredUserId)}:${connectorSlug}`;

/**
 * Talks to connector-registry's internal routes, with two caches in front:
 *
 * - the tools of a (tool pack, registered user) pair, for `cacheTtlMs`;
 * - a resolved credential, per (organization, environment, tool pack, registered user, connector), for
 *   `credentialTtlMs` (off by default) and never past its expiry minus a minute. A missing or invalid
 *   credential is not cached: the user who connects is served at the next call.
 *
 * With `subscribe`, the registry's change announcements drop the affected entries at once, so the TTLs
 * only bound a missed message. While that subscription is down nothing is served from either cache
 * (messages would be missed), and both start empty when it is back.
 */
export class RegistryClient {
  private readonly packs = new Map<string, PackEntry>();
  private readonly credentials = new Map<string, CredentialEntry>();
  private readonly credentialTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly fetch: typeof fetch;
  private subscriber: Redis | null = null;
  private live = false;
  private closeSubscription: CloseRegistryChangeSubscription | null = null;
  /**
   * Counts invalidations, so a lookup that was under way when its entries were dropped does not store
   * what it read before the change: `invalidatedAt` holds, per organization and environment, the count
   * at its last change; `clearedAt` the count at the last full clear.
   */
  private invalidations = 0;
  private readonly invalidatedAt = new Map<string, number>();
  private clearedAt = 0;

  constructor(private readonly options: RegistryClientOptions) {
    this.credentialTtlMs = options.credentialTtlMs ?? 0;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    this.fetch = options.fetch ?? fetch;
  }

  /**
   * Listens for the registry's changes on a dedicated Redis connection (a subscribed connection can do
   * nothing else). The connection stays the caller's to close, after `close()`.
   */
  async subscribe(subscriber: Redis): Promise<void> {
    // Not trusted until the subscription is confirmed.
    this.subscriber = subscriber;
    this.live = false;
    this.closeSubscription = await subscribeRegistryChanges(subscriber, (change) => this.apply(change), {
      // Whatever was announced while it was down is lost: start over.
      onLive: () => {
        this.clear();
        this.live = true;
      },
      onDown: () => {
        this.live = false;
      },
      logger: this.options.logger,
    });
  }

  /** Stops listening; the caches then only expire by their TTLs. */
  async close(): Promise<void> {
    const close = this.closeSubscription;
    this.closeSubscription = null;
    this.subscriber = null;
    this.live = false;
    if (close) await close();
  }

  /** Whether cached entries may be served: always without a subscription (TTL only), else only while it is up. */
  get cacheTrusted(): boolean {
    if (this.subscriber === null) return true;
    return this.live && this.subscriber.status === 'ready';
  }

  /** Drops every entry a registry change may have made stale. */
  apply(change: RegistryChange): void {
    this.invalidations += 1;
    this.invalidatedAt.set(scopeKey(change.organization_id, change.environment), this.invalidations);
    for (const [key, entry] of this.packs) if (staleTools(change, entry)) this.packs.delete(key);
    for (const [key, entry] of this.credentials) if (staleCredential(change, entry)) this.credentials.delete(key);
  }

  /** Drops everything cached. */
  clear(): void {
    this.invalidations += 1;
    this.clearedAt = this.invalidations;
    this.invalidatedAt.clear();
    this.packs.clear();
    this.credentials.clear();
  }

  /** Drops cached tool lists and credentials of an organization (or all). */
  invalidate(organizationId?: string): void {
    if (!organizationId) return this.clear();
    this.invalidations += 1;
    for (const environment of ['production', 'test']) this.invalidatedAt.set(scopeKey(organizationId, environment), this.invalidations);
    for (const [key, entry] of this.packs) if (entry.organizationId === organizationId) this.packs.delete(key);
    for (const [key, entry] of this.credentials) if (entry.organizationId === organizationId) this.credentials.delete(key);
  }

  /**
   * Drops a cached credential the provider rejected (HTTP 401), wherever else the same connection is
   * cached too (a SHARED one serves several users), so the next call asks the registry again instead
   * of reusing it until its TTL.
   */
  forgetCredential(principal: KeyPrincipal, toolPackId: string, registeredUserId: string, connectorSlug: string): void {
    const key = credentialKey(principal, toolPackId, registeredUserId, connectorSlug);
    const rejected = this.credentials.get(key)?.lookup.connectionId;
    this.invalidations += 1;
    this.invalidatedAt.set(scopeKey(principal.organizationId, principal.environment), this.invalidations);
    this.credentials.delete(key);
    if (rejected === undefined) return;
    for (const [other, entry] of this.credentials) if (entry.lookup.connectionId === rejected) this.credentials.delete(other);
  }

  /** The invalidation count a lookup starting now compares against when it ends. */
  private mark(): number {
    return this.invalidations;
  }

  /** True when nothing that could concern the scope was dropped since `mark`, and the cache may be trusted. */
  private mayStore(organizationId: string, environment: string, mark: number): boolean {
    return this.cacheTrusted && this.clearedAt <= mark && (this.invalidatedAt.get(scopeKey(organizationId, environment)) ?? 0) <= mark;
  }

  private store<E>(cache: Map<string, E>, key: string, entry: E): void {
    cache.delete(key);
    if (cache.size >= this.maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(key, entry);
  }

  private async post(path: string, body: unknown): Promise<Response> {
    try {
      return await this.fetch(new URL(path, this.options.baseUrl), {
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
    const { organizationId, environment } = principal;
    const key = packKey(principal, toolPackId, registeredUserId);
    const hit = this.packs.get(key);
    if (hit && hit.until > this.now() && this.cacheTrusted) return hit.value;
    const mark = this.mark();
    const started = this.now();
    const res = await withSpan('RegistryClient.packTools', () =>
      this.post('/internal/v1/tool-packs/resolve', {
        organization_id: organizationId,
        environment,
        tool_pack_id: toolPackId,
        registered_user_id: registeredUserId,
      }),
    );
    let value: PackTools | null;
    if (res.status === 404) value = null;
    else if (res.ok) value = (await res.json()) as PackTools;
    else throw new ServiceUnavailableError('Tool packs cannot be resolved right now; retry shortly.');
    if (this.options.cacheTtlMs > 0 && this.mayStore(organizationId, environment, mark)) {
      this.store(this.packs, key, { organizationId, environment, toolPackId, registeredUserId, value, until: started + this.options.cacheTtlMs });
    }
    return value;
  }

  /** Whether the tool pack exists in the key's organization and environment (security-rule overrides name one). */
  async toolPackExists(principal: KeyPrincipal, toolPackId: string): Promise<boolean> {
    const res = await this.post('/internal/v1/tool-packs/lookup', { organization_id: principal.organizationId, environment: principal.environment, tool_pack_id: toolPackId });
    if (res.status === 404) return false;
    if (res.ok) return true;
    throw new ServiceUnavailableError('Tool packs cannot be looked up right now; retry shortly.');
  }

  /** A fresh magic link the user opens to connect the connector; null when the registry cannot make one. */
  async magicLink(principal: KeyPrincipal, registeredUserId: string, connectorSlug: string, authScope: PackTool['auth_scope'], publicBaseUrl: string | null): Promise<{ magic_link_url: string; expires_at: string } | null> {
    const res = await withSpan('RegistryClient.magicLink', () => this.post('/internal/v1/link-tokens', {
      organization_id: principal.organizationId,
      environment: principal.environment,
      registered_user_id: registeredUserId,
      connector_slug: connectorSlug,
      auth_scope: authScope,
      acting_key_id: principal.keyId,
      public_base_url: publicBaseUrl,
    })).catch(() => null);
    if (!res || res.status !== 201) return null;
    return (await res.json()) as { magic_link_url: string; expires_at: string };
  }

  /** The credential a built-in tool call of the pair runs with. */
  async credential(principal: KeyPrincipal, toolPackId: string, registeredUserId: string, connectorSlug: string): Promise<CredentialLookup> {
    const { organizationId, environment } = principal;
    const key = credentialKey(principal, toolPackId, registeredUserId, connectorSlug);
    const hit = this.credentials.get(key);
    if (hit && hit.until > this.now() && this.cacheTrusted) return copyLookup(hit.lookup);
    const mark = this.mark();
    const started = this.now();
    const res = await withSpan('RegistryClient.credential', () =>
      this.post('/internal/v1/credentials/resolve', {
        organization_id: organizationId,
        environment,
        tool_pack_id: toolPackId,
        registered_user_id: registeredUserId,
        connector_slug: connectorSlug,
      }),
    );
    if (res.ok) {
      const body = (await res.json()) as {
        connection_id: string;
        auth_type: InjectedCredential['auth_type'];
        credential: { values: Record<string, string>; access_token?: string };
        expires_at?: string | null;
      };
      const lookup = { ok: true as const, connectionId: body.connection_id, credential: { auth_type: body.auth_type, values: body.credential.values ?? {}, access_token: body.credential.access_token } };
      const until = this.credentialUntil(started, body.expires_at ?? null);
      if (until > this.now() && this.mayStore(organizationId, environment, mark)) {
        this.store(this.credentials, key, { organizationId, environment, toolPackId, registeredUserId, connectorSlug, lookup: copyLookup(lookup), until });
      }
      return lookup;
    }
    const body = (await res.json().catch(() => ({}))) as { code?: string; detail?: string };
    if (res.status === 404 && (body.code === 'credential_missing' || body.code === 'credential_invalid')) {
      return { ok: false, code: body.code, detail: body.detail ?? 'The user has not connected this connector.' };
    }
    return { ok: false, code: 'unavailable', detail: 'The credential for this connector cannot be loaded right now; retry shortly.' };
  }

  /** Until when a credential resolved at `started` may be reused: 0 when it may not be. */
  private credentialUntil(started: number, expiresAt: string | null): number {
    if (this.credentialTtlMs <= 0) return 0;
    const until = started + this.credentialTtlMs;
    const expiry = expiresAt === null ? Number.NaN : Date.parse(expiresAt);
    return Number.isNaN(expiry) ? until : Math.min(until, expiry - CREDENTIAL_EXPIRY_MARGIN_MS);
  }
}

/** The executor gets its own copy, so nothing it does to the credential reaches the cache. */
function copyLookup(lookup: Extract<CredentialLookup, { ok: true }>): Extract<CredentialLookup, { ok: true }> {
  return { ok: true, connectionId: lookup.connectionId, credential: { ...lookup.credential, values: { ...lookup.credential.values } } };
}
