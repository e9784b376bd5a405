import type { SecretBox } from '@patchbay/secrets';
import type { OutboxRelay } from '@patchbay/queues';
import type { Request } from 'express';
import type Redis from 'ioredis';
import type { Config } from './config';
import type { Db } from './db';
import type { OAuthEndpointOverride } from './domain/oauth-client';

/** What controllers need, set once on `app.locals.services` at boot (tests pass real instances too). */
export interface AppServices {
  db: Db;
  redis: Redis;
  box: SecretBox;
  config: Pick<Config, 'PATCHBAY_PUBLIC_URL' | 'PATCHBAY_ALLOW_PRIVATE_NETWORK' | 'LINK_TOKEN_TTL_SECONDS' | 'MCP_HANDSHAKE_TIMEOUT_MS' | 'PATCHBAY_SERVICE_TOKEN'>;
  /** Delivers audit events written to the outbox; kicked after each change commits. */
  relay: Pick<OutboxRelay, 'kick'>;
  /** Provider base URL overrides (tests, self-hosted), by connector slug. */
  baseUrlOverrides: Record<string, string>;
  /** OAuth authorize/token URL overrides (tests, self-hosted providers), by connector slug: PATCHBAY_OAUTH_OVERRIDES. */
  oauthOverrides?: Record<string, OAuthEndpointOverride>;
}

export function servicesOf(req: Request): AppServices {
  return req.app.locals.services as AppServices;
}

/** Run after a change committed: send its audit events now instead of at the next poll. */
export function afterCommit(services: AppServices): void {
  void services.relay.kick();
}
