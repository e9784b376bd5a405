import { randomUUID } from 'node:crypto';
import { getBuiltinConnector, type OAuth2Config } from '@patchbay/connector-catalog';
import { AppError, NotFoundError, ServiceUnavailableError } from '@patchbay/errors';
import { QUEUE_NAMES, addToOutbox, type RegistryChange } from '@patchbay/queues';
import type { SecretBox } from '@patchbay/secrets';
import type { Cluster, Redis } from 'ioredis';
import type { Db } from '../db';
import { credentialChange } from '../services';
import type { AuthScope, Connection, Environment } from '../generated/prisma/client';
import { clientSecretContext } from './application-credentials';
import { refreshAccessToken, REFRESH_TIMEOUT_MS, type RefreshOutcome } from './oauth-refresh';
import { acquireLock, releaseLock, waitForRelease } from './redis-lock';
import { connectionSecretContext, connectionSubjectKey, type StoredSecret } from './store-credential';

/** An access token this close to its expiry is refreshed before it is handed out. */
export const REFRESH_MARGIN_MS = 60_000;
/** Longer than a refresh can take (its HTTP timeout plus the database writes), so a live holder never loses the lock. */
export const REFRESH_LOCK_TTL_MS = REFRESH_TIMEOUT_MS + 20_000;

export interface ResolveCredentialRequest {
  organizationId: string;
  environment: Environment;
  toolPackId: string;
  registeredUserId: string;
  connectorSlug: string;
}

/** What mcp-runtime injects into a tool call (the catalog's InjectedCredential, plus where it came from). */
export interface ResolvedCredential {
  connection_id: string;
  auth_scope: AuthScope;
  auth_type: string;
  credential: { values: Record<string, string>; access_token?: string };
  /** When the access token expires (ISO 8601), or null when it does not expire or is not OAuth. */
  expires_at: string | null;
}

/**
 * The user has no usable credential for the connector: `credential_missing` (never authenticated at
 * the scope the tool pack uses, or the credential was deleted) or `credential_invalid` (the connection
 * is in ERROR after a terminal authentication failure). Either way the user must authenticate again,
 * which mcp-runtime offers with a magic link.
 */
export class CredentialUnavailableError extends Error {
  constructor(
    readonly code: 'credential_missing' | 'credential_invalid',
    readonly detail: string,
    readonly connectionId: string | null,
  ) {
    super(detail);
    this.name = 'CredentialUnavailableError';
  }
}

export interface CredentialResolverDeps {
  db: Db;
  redis: Redis | Cluster;
  box: SecretBox;
  /** Token URL overrides by connector slug (tests, self-hosted providers). */
  oauthOverrides?: Record<string, { authorize_url?: string; token_url?: string }>;
  /** Called after a change committed: sends its audit event now and announces the change (never rejects). */
  afterCommit?: (change: RegistryChange) => Promise<void>;
  fetch?: typeof fetch;
  now?: () => number;
  lockTtlMs?: number;
}

function lockKey(connectionId: string): string {
  return `connector-registry:connection-refresh:${connectionId}`;
}

/**
 * Finds the credential a tool call of (tool pack, registered user, connector) runs with, at the scope
 * the tool pack sets for that connector, refreshing an expiring OAuth access token first. Refreshes
 * are serialized per connection across every replica by a Redis lock: the holder refreshes, the
 * others wait for it and read the refreshed row, so a provider sees one refresh per expiry (several
 * refreshes with the same refresh token would invalidate each other at providers that rotate them).
 */
export class CredentialResolver {
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly lockTtlMs: number;

  constructor(private readonly deps: CredentialResolverDeps) {
    this.fetch = deps.fetch ?? fetch;
    this.now = deps.now ?? Date.now;
    this.lockTtlMs = deps.lockTtlMs ?? REFRESH_LOCK_TTL_MS;
  }

