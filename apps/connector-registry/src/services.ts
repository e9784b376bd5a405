import type { SecretBox } from '@patchbay/secrets';
import { publishRegistryChange, type OutboxRelay, type QueueLogger, type RegistryChange, type RegistryChangeKind } from '@patchbay/queues';
import type { Request } from 'express';
import type { Cluster, Redis } from 'ioredis';
import type { Config } from './config';
import type { Db } from './db';
import type { OAuthEndpointOverride } from './domain/oauth-client';

/** What controllers need, set once on `app.locals.services` at boot (tests pass real instances too). */
export interface AppServices {
  db: Db;
  redis: Redis | Cluster;
  box: SecretBox;
  config: Pick<Config, 'PATCHBAY_PUBLIC_URL' | 'PATCHBAY_ALLOW_PRIVATE_NETWORK' | 'LINK_TOKEN_TTL_SECONDS' | 'MCP_HANDSHAKE_TIMEOUT_MS' | 'PATCHBAY_SERVICE_TOKEN'>;
  /** Delivers audit events written to the outbox; kicked after each change commits. */
  relay: Pick<OutboxRelay, 'kick'>;
  /** Provider base URL overrides (tests, self-hosted), by connector slug. */
  baseUrlOverrides: Record<string, string>;
  /** OAuth authorize/token URL overrides (tests, self-hosted providers), by connector slug: PATCHBAY_OAUTH_OVERRIDES. */
  oauthOverrides?: Record<string, OAuthEndpointOverride>;
  /** Where a registry change that could not be announced is reported. */
  logger: Pick<QueueLogger, 'warn'>;
}

export function servicesOf(req: Request): AppServices {
  return req.app.locals.services as AppServices;
}

/** Longest a response waits for its change to be announced; past it the announcement goes on in the background. */
export const ANNOUNCE_WAIT_MS = 500;

/**
 * Run after a change committed: send its audit events now instead of at the next poll and, when it
 * changes what mcp-runtime caches (`change`), announce it on the registry-changes channel so every
 * runtime replica drops the stale entries. The response waits for the announcement (Redis has handed
 * it to the subscribers by the time PUBLISH answers, so a caller's next MCP request sees the change),
 * but at most ANNOUNCE_WAIT_MS. Never rejects: a change that could not be announced is logged, and
 * the runtime's entries then expire by their TTL.
 */
export async function afterCommit(services: AppServices, change?: RegistryChange): Promise<void> {
  void services.relay.kick();
  if (change) await announce(services, change);
}

async function announce(services: AppServices, change: RegistryChange): Promise<void> {
  const fields = { kind: change.kind, organization_id: change.organization_id, environment: change.environment };
  let timer: NodeJS.Timeout | undefined;
  const published = publishRegistryChange(services.redis, change).then(
    () => true,
    (err: unknown) => {
      services.logger.warn({ ...fields, error: err instanceof Error ? err.message : String(err) }, 'registry change not announced; runtime caches keep the old state until their TTL');
      return true;
    },
  );
  const waited = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ANNOUNCE_WAIT_MS);
  });
  try {
    const settled = await Promise.race([published, waited]);
    if (!settled) services.logger.warn(fields, `registry change not announced within ${ANNOUNCE_WAIT_MS} ms; answering without waiting for Redis`);
  } finally {
    clearTimeout(timer);
  }
}

/** A change in the organization and environment a key (or a row) belongs to. */
export function registryChange(
  scope: { organizationId: string; environment: RegistryChange['environment'] },
  kind: RegistryChangeKind,
  narrow: Pick<RegistryChange, 'tool_pack_id' | 'registered_user_id' | 'connector_slug'> = {},
): RegistryChange {
  return { organization_id: scope.organizationId, environment: scope.environment, kind, ...narrow };
}

/**
 * A change of one stored credential (a connection). Only an INDIVIDUAL one is narrowed to its user:
 * a SHARED or ORGANIZATION credential is what every user of the company or organization calls with.
 */
export function credentialChange(connection: { organizationId: string; environment: RegistryChange['environment']; connectorSlug: string; authScope: string; registeredUserId: string | null }): RegistryChange {
  return registryChange(connection, 'credentials', {
    connector_slug: connection.connectorSlug,
    ...(connection.authScope === 'INDIVIDUAL' && connection.registeredUserId ? { registered_user_id: connection.registeredUserId } : {}),
  });
}