  async resolve(request: ResolveCredentialRequest): Promise<ResolvedCredential> {
    const { db } = this.deps;
    const scope = { organizationId: request.organizationId, environment: request.environment };
    const pack = await db.toolPack.findFirst({
      where: { id: request.toolPackId, ...scope },
      select: { id: true, connectors: { where: { connectorSlug: request.connectorSlug }, select: { authScope: true } } },
    });
    if (!pack) throw new NotFoundError('Tool pack not found.');
    const entry = pack.connectors[0];
    if (!entry) throw new NotFoundError(`The tool pack does not include connector "${request.connectorSlug}".`);
    const user = await db.registeredUser.findFirst({ where: { id: request.registeredUserId, ...scope }, select: { id: true, originCompanyId: true } });
    if (!user) throw new NotFoundError('Registered user not found.');

    const subjectKey = connectionSubjectKey({ authScope: entry.authScope, registeredUserId: user.id, companyId: user.originCompanyId });
    let connection = await db.connection.findUnique({
      where: { organizationId_environment_connectorSlug_authScope_subjectKey: { ...scope, connectorSlug: request.connectorSlug, authScope: entry.authScope, subjectKey } },
    });
    if (!connection) throw missing(request.connectorSlug, entry.authScope);
    if (connection.status === 'ERROR') throw invalid(connection);
    if (this.needsRefresh(connection)) connection = await this.refreshOnce(connection, request);

    const secret = this.deps.box.openJson<StoredSecret>(connection.credentialSealed, connectionSecretContext(connection.id));
    const credential: ResolvedCredential['credential'] = { values: secret.values ?? {} };
    if (secret.access_token !== undefined) credential.access_token = secret.access_token;
    return {
      connection_id: connection.id,
      auth_scope: connection.authScope,
      auth_type: connection.authType,
      credential,
      expires_at: connection.accessTokenExpiresAt?.toISOString() ?? null,
    };
  }

  private needsRefresh(connection: Connection): boolean {
    return connection.authType === 'oauth2' && connection.accessTokenExpiresAt !== null && connection.accessTokenExpiresAt.getTime() - this.now() <= REFRESH_MARGIN_MS;
  }

  private isExpired(connection: Connection): boolean {
    return connection.accessTokenExpiresAt !== null && connection.accessTokenExpiresAt.getTime() <= this.now();
  }

  /** The current row, checked again: it may have been refreshed, replaced, retired or deleted meanwhile. */
  private async reread(id: string, request: ResolveCredentialRequest, authScope: AuthScope): Promise<Connection> {
    const row = await this.deps.db.connection.findUnique({ where: { id } });
    if (!row) throw missing(request.connectorSlug, authScope);
    if (row.status === 'ERROR') throw invalid(row);
    return row;
  }

  private async refreshOnce(stale: Connection, request: ResolveCredentialRequest): Promise<Connection> {
    const { redis } = this.deps;
    const key = lockKey(stale.id);
    const token = await acquireLock(redis, key, this.lockTtlMs);
    if (token !== null) {
      try {
        // Another replica may have finished a refresh between our read and our lock.
        const current = await this.reread(stale.id, request, stale.authScope);
        if (!this.needsRefresh(current)) return current;
        return await this.refresh(current, request);
      } finally {
        await releaseLock(redis, key, token);
      }
    }
    // Someone else is refreshing: wait for them, then use what they stored.
    const released = await waitForRelease(redis, key, this.now() + this.lockTtlMs + 1000, this.now);
    if (!released) throw new ServiceUnavailableError('The credential is being refreshed; retry shortly.');
    const after = await this.reread(stale.id, request, stale.authScope);
    if (!this.needsRefresh(after)) return after;
    // The holder's refresh did not produce a fresh token (a transient failure): answer as it did
    // rather than sending the provider another request for every waiting call.
    if (!this.isExpired(after)) return after;
    throw new ServiceUnavailableError('The provider could not refresh the credential\'s access token just now; retry shortly.');
  }

  private oauthConfig(slug: string): Pick<OAuth2Config, 'token_url' | 'token_auth_method'> | null {
    const option = getBuiltinConnector(slug)?.auth_options.find((o) => o.type === 'oauth2');
    if (!option || option.type !== 'oauth2') return null;
    const tokenUrl = this.deps.oauthOverrides?.[slug]?.token_url ?? option.oauth2.token_url;
    return { token_url: tokenUrl, token_auth_method: option.oauth2.token_auth_method };
  }

  /** Runs with the lock held. */
  private async refresh(connection: Connection, request: ResolveCredentialRequest): Promise<Connection> {
    const { db, box } = this.deps;
    const context = connectionSecretContext(connection.id);
    const secret = box.openJson<StoredSecret>(connection.credentialSealed, context);
    if (!secret.refresh_token) {
      // Without a refresh token an access token is good until it expires, and then the user must come back.
      if (!this.isExpired(connection)) return connection;
      return this.retire(connection, request, 'The access token expired and the provider issued no refresh token; the user must authenticate again.');
    }
    const config = this.oauthConfig(connection.connectorSlug);
    if (!config) return this.retire(connection, request, `Connector "${connection.connectorSlug}" has no OAuth 2.0 configuration to refresh the access token with.`);
    const app = connection.applicationCredentialId
      ? await db.applicationCredential.findFirst({ where: { id: connection.applicationCredentialId, organizationId: connection.organizationId, environment: connection.environment } })
      : null;
    if (!app) return this.retire(connection, request, 'The OAuth application credential the tokens were issued to no longer exists; the user must authenticate again.');
    const clientSecret = app.clientSecretSealed === null ? null : box.open(app.clientSecretSealed, clientSecretContext(app.id));

    const startedAt = this.now();
    const outcome: RefreshOutcome = await refreshAccessToken(this.fetch, config, { refreshToken: secret.refresh_token, clientId: app.clientId, clientSecret });
    switch (outcome.kind) {
      case 'revoked':
        return this.retire(connection, request, `Refreshing the access token failed: ${outcome.reason}. The user must authenticate again.`);
      case 'rejected':
        throw new AppError('bad_gateway', `Refreshing the access token failed: ${outcome.reason}. Check the application credential of "${connection.connectorSlug}".`);
      case 'unavailable':
        throw new ServiceUnavailableError(`Refreshing the access token failed: ${outcome.reason}. Retry shortly.`);
      case 'refreshed':
        break;
    }
    const tokens = outcome.tokens;
    const next: StoredSecret = {
      ...secret,
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token ?? secret.refresh_token,
      token_type: tokens.token_type ?? secret.token_type,
      scope: tokens.scope ?? secret.scope,
    };
    if (tokens.expires_in !== undefined) next.expires_in = tokens.expires_in;
    else delete next.expires_in;
    // Measured from before the request, so the stored expiry is never later than the provider's.
    const expiresAt = tokens.expires_in !== undefined ? new Date(startedAt + tokens.expires_in * 1000) : null;
    // Only over the credential we refreshed: if the user re-authenticated meanwhile, theirs wins.
    const updated = await db.connection.updateMany({
      where: { id: connection.id, credentialSealed: connection.credentialSealed },
      data: { credentialSealed: box.sealJson(next, context), accessTokenExpiresAt: expiresAt, lastRefreshedAt: new Date(this.now()), status: 'ACTIVE', statusReason: null },
    });
    if (updated.count > 0) {
      // Runtimes caching the old access token drop it (some providers revoke it on refresh).
      await this.deps.afterCommit?.(credentialChange(connection));
    } else {
      const replaced = await this.reread(connection.id, request, connection.authScope);
      if (!this.isExpired(replaced)) return replaced;
      throw new ServiceUnavailableError('The credential changed while it was being refreshed; retry shortly.');
    }
    return this.reread(connection.id, request, connection.authScope);
  }

  /**
   * A terminal authentication failure: the connection goes to ERROR with the reason (no secret
   * values), the audit log says so, and the caller gets `credential_invalid`. If the credential was
   * replaced meanwhile (the user authenticated again), the new one is returned instead.
   */
  private async retire(connection: Connection, request: ResolveCredentialRequest, reason: string): Promise<Connection> {
    const { db } = this.deps;
    const retired = await db.$transaction(async (tx) => {
      const result = await tx.connection.updateMany({
        where: { id: connection.id, status: 'ACTIVE', credentialSealed: connection.credentialSealed },
        data: { status: 'ERROR', statusReason: reason },
      });
      if (result.count === 0) return false;
      await addToOutbox(tx, {
        queue: QUEUE_NAMES.auditEvents,
        payload: {
          event_id: randomUUID(),
          organization_id: connection.organizationId,
          environment: connection.environment,
          event_type: 'connection.error',
          occurred_at: new Date(this.now()).toISOString(),
          actor: { type: 'system' },
          user_id: request.registeredUserId,
          resource_type: 'connection',
          resource_id: connection.id,
          source_service: 'connector-registry',
          details: { connector: connection.connectorSlug, auth_scope: connection.authScope, company_id: connection.companyId, tool_pack_id: request.toolPackId, reason },
        },
      });
      return true;
    });
    if (retired) {
      await this.deps.afterCommit?.(credentialChange(connection));
      throw invalid({ ...connection, statusReason: reason });
    }
    // The row changed under us (replaced by a new authentication, or retired already): answer from it.
    const current = await this.reread(connection.id, request, connection.authScope);
    if (!this.isExpired(current)) return current;
    throw new ServiceUnavailableError('The credential changed while it was being refreshed; retry shortly.');
  }
}

function missing(slug: string, authScope: AuthScope): CredentialUnavailableError {
  const whose = authScope === 'INDIVIDUAL' ? 'The registered user has' : authScope === 'SHARED' ? 'The registered user\'s company has' : 'The organization has';
  return new CredentialUnavailableError('credential_missing', `${whose} not authenticated with "${slug}" (the tool pack uses ${authScope} credentials for it).`, null);
}

function invalid(connection: Pick<Connection, 'id' | 'connectorSlug' | 'statusReason'>): CredentialUnavailableError {
  const reason = connection.statusReason ?? 'A terminal authentication failure retired it.';
  return new CredentialUnavailableError('credential_invalid', `The stored credential for "${connection.connectorSlug}" no longer works and must be renewed by authenticating again. ${reason}`, connection.id);
}
